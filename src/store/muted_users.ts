// Users' muted users.
import { sql } from 'kysely';
import type { Executor } from './db.js';

export async function mutedUsersOf(db: Executor, userId: number): Promise<Array<{ id: number; timestamp: number }>> {
  const rows = await db.selectFrom('muted_users').select(['muted_user_id', 'date_muted']).where('user_id', '=', userId).orderBy('date_muted').orderBy('muted_user_id').execute();
  return rows.map((r) => ({ id: r.muted_user_id, timestamp: Number(r.date_muted) }));
}

/** Who has muted this user (their messages arrive read for these users). */
export async function mutersOf(db: Executor, mutedUserId: number): Promise<Set<number>> {
  // Written as SQL: every message runs it.
  const { rows } = await sql<{ user_id: number }>`select user_id from muted_users where muted_user_id = ${mutedUserId}`.execute(db);
  return new Set(rows.map((r) => r.user_id));
}

/**
 * Who in one organization has muted this user. A system bot is shared by every organization, so
 * its notices read only their own organization's muters rather than every organization's.
 */
export async function mutersInRealm(db: Executor, mutedUserId: number, realmId: number): Promise<Set<number>> {
  const rows = await db
    .selectFrom('muted_users')
    .innerJoin('users', 'users.id', 'muted_users.user_id')
    .select('muted_users.user_id')
    .where('muted_users.muted_user_id', '=', mutedUserId)
    .where('users.realm_id', '=', realmId)
    .execute();
  return new Set(rows.map((r) => r.user_id));
}

export async function isMuted(db: Executor, userId: number, mutedUserId: number): Promise<boolean> {
  const row = await db.selectFrom('muted_users').select('user_id').where('user_id', '=', userId).where('muted_user_id', '=', mutedUserId).executeTakeFirst();
  return !!row;
}

export async function insertMute(db: Executor, userId: number, mutedUserId: number, now: number): Promise<void> {
  await db.insertInto('muted_users').values({ user_id: userId, muted_user_id: mutedUserId, date_muted: now }).execute();
}

export async function deleteMute(db: Executor, userId: number, mutedUserId: number): Promise<void> {
  await db.deleteFrom('muted_users').where('user_id', '=', userId).where('muted_user_id', '=', mutedUserId).execute();
}
