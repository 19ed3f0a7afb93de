// Messages, direct-message groups, and each recipient's per-message flags (user_messages).
import { sql } from 'kysely';
import { placeholders, queryRows, type Executor } from './db.js';
import type { MessageTable, Row } from './schema.js';
import { RECIPIENT_DIRECT_GROUP } from './channels.js';

/** Bits of user_messages.flags; the partial indexes in migrations.ts rely on read=1, starred=2, mentioned=8, 16. */
export const FLAG_BITS = {
  read: 1,
  starred: 2,
  collapsed: 4,
  mentioned: 8,
  stream_wildcard_mentioned: 16,
  topic_wildcard_mentioned: 32,
  group_mentioned: 64,
  has_alert_word: 128,
  historical: 256,
} as const;
export type FlagName = keyof typeof FLAG_BITS;

/** The API's list of flag names for a bit set (Zulip still reports the legacy `wildcard_mentioned`). */
export function flagNames(flags: number): string[] {
  const out: string[] = [];
  for (const [name, bit] of Object.entries(FLAG_BITS)) if (flags & bit) out.push(name);
  if (flags & (FLAG_BITS.stream_wildcard_mentioned | FLAG_BITS.topic_wildcard_mentioned)) out.push('wildcard_mentioned');
  return out;
}

export type MessageRow = Row<MessageTable>;

export function messageFromRow(r: Record<string, any>): MessageRow {
  return {
    ...(r as MessageRow),
    date_sent: Number(r.date_sent),
    last_edit_time: r.last_edit_time === null ? null : Number(r.last_edit_time),
    has_link: !!r.has_link,
    has_image: !!r.has_image,
    has_attachment: !!r.has_attachment,
  };
}

/** A direct-message group's key: its participants' ids, each once, ascending, comma-joined. */
export function dmKey(userIds: Iterable<number>): string {
  return [...new Set(userIds)].sort((a, b) => a - b).join(',');
}

/**
 * The direct-message group of exactly these participants, created on first use (with its
 * recipients row). Two first messages racing on PostgreSQL both succeed: the loser's insert
 * does nothing and it reads the winner's group.
 */
export async function getOrCreateDmGroup(db: Executor, realmId: number, userIds: number[]): Promise<{ id: number; recipientId: number; key: string }> {
  const key = dmKey(userIds);
  let group = await db.selectFrom('direct_message_groups').select('id').where('realm_id', '=', realmId).where('user_ids_key', '=', key).executeTakeFirst();
  if (!group) {
    const created = await db
      .insertInto('direct_message_groups')
      .values({ realm_id: realmId, user_ids_key: key })
      .onConflict((oc) => oc.columns(['realm_id', 'user_ids_key']).doNothing())
      .returning('id')
      .executeTakeFirst();
    if (created) {
      await db.insertInto('recipients').values({ realm_id: realmId, type: RECIPIENT_DIRECT_GROUP, type_id: created.id }).execute();
      const members = [...new Set(userIds)].map((user_id) => ({ group_id: created.id, user_id }));
      await db.insertInto('direct_message_group_members').values(members).execute();
    }
    group = created ?? (await db.selectFrom('direct_message_groups').select('id').where('realm_id', '=', realmId).where('user_ids_key', '=', key).executeTakeFirstOrThrow());
  }
  const recipient = await db.selectFrom('recipients').select('id').where('type', '=', RECIPIENT_DIRECT_GROUP).where('type_id', '=', group.id).executeTakeFirstOrThrow();
  return { id: group.id, recipientId: recipient.id, key };
}

/**
 * getOrCreateDmGroup for many participant lists at once, in a fixed number of queries: the groups
 * that exist are read together, the missing ones made with their recipients and members in one
 * insert each. Keyed by the participants' key (ids sorted, comma-joined; the key in the answer).
 */
