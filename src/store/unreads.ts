// The unread-message summary /register returns: one indexed scan of the user's unread rows.
import type { Executor } from './db.js';
import type { DialectName } from './dialect.js';
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

/**
 * SQLite, without statistics (nothing runs ANALYZE), reads a user's rows by the primary key
 * (user_id, message_id) and tests the flag on every one rather than use the partial index made
 * for the flag: ~30 ms each for the unread and the starred lists of a member with a million
 * rows, instead of ~0.01 ms. INDEXED BY names the index there; PostgreSQL has statistics on the
 * unread bit (migration 0090) and picks the partial indexes itself.
 */
function userMessagesBy(dialect: DialectName, alias: string, index: 'user_messages_unread' | 'user_messages_starred') {
  return sql.raw(dialect === 'sqlite' ? `user_messages as ${alias} indexed by ${index}` : `user_messages as ${alias}`);
}

/** The newest unread messages of the user, newest first, with what is needed to group them. */
export async function unreadRows(db: Executor, dialect: DialectName, userId: number, limit = MAX_UNREAD_MESSAGES): Promise<UnreadRow[]> {
  const { rows } = await sql<UnreadRow>`select um.message_id, um.flags, m.recipient_type, m.stream_id, m.topic, m.sender_id, g.user_ids_key
    from ${userMessagesBy(dialect, 'um', 'user_messages_unread')}
    inner join messages as m on m.id = um.message_id
    left join direct_message_groups as g on g.id = m.dm_group_id
    where um.user_id = ${userId} and (um.flags & 1) = 0
    order by um.message_id desc limit ${limit}`.execute(db);
  return rows;
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
export async function starredMessageIds(db: Executor, dialect: DialectName, userId: number): Promise<number[]> {
  const { rows } = await sql<{ message_id: number }>`select um.message_id from ${userMessagesBy(dialect, 'um', 'user_messages_starred')}
    where um.user_id = ${userId} and (um.flags & 2) <> 0 order by um.message_id`.execute(db);
  return rows.map((r) => r.message_id);
}

/** Which unread messages: of one channel or of several, of a topic (any case), of a sender. */
export interface UnreadFilter {
  streamId?: number;
  streamIds?: readonly number[];
  topic?: string;
  senderId?: number;
}

/** The statement unreadMessageIds runs (exported so a test can ask the planner about it). */
export function unreadMessageIdsStatement(dialect: DialectName, userId: number, only: UnreadFilter = {}) {
  const filters = [sql`um.user_id = ${userId}`, sql`(um.flags & 1) = 0`];
  if (only.streamId !== undefined) filters.push(sql`m.stream_id = ${only.streamId}`);
  if (only.streamIds !== undefined) filters.push(only.streamIds.length ? sql`m.stream_id in (${sql.join(only.streamIds)})` : sql`1 = 0`);
  if (only.topic !== undefined) filters.push(sql`lower(m.topic) = lower(${only.topic})`);
  if (only.senderId !== undefined) filters.push(sql`m.sender_id = ${only.senderId}`);
  return sql<{ message_id: number; stream_id: number | null }>`select um.message_id, m.stream_id from ${userMessagesBy(dialect, 'um', 'user_messages_unread')}
    inner join messages as m on m.id = um.message_id
    where ${sql.join(filters, sql` and `)}`;
}

/**
 * The user's unread messages, all of them or those of one channel, topic (any case) or sender
 * (marking a channel read, muting a sender): read from the unread index, as unreadRows is.
 */
export async function unreadMessageIds(db: Executor, dialect: DialectName, userId: number, only: UnreadFilter = {}): Promise<number[]> {
  const { rows } = await unreadMessageIdsStatement(dialect, userId, only).execute(db);
  return rows.map((r) => r.message_id);
}

/** The user's unread messages in these channels, by channel (one statement for them all). */
export async function unreadMessageIdsByStream(db: Executor, dialect: DialectName, userId: number, streamIds: readonly number[]): Promise<Map<number, number[]>> {
  const { rows } = await unreadMessageIdsStatement(dialect, userId, { streamIds }).execute(db);
  const out = new Map<number, number[]>();
  for (const r of rows) {
    const id = Number(r.stream_id);
    const list = out.get(id);
    if (list) list.push(r.message_id);
    else out.set(id, [r.message_id]);
  }
  return out;
}
