// The unread-message summary /register returns: one indexed scan of the user's unread rows.
import type { Executor } from './db.js';
import { sql } from 'kysely';

/** Zulip caps the unread summary; older unreads are reported through old_unreads_missing. */
export const MAX_UNREAD_MESSAGES = 50_000;

export interface UnreadRow {
  message_id: number;
  flags: number;
  recipient_type: string;
  stream_id: number | null;
  topic: string;
  sender_id: number;
  user_ids_key: string | null;
}

/** The newest unread messages of the user, newest first, with what is needed to group them. */
export async function unreadRows(db: Executor, userId: number, limit = MAX_UNREAD_MESSAGES): Promise<UnreadRow[]> {
  return db
    .selectFrom('user_messages as um')
    .innerJoin('messages as m', 'm.id', 'um.message_id')
    .leftJoin('direct_message_groups as g', 'g.id', 'm.dm_group_id')
    .select(['um.message_id', 'um.flags', 'm.recipient_type', 'm.stream_id', 'm.topic', 'm.sender_id', 'g.user_ids_key'])
    .where('um.user_id', '=', userId)
    .where(sql<boolean>`(um.flags & 1) = 0`)
    .orderBy('um.message_id', 'desc')
    .limit(limit)
    .execute();
}

/** The largest message id the user has a row for (0 when none). */
export async function maxMessageIdOf(db: Executor, userId: number): Promise<number> {
  const row = await db
    .selectFrom('user_messages')
    .select((eb) => eb.fn.max('message_id').as('max_id'))
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return Number(row?.max_id ?? 0) || 0;
}

/** Ids of the user's starred messages, oldest first. */
export async function starredMessageIds(db: Executor, userId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('user_messages')
    .select('message_id')
    .where('user_id', '=', userId)
    .where(sql<boolean>`(flags & 2) <> 0`)
    .orderBy('message_id')
    .execute();
  return rows.map((r) => r.message_id);
}

/** The user's unread messages, all of them or those of one channel, topic (any case) or sender. */
export async function unreadMessageIds(db: Executor, userId: number, only: { streamId?: number; topic?: string; senderId?: number } = {}): Promise<number[]> {
  let q = db
    .selectFrom('user_messages as um')
    .innerJoin('messages', 'messages.id', 'um.message_id')
    .select('um.message_id')
    .where('um.user_id', '=', userId)
    .where(sql<boolean>`(um.flags & 1) = 0`);
  if (only.streamId !== undefined) q = q.where('messages.stream_id', '=', only.streamId);
  if (only.topic !== undefined) q = q.where(sql<boolean>`lower(messages.topic) = lower(${only.topic})`);
  if (only.senderId !== undefined) q = q.where('messages.sender_id', '=', only.senderId);
  return (await q.execute()).map((r) => r.message_id);
}