export async function getOrCreateDmGroups(db: Executor, realmId: number, lists: readonly number[][]): Promise<Map<string, { id: number; recipientId: number; key: string }>> {
  const members = new Map(lists.map((ids) => [dmKey(ids), [...new Set(ids)]] as const));
  const keys = [...members.keys()];
  const out = new Map<string, { id: number; recipientId: number; key: string }>();
  if (keys.length === 0) return out;
  const readGroups = async (wanted: string[]) => {
    const found = new Map<string, number>();
    for (let i = 0; i < wanted.length; i += 500) {
      const rows = await db.selectFrom('direct_message_groups').select(['id', 'user_ids_key']).where('realm_id', '=', realmId).where('user_ids_key', 'in', wanted.slice(i, i + 500)).execute();
      for (const r of rows) found.set(r.user_ids_key, r.id);
    }
    return found;
  };
  const groups = await readGroups(keys);
  const missing = keys.filter((k) => !groups.has(k));
  if (missing.length) {
    // A concurrent request may make some of them first: those are read after.
    const made = await db
      .insertInto('direct_message_groups')
      .values(missing.map((user_ids_key) => ({ realm_id: realmId, user_ids_key })))
      .onConflict((oc) => oc.columns(['realm_id', 'user_ids_key']).doNothing())
      .returning(['id', 'user_ids_key'])
      .execute();
    if (made.length) {
      await db.insertInto('recipients').values(made.map((g) => ({ realm_id: realmId, type: RECIPIENT_DIRECT_GROUP, type_id: g.id }))).execute();
      await db.insertInto('direct_message_group_members').values(made.flatMap((g) => members.get(g.user_ids_key)!.map((user_id) => ({ group_id: g.id, user_id })))).execute();
      for (const g of made) groups.set(g.user_ids_key, g.id);
    }
    const raced = missing.filter((k) => !groups.has(k));
    if (raced.length) for (const [k, id] of await readGroups(raced)) groups.set(k, id);
  }
  const byGroup = new Map<number, string>([...groups].map(([k, id]) => [id, k]));
  const ids = [...groups.values()];
  for (let i = 0; i < ids.length; i += 500) {
    const rows = await db.selectFrom('recipients').select(['id', 'type_id']).where('type', '=', RECIPIENT_DIRECT_GROUP).where('type_id', 'in', ids.slice(i, i + 500)).execute();
    for (const r of rows) {
      const key = byGroup.get(r.type_id)!;
      out.set(key, { id: r.type_id, recipientId: r.id, key });
    }
  }
  return out;
}

export async function findDmGroup(db: Executor, realmId: number, userIds: number[]): Promise<number | undefined> {
  const row = await db.selectFrom('direct_message_groups').select('id').where('realm_id', '=', realmId).where('user_ids_key', '=', dmKey(userIds)).executeTakeFirst();
  return row?.id;
}

export type NewMessage = Omit<MessageRow, 'id'>;

export async function insertMessage(db: Executor, m: NewMessage): Promise<number> {
  // Written as SQL: the query builder's cost for a row this wide shows in every send.
  // As the builder does, a field left undefined is a column left out.
  const columns = (Object.keys(m) as Array<keyof NewMessage>).filter((c) => m[c] !== undefined);
  const text = `insert into messages (${columns.map((c) => `"${c}"`).join(', ')}) values (${placeholders(columns.length)}) returning id`;
  const [row] = await queryRows<{ id: number }>(db, text, columns.map((c) => m[c]));
  return Number(row!.id);
}

/**
 * Several messages in one insert; their ids in the order given (a statement numbers its rows in
 * order, on both databases, so the returned ids sorted ascending follow the rows).
 */
export async function insertMessages(db: Executor, rows: readonly NewMessage[]): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < rows.length; i += 200) {
    const got = await db.insertInto('messages').values(rows.slice(i, i + 200) as NewMessage[]).returning('id').execute();
    ids.push(...got.map((r) => Number(r.id)).sort((a, b) => a - b));
  }
  return ids;
}

/**
 * One multi-row insert for every recipient of a message (chunked to stay under bind limits).
 * `ignoreExisting` skips rows a concurrent request already made (historical rows).
 */
export async function insertUserMessages(db: Executor, rows: Array<{ user_id: number; message_id: number; flags: number }>, ignoreExisting = false): Promise<void> {
  for (let i = 0; i < rows.length; i += 5000) {
    const q = db.insertInto('user_messages').values(rows.slice(i, i + 5000));
    await (ignoreExisting ? q.onConflict((oc) => oc.columns(['user_id', 'message_id']).doNothing()) : q).execute();
  }
}

export async function getMessages(db: Executor, realmId: number, ids: readonly number[]): Promise<MessageRow[]> {
  if (ids.length === 0) return [];
  const rows = await db.selectFrom('messages').selectAll().where('realm_id', '=', realmId).where('id', 'in', ids).execute();
  return rows.map(messageFromRow);
}

/** The user's flags for the given messages (absent: no row). */
export async function flagsFor(db: Executor, userId: number, messageIds: readonly number[]): Promise<Map<number, number>> {
  if (messageIds.length === 0) return new Map();
  const rows = await db.selectFrom('user_messages').select(['message_id', 'flags']).where('user_id', '=', userId).where('message_id', 'in', messageIds).execute();
  return new Map(rows.map((r) => [r.message_id, r.flags]));
}

