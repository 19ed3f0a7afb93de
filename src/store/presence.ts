// Presence reports, one row per user. last_update_id counts up per organization so a client can
// ask for only what changed since the id it last saw.
import { sql } from 'kysely';
import type { Executor } from './db.js';

export interface PresenceRow {
  user_id: number;
  last_active_time: number | null;
  last_connected_time: number | null;
  last_update_id: number;
}

function fromRow(r: { user_id: number; last_active_time: number | string | null; last_connected_time: number | string | null; last_update_id: number | string }): PresenceRow {
  return {
    user_id: r.user_id,
    last_active_time: r.last_active_time === null ? null : Number(r.last_active_time),
    last_connected_time: r.last_connected_time === null ? null : Number(r.last_connected_time),
    last_update_id: Number(r.last_update_id),
  };
}

/** Reports changed after `afterUpdateId` from users heard from since `sinceTime`. */
export async function presenceRows(db: Executor, realmId: number, afterUpdateId: number, sinceTime: number): Promise<PresenceRow[]> {
  const rows = await db
    .selectFrom('user_presence')
    .select(['user_id', 'last_active_time', 'last_connected_time', 'last_update_id'])
    .where('realm_id', '=', realmId)
    .where('last_update_id', '>', afterUpdateId)
    .where(sql<boolean>`coalesce(last_connected_time, 0) >= ${sinceTime}`)
    .execute();
  return rows.map(fromRow);
}

export async function lastPresenceUpdateId(db: Executor, realmId: number): Promise<number> {
  const r = await db.selectFrom('user_presence').select((eb) => eb.fn.max('last_update_id').as('m')).where('realm_id', '=', realmId).executeTakeFirst();
  return Number(r?.m ?? 0) || 0;
}

export async function getPresence(db: Executor, userId: number): Promise<PresenceRow | undefined> {
  const r = await db.selectFrom('user_presence').select(['user_id', 'last_active_time', 'last_connected_time', 'last_update_id']).where('user_id', '=', userId).executeTakeFirst();
  return r ? fromRow(r) : undefined;
}

/** Stores the user's report under the organization's next update id, which it returns. */
export async function writePresence(db: Executor, realmId: number, userId: number, lastActive: number | null, now: number): Promise<number> {
  const nextId = (await lastPresenceUpdateId(db, realmId)) + 1;
  const row = { user_id: userId, realm_id: realmId, last_active_time: lastActive, last_connected_time: now, last_update_id: nextId };
  const res = await db.updateTable('user_presence').set(row).where('user_id', '=', userId).executeTakeFirst();
  if (Number(res.numUpdatedRows) === 0) await db.insertInto('user_presence').values(row).execute();
  return nextId;
}
