// SQL for custom emoji, message reactions and user statuses.
import type { Executor } from './db.js';

export type ReactionType = 'unicode_emoji' | 'realm_emoji' | 'zulip_extra_emoji';

export interface RealmEmojiRow {
  id: number;
  realm_id: number;
  name: string;
  author_id: number | null;
  file_name: string | null;
  is_animated: boolean;
  deactivated: boolean;
}

function realmEmojiFromRow(r: Record<string, any>): RealmEmojiRow {
  return {
    id: Number(r.id),
    realm_id: Number(r.realm_id),
    name: r.name,
    author_id: r.author_id === null ? null : Number(r.author_id),
    file_name: r.file_name,
    is_animated: !!r.is_animated,
    deactivated: !!r.deactivated,
  };
}

/** Every custom emoji of the organization, deactivated ones included, oldest first. */
export async function listRealmEmoji(db: Executor, realmId: number): Promise<RealmEmojiRow[]> {
  const rows = await db.selectFrom('realm_emoji').selectAll().where('realm_id', '=', realmId).where('file_name', 'is not', null).orderBy('id').execute();
  return rows.map(realmEmojiFromRow);
}

export async function activeRealmEmojiByName(db: Executor, realmId: number, name: string): Promise<RealmEmojiRow | undefined> {
  const r = await db
    .selectFrom('realm_emoji')
    .selectAll()
    .where('realm_id', '=', realmId)
    .where('name', '=', name)
    .where('deactivated', '=', false)
    .where('file_name', 'is not', null)
    .executeTakeFirst();
  return r ? realmEmojiFromRow(r) : undefined;
}

export async function realmEmojiById(db: Executor, realmId: number, id: number): Promise<RealmEmojiRow | undefined> {
  const r = await db.selectFrom('realm_emoji').selectAll().where('realm_id', '=', realmId).where('id', '=', id).where('file_name', 'is not', null).executeTakeFirst();
  return r ? realmEmojiFromRow(r) : undefined;
}

export interface ReactionRow {
  message_id: number;
  user_id: number;
  emoji_name: string;
  emoji_code: string;
  reaction_type: string;
}

export interface UserStatusRow {
  user_id: number;
  status_text: string;
  emoji_name: string;
  emoji_code: string;
  reaction_type: string;
}

export async function userStatuses(db: Executor, realmId: number): Promise<UserStatusRow[]> {
  const rows = await db
    .selectFrom('user_status')
    .select(['user_id', 'status_text', 'emoji_name', 'emoji_code', 'reaction_type'])
    .where('realm_id', '=', realmId)
    .execute();
  return rows.map((r) => ({ ...r, user_id: Number(r.user_id) }));
}

export async function userStatusOf(db: Executor, userId: number): Promise<UserStatusRow | undefined> {
  const r = await db
    .selectFrom('user_status')
    .select(['user_id', 'status_text', 'emoji_name', 'emoji_code', 'reaction_type'])
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return r ? { ...r, user_id: Number(r.user_id) } : undefined;
}

/** Adds a custom emoji; an active one with the same name fails with a UniqueConflict. */
export async function insertRealmEmoji(db: Executor, e: { realm_id: number; name: string; author_id: number; file_name: string; is_animated: boolean }): Promise<void> {
  await db.insertInto('realm_emoji').values({ ...e, deactivated: false }).execute();
}

export async function deactivateRealmEmojiRow(db: Executor, id: number): Promise<void> {
  await db.updateTable('realm_emoji').set({ deactivated: true }).where('id', '=', id).execute();
}

/** Sets the user's status, making its row the first time. */
export async function storeUserStatus(
  db: Executor,
  realmId: number,
  userId: number,
  next: { status_text: string; emoji_name: string; emoji_code: string; reaction_type: string; timestamp: number },
): Promise<void> {
  const res = await db.updateTable('user_status').set(next).where('user_id', '=', userId).executeTakeFirst();
  if (Number(res.numUpdatedRows) === 0) await db.insertInto('user_status').values({ user_id: userId, realm_id: realmId, ...next }).execute();
}
