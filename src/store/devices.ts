// Push notification device tokens (the deprecated per-platform endpoints) and logged-in client
// devices (POST /register_client_device, end-to-end encrypted push registrations).
import type { Executor } from './db.js';

/** Stores a token, or refreshes its app id and time when the user already registered it. */
export async function upsertPushToken(db: Executor, userId: number, kind: number, token: string, appid: string | null, now: number): Promise<void> {
  const existing = await db.selectFrom('push_device_tokens').select('id').where('user_id', '=', userId).where('kind', '=', kind).where('token', '=', token).executeTakeFirst();
  if (existing) await db.updateTable('push_device_tokens').set({ appid, last_updated: now }).where('id', '=', existing.id).execute();
  else await db.insertInto('push_device_tokens').values({ user_id: userId, kind, token, appid, last_updated: now }).execute();
}

/** Forgets one of the user's tokens; false when the user had no such token. */
export async function deletePushToken(db: Executor, userId: number, kind: number, token: string): Promise<boolean> {
  const res = await db.deleteFrom('push_device_tokens').where('user_id', '=', userId).where('kind', '=', kind).where('token', '=', token).executeTakeFirst();
  return Number(res.numDeletedRows) > 0;
}

/** Whether the user registered this token (of any kind). */
export async function hasPushToken(db: Executor, userId: number, token: string): Promise<boolean> {
  return !!(await db.selectFrom('push_device_tokens').select('id').where('user_id', '=', userId).where('token', '=', token).executeTakeFirst());
}

/** The user's logged-in devices, oldest first. */
export function listClientDevices(db: Executor, userId: number) {
  return db
    .selectFrom('client_devices')
    .select(['id', 'push_key_id', 'push_token_id', 'pending_push_token_id', 'push_token_last_updated_timestamp', 'push_registration_error_code'])
    .where('user_id', '=', userId)
    .orderBy('id')
    .execute();
}

export async function insertClientDevice(db: Executor, userId: number, now: number): Promise<number> {
  const row = await db.insertInto('client_devices').values({ user_id: userId, created_at: now }).returning('id').executeTakeFirstOrThrow();
  return row.id;
}

/** Whether the device is one of the user's. */
export async function isUsersClientDevice(db: Executor, userId: number, deviceId: number): Promise<boolean> {
  return !!(await db.selectFrom('client_devices').select('id').where('id', '=', deviceId).where('user_id', '=', userId).executeTakeFirst());
}

/** Whether the user has a device with a completed push registration (this one, when given). */
export async function hasPushRegisteredDevice(db: Executor, userId: number, deviceId?: number): Promise<boolean> {
  let q = db.selectFrom('client_devices').select('id').where('user_id', '=', userId).where('push_token_id', 'is not', null);
  if (deviceId !== undefined) q = q.where('id', '=', deviceId);
  return !!(await q.executeTakeFirst());
}

/** Stores a push key and/or a pending token registration on one of the user's devices. */
export async function updateClientDevicePush(
  db: Executor,
  userId: number,
  deviceId: number,
  fields: { push_key?: string; push_key_id?: number; pending_push_token_id?: string; push_token_kind?: string; push_token_last_updated_timestamp?: number; push_registration_error_code?: null },
): Promise<void> {
  await db.updateTable('client_devices').set(fields).where('id', '=', deviceId).where('user_id', '=', userId).execute();
}

/**
 * Records the push service's answer to a pending token registration (the token, or the error);
 * false when a later registration replaced that pending one meanwhile.
 */
export async function finishPushRegistration(db: Executor, deviceId: number, tokenId: string, error: string | null): Promise<boolean> {
  const res = await db
    .updateTable('client_devices')
    .set(error === null ? { push_token_id: tokenId, pending_push_token_id: null } : { pending_push_token_id: null, push_registration_error_code: error })
    .where('id', '=', deviceId)
    .where('pending_push_token_id', '=', tokenId)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}