/** Participants of DM groups, by group id. */
export async function dmGroupMembers(db: Executor, groupIds: readonly number[]): Promise<Map<number, number[]>> {
  if (groupIds.length === 0) return new Map();
  const rows = await db.selectFrom('direct_message_groups').select(['id', 'user_ids_key']).where('id', 'in', groupIds).execute();
  return new Map(rows.map((r) => [r.id, r.user_ids_key.split(',').map(Number)]));
}

/** Senders who have posted in a topic (for topic wildcard mentions). */
export async function topicParticipants(db: Executor, streamId: number, topic: string): Promise<number[]> {
  const rows = await db
    .selectFrom('messages')
    .select('sender_id')
    .distinct()
    .where('stream_id', '=', streamId)
    .where(sql<boolean>`lower(topic) = lower(${topic})`)
    .execute();
  return rows.map((r) => r.sender_id);
}

export async function setFirstMessageIdIfUnset(db: Executor, streamId: number, messageId: number): Promise<void> {
  await db.updateTable('streams').set({ first_message_id: messageId }).where('id', '=', streamId).where('first_message_id', 'is', null).execute();
}

/**
 * Deletes messages and their flags rows; returns each message's recipients (for the
 * delete_message events). Channels that lose their first message point at the next one.
 */
export async function deleteMessagesByIds(db: Executor, realmId: number, ids: readonly number[]): Promise<Map<number, number[]>> {
  const recipients = new Map<number, number[]>();
  for (let i = 0; i < ids.length; i += 1000) {
    const part = ids.slice(i, i + 1000);
    const rows = await db.selectFrom('user_messages').select(['message_id', 'user_id']).where('message_id', 'in', part).execute();
    for (const r of rows) (recipients.get(r.message_id) ?? recipients.set(r.message_id, []).get(r.message_id)!).push(r.user_id);
    await db.deleteFrom('user_messages').where('message_id', 'in', part).execute();
    await db.deleteFrom('reactions').where('message_id', 'in', part).execute();
    await db.deleteFrom('submessages').where('message_id', 'in', part).execute();
    await db.updateTable('streams').set({ first_message_id: null }).where('first_message_id', 'in', part).execute();
    await db.deleteFrom('messages').where('id', 'in', part).execute();
  }
  if (ids.length) {
    await sql`UPDATE streams SET first_message_id = (SELECT min(id) FROM messages WHERE messages.stream_id = streams.id) WHERE first_message_id IS NULL AND realm_id = ${realmId}`.execute(db);
  }
  return recipients;
}

/** Sets the read flag on the user's rows for these messages (in chunks under bind limits). */
export async function setReadFlag(db: Executor, userId: number, ids: readonly number[]): Promise<void> {
  for (let i = 0; i < ids.length; i += 5000) {
    await db
      .updateTable('user_messages')
      .set({ flags: sql<number>`flags | ${FLAG_BITS.read}` })
      .where('user_id', '=', userId)
      .where('message_id', 'in', ids.slice(i, i + 5000))
      .execute();
  }
}

/** The newest message id of a topic (its permalink target), or undefined for a topic without messages. */
export async function latestTopicMessageId(db: Executor, streamId: number, topic: string): Promise<number | undefined> {
  const row = await db
    .selectFrom('messages')
    .select((eb) => eb.fn.max('id').as('latest'))
    .where('stream_id', '=', streamId)
    .where(sql<boolean>`lower(topic) = lower(${topic})`)
    .executeTakeFirst();
  return row?.latest == null ? undefined : Number(row.latest);
}

/** One entry of a message's stored edit history (what one edit changed). */
export interface EditEntry {
  timestamp: number;
  user_id: number;
  prev_content?: string;
  prev_rendered_content?: string;
  prev_topic?: string;
  topic?: string;
  prev_stream?: number;
  stream?: number;
}

/**
 * The user's direct-message conversations with their newest message id, newest first: one
 * index lookup per conversation the user belongs to (messages_dm_group), however long the history.
 */
