// The statements editing and moving messages needs: message rows and their history, who holds them,
// and the topic visibility policies that follow a moved topic. Topics compare case-insensitively, as Zulip's do.
import { sql } from 'kysely';
import type { Executor } from './db.js';
import { VISIBILITY } from './user_topics.js';

/** Topics are one topic whatever their case. */
const sameTopic = (column: string, topic: string) => sql<boolean>`lower(${sql.ref(column)}) = lower(${topic})`;

export interface TopicMessage {
  id: number;
  date_sent: number;
  topic: string;
}

/**
 * A channel topic's messages, oldest first; with `holderId`, only those that user holds a row for
 * (a channel with protected history).
 */
export async function topicMessages(
  db: Executor,
  streamId: number,
  topic: string,
  o: { holderId?: number; fromId?: number; limit?: number; excluding?: number[] } = {},
): Promise<TopicMessage[]> {
  let q = db.selectFrom('messages').select(['messages.id', 'messages.date_sent', 'messages.topic']).where('messages.stream_id', '=', streamId).where(sameTopic('messages.topic', topic));
  if (o.holderId !== undefined) q = q.innerJoin('user_messages', 'user_messages.message_id', 'messages.id').where('user_messages.user_id', '=', o.holderId);
  if (o.fromId !== undefined) q = q.where('messages.id', '>=', o.fromId);
  if (o.excluding?.length) q = q.where('messages.id', 'not in', o.excluding);
  q = q.orderBy('messages.id');
  if (o.limit !== undefined) q = q.limit(o.limit);
  return (await q.execute()).map((r) => ({ id: r.id, date_sent: Number(r.date_sent), topic: r.topic }));
}

export async function topicHasMessages(db: Executor, streamId: number, topic: string): Promise<boolean> {
  const row = await db.selectFrom('messages').select('id').where('stream_id', '=', streamId).where(sameTopic('topic', topic)).limit(1).executeTakeFirst();
  return row !== undefined;
}

/** The newest message of a channel topic, with what a delete_message event needs. */
export async function latestTopicMessage(db: Executor, streamId: number, topic: string) {
  return db
    .selectFrom('messages')
    .select(['id', 'sender_id', 'content', 'date_sent', 'recipient_type', 'stream_id', 'topic'])
    .where('stream_id', '=', streamId)
    .where(sameTopic('topic', topic))
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** Sets columns of one message (the caller has validated them). */
export async function updateMessageColumns(db: Executor, messageId: number, set: Record<string, unknown>): Promise<void> {
  await db.updateTable('messages').set(set).where('id', '=', messageId).execute();
}

/**
 * Sets columns of many messages and appends one entry to each row's JSON edit history, in SQL
 * (one statement per 1000 ids, whatever history each row already has).
 */
export async function updateMessagesAppendingHistory(db: Executor, messageIds: number[], set: Record<string, unknown>, entryJson: string): Promise<void> {
  const withHistory = {
    ...set,
    edit_history: sql<string>`CASE WHEN edit_history IS NULL OR edit_history = '' THEN ${'[' + entryJson + ']'} ELSE substr(edit_history, 1, length(edit_history) - 1) || ${',' + entryJson + ']'} END`,
  };
  for (let i = 0; i < messageIds.length; i += 1000) await db.updateTable('messages').set(withHistory).where('id', 'in', messageIds.slice(i, i + 1000)).execute();
}

/** Everyone who ever subscribed to the channel (active or not): who may hold rows for its messages. */
export async function everSubscribedUserIds(db: Executor, streamId: number): Promise<number[]> {
  return (await db.selectFrom('subscriptions').select('user_id').distinct().where('stream_id', '=', streamId).execute()).map((r) => r.user_id);
}

/** Removes the users' rows for the messages (1000 of each per statement). */
export async function deleteUserMessageRows(db: Executor, messageIds: number[], userIds: number[]): Promise<void> {
  for (let i = 0; i < messageIds.length; i += 1000) {
    const part = messageIds.slice(i, i + 1000);
    for (let j = 0; j < userIds.length; j += 1000) {
      await db.deleteFrom('user_messages').where('message_id', 'in', part).where('user_id', 'in', userIds.slice(j, j + 1000)).execute();
    }
  }
}

/** Recomputes the channels' first_message_id from the messages they hold now. */
export async function refreshFirstMessageIds(db: Executor, streamIds: number[]): Promise<void> {
  await sql`UPDATE streams SET first_message_id = (SELECT min(id) FROM messages WHERE messages.stream_id = streams.id) WHERE id IN (${sql.join(streamIds)})`.execute(db);
}

export interface UserMessageRow {
  user_id: number;
  message_id: number;
  flags: number;
}

export async function userMessageRows(db: Executor, messageIds: number[]): Promise<UserMessageRow[]> {
  const rows: UserMessageRow[] = [];
  for (let i = 0; i < messageIds.length; i += 1000) {
    rows.push(...(await db.selectFrom('user_messages').select(['user_id', 'message_id', 'flags']).where('message_id', 'in', messageIds.slice(i, i + 1000)).execute()));
  }
  return rows;
}

export async function setUserMessageFlags(db: Executor, userId: number, messageId: number, flags: number): Promise<void> {
  await db.updateTable('user_messages').set({ flags }).where('user_id', '=', userId).where('message_id', '=', messageId).execute();
}

/** Each user's visibility policy for a channel topic. */
export async function topicVisibilityPolicies(db: Executor, streamId: number, topic: string): Promise<Map<number, number>> {
  const rows = await db.selectFrom('user_topics').select(['user_id', 'visibility_policy']).where('stream_id', '=', streamId).where(sameTopic('topic_name', topic)).execute();
  return new Map(rows.map((r) => [r.user_id, Number(r.visibility_policy)]));
}

/** The users who follow a channel topic. */
export async function topicFollowerIds(db: Executor, streamId: number, topic: string): Promise<Set<number>> {
  const rows = await db
    .selectFrom('user_topics')
    .select('user_id')
    .where('stream_id', '=', streamId)
    .where(sameTopic('topic_name', topic))
    .where('visibility_policy', '=', VISIBILITY.followed)
    .execute();
  return new Set(rows.map((r) => r.user_id));
}

export async function deleteTopicPolicies(db: Executor, userIds: number[], streamId: number, topic: string): Promise<void> {
  await db.deleteFrom('user_topics').where('user_id', 'in', userIds).where('stream_id', '=', streamId).where(sameTopic('topic_name', topic)).execute();
}

export async function insertTopicPolicies(
  db: Executor,
  rows: Array<{ user_id: number; stream_id: number; topic_name: string; visibility_policy: number; last_updated: number }>,
): Promise<void> {
  if (rows.length) await db.insertInto('user_topics').values(rows).execute();
}
