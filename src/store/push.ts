// Mobile push: the queue of pushes to send, the pushes a phone may still show, and the devices
// (legacy FCM/APNs tokens and end-to-end encrypted registrations) of a user.
import type { Executor } from './db.js';
import { noticeFromRow, type NewNotice } from './missed_messages.js';

/** A push waits for the same things as a missed-message notice: a message, a trigger, a time. */
export type NewPush = NewNotice;

export interface QueuedPush extends NewPush {
  id: number;
  attempts: number;
}

export async function insertPushQueue(db: Executor, rows: NewPush[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 500) {
    await db
      .insertInto('push_queue')
      .values(rows.slice(i, i + 500).map((r) => ({ ...r, attempts: 0, claimed_until_ms: null })))
      .execute();
  }
}

/** Which of these users have a device that can receive pushes (a legacy token or an E2EE registration). */
export async function usersWithPushDevices(db: Executor, userIds: readonly number[]): Promise<Set<number>> {
  if (userIds.length === 0) return new Set();
  const legacy = await db.selectFrom('push_device_tokens').select('user_id').distinct().where('user_id', 'in', userIds).execute();
  const e2ee = await db.selectFrom('client_devices').select('user_id').distinct().where('user_id', 'in', userIds).where('push_token_id', 'is not', null).execute();
  return new Set([...legacy, ...e2ee].map((r) => Number(r.user_id)));
}

export async function duePushes(db: Executor, nowMs: number, limit: number): Promise<QueuedPush[]> {
  const rows = await db
    .selectFrom('push_queue')
    .selectAll()
    .where('due_ms', '<=', nowMs)
    .where((eb) => eb.or([eb('claimed_until_ms', 'is', null), eb('claimed_until_ms', '<', nowMs)]))
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ ...noticeFromRow(r), attempts: Number(r.attempts) }));
}

/** Takes one row for sending (a conditional update: of several processes, one wins). */
export async function claimPush(db: Executor, id: number, attempts: number, nowMs: number, leaseUntilMs: number): Promise<boolean> {
  const res = await db
    .updateTable('push_queue')
    .set({ claimed_until_ms: leaseUntilMs, attempts: attempts + 1 })
    .where('id', '=', id)
    .where('attempts', '=', attempts)
    .where((eb) => eb.or([eb('claimed_until_ms', 'is', null), eb('claimed_until_ms', '<', nowMs)]))
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

export async function deletePush(db: Executor, id: number): Promise<void> {
  await db.deleteFrom('push_queue').where('id', '=', id).execute();
}

export async function retryPushAt(db: Executor, id: number, dueMs: number): Promise<void> {
  await db.updateTable('push_queue').set({ due_ms: dueMs, claimed_until_ms: null }).where('id', '=', id).execute();
}

export interface LegacyToken {
  kind: number;
  token: string;
  appid: string | null;
}

export async function legacyTokensOf(db: Executor, userId: number): Promise<LegacyToken[]> {
  return db.selectFrom('push_device_tokens').select(['kind', 'token', 'appid']).where('user_id', '=', userId).orderBy('id').execute();
}

export async function deleteLegacyTokens(db: Executor, kind: number, tokens: readonly string[]): Promise<void> {
  if (tokens.length === 0) return;
  await db.deleteFrom('push_device_tokens').where('kind', '=', kind).where('token', 'in', tokens).execute();
}

export interface E2eeDevice {
  id: number;
  push_key_id: number;
  push_key: string;
  push_token_id: string;
  push_token_kind: string | null;
}

export async function e2eeDevicesOf(db: Executor, userId: number): Promise<E2eeDevice[]> {
  const rows = await db
    .selectFrom('client_devices')
    .select(['id', 'push_key_id', 'push_key', 'push_token_id', 'push_token_kind'])
    .where('user_id', '=', userId)
    .where('push_token_id', 'is not', null)
    .where('push_key', 'is not', null)
    .orderBy('id')
    .execute();
  return rows.map((r) => ({ id: Number(r.id), push_key_id: Number(r.push_key_id), push_key: r.push_key!, push_token_id: r.push_token_id!, push_token_kind: r.push_token_kind }));
}

export async function markPushActive(db: Executor, userId: number, messageId: number): Promise<void> {
  await db.deleteFrom('push_active').where('user_id', '=', userId).where('message_id', '=', messageId).execute();
  await db.insertInto('push_active').values({ user_id: userId, message_id: messageId }).execute();
}

/**
 * Removes and returns the user's active pushes among these messages (all of them when null): the
 * delete is the claim, so of several processes handling one read, one sends the removal.
 */
export async function takeActivePushes(db: Executor, userId: number, messageIds: readonly number[] | null): Promise<number[]> {
  let q = db.deleteFrom('push_active').where('user_id', '=', userId);
  if (messageIds !== null) {
    if (messageIds.length === 0) return [];
    q = q.where('message_id', 'in', messageIds);
  }
  const rows = await q.returning('message_id').execute();
  return rows.map((r) => Number(r.message_id)).sort((a, b) => a - b);
}

/** Forgets tokens the push service says are gone (push_token_id null: "expired"); returns the devices. */
export async function expireE2eeTokens(db: Executor, userId: number, tokenIds: readonly string[]): Promise<number[]> {
  if (tokenIds.length === 0) return [];
  const rows = await db.updateTable('client_devices').set({ push_token_id: null }).where('user_id', '=', userId).where('push_token_id', 'in', tokenIds).returning('id').execute();
  return rows.map((r) => Number(r.id));
}

/** Removes and returns every user's active pushes of these (deleted) messages, by user. */
export async function takeActivePushesOfMessages(db: Executor, messageIds: readonly number[]): Promise<Map<number, number[]>> {
  const out = new Map<number, number[]>();
  for (let i = 0; i < messageIds.length; i += 1000) {
    const rows = await db.deleteFrom('push_active').where('message_id', 'in', messageIds.slice(i, i + 1000)).returning(['user_id', 'message_id']).execute();
    for (const r of rows) {
      const uid = Number(r.user_id);
      if (!out.has(uid)) out.set(uid, []);
      out.get(uid)!.push(Number(r.message_id));
    }
  }
  for (const ids of out.values()) ids.sort((a, b) => a - b);
  return out;
}