export async function recentDmConversations(db: Executor, userId: number, limit: number): Promise<Array<{ participants: number[]; maxMessageId: number }>> {
  const rows = await db
    .selectFrom('messages')
    .innerJoin('direct_message_groups', 'direct_message_groups.id', 'messages.dm_group_id')
    .select(['direct_message_groups.user_ids_key as key', (eb) => eb.fn.max('messages.id').as('max_id')])
    .where('messages.dm_group_id', 'in', (eb) => eb.selectFrom('direct_message_group_members').select('group_id').where('user_id', '=', userId))
    .groupBy('direct_message_groups.user_ids_key')
    .execute();
  return rows
    .map((r) => ({ participants: r.key.split(',').map(Number), maxMessageId: Number(r.max_id) }))
    .sort((a, b) => b.maxMessageId - a.maxMessageId)
    .slice(0, limit);
}

/** Everyone with a user_messages row for the message (its recipients, and readers who joined in). */
export async function messageHolderIds(db: Executor, messageId: number): Promise<number[]> {
  return (await db.selectFrom('user_messages').select('user_id').where('message_id', '=', messageId).execute()).map((r) => r.user_id);
}

/** Of these message ids, those of the organization's channel messages, with their channel. */
export async function channelMessagesAmong(db: Executor, realmId: number, ids: readonly number[]): Promise<Array<{ id: number; stream_id: number }>> {
  if (ids.length === 0) return [];
  const rows = await db.selectFrom('messages').select(['id', 'stream_id']).where('realm_id', '=', realmId).where('id', 'in', ids).where('recipient_type', '=', 'stream').execute();
  return rows.map((r) => ({ id: r.id, stream_id: r.stream_id! }));
}

/** Sets (on) or clears one flag bit on the user's rows for these messages. */
export async function setFlagBit(db: Executor, userId: number, ids: readonly number[], bit: number, on: boolean): Promise<void> {
  for (let i = 0; i < ids.length; i += 5000) {
    await db
      .updateTable('user_messages')
      .set({ flags: (eb) => (on ? eb('flags', '|', bit) : eb('flags', '&', ~bit)) })
      .where('user_id', '=', userId)
      .where('message_id', 'in', ids.slice(i, i + 5000))
      .execute();
  }
}

/** Whether the direct message group has any message. */
export async function dmGroupHasMessages(db: Executor, groupId: number): Promise<boolean> {
  return !!(await db.selectFrom('messages').select('id').where('dm_group_id', '=', groupId).limit(1).executeTakeFirst());
}

/** Every message the user sent, with whether its channel is private (null for direct messages). */
export async function messagesSentBy(db: Executor, userId: number) {
  return db
    .selectFrom('messages')
    .leftJoin('streams', 'streams.id', 'messages.stream_id')
    .select(['messages.id', 'messages.recipient_type', 'messages.stream_id', 'messages.topic', 'streams.invite_only'])
    .where('messages.sender_id', '=', userId)
    .execute();
}

/** The channel's oldest messages sent before `cutoff`, up to `limit`. */
export async function expiredChannelMessages(db: Executor, streamId: number, cutoff: number, limit: number) {
  return db
    .selectFrom('messages')
    .select(['id', 'recipient_type', 'stream_id', 'topic'])
    .where('stream_id', '=', streamId)
    .where(sql<boolean>`date_sent < ${cutoff}`)
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** The newest messages of these channels sent after `since`, newest first, up to `limit`. */
export async function recentChannelMessageIds(db: Executor, streamIds: readonly number[], since: number, limit: number): Promise<number[]> {
  if (streamIds.length === 0) return [];
  const rows = await db.selectFrom('messages').select('id').where('stream_id', 'in', streamIds).where('date_sent', '>', since).orderBy('id', 'desc').limit(limit).execute();
  return rows.map((r) => r.id);
}

/**
 * Readers of a message for its read receipts: users whose row has the read bit, other than the
 * sender, leaving out users the viewer muted and users who muted the viewer; by id.
 */
export async function messageReaderIds(db: Executor, messageId: number, senderId: number, viewerId: number): Promise<number[]> {
  // Readers come from the message's rows (user_messages_message index), read bit set.
  const rows = await db
    .selectFrom('user_messages')
    .select('user_id')
    .where('message_id', '=', messageId)
    .where((eb) => eb(eb('flags', '&', FLAG_BITS.read), '<>', 0))
    .where('user_id', '<>', senderId)
    .where('user_id', 'not in', (eb) => eb.selectFrom('muted_users').select('muted_user_id').where('user_id', '=', viewerId))
    .where('user_id', 'not in', (eb) => eb.selectFrom('muted_users').select('user_id').where('muted_user_id', '=', viewerId))
    .orderBy('user_id')
    .execute();
  return rows.map((r) => r.user_id);
}
