// A channel's topics as its messages name them. Topics compare case-insensitively (lower()),
// as Zulip's do; the name a topic goes by is its spelling in its newest message.
import { sql } from 'kysely';
import type { Executor } from './db.js';

/**
 * The newest message id of each of the channel's topics; with `onlyUserId`, counting only the
 * messages that user received (protected history).
 */
export async function topicMaxIds(db: Executor, streamId: number, onlyUserId?: number): Promise<number[]> {
  const rows =
    onlyUserId === undefined
      ? await db
          .selectFrom('messages')
          .select([sql<string>`lower(topic)`.as('k'), (eb) => eb.fn.max('id').as('max_id')])
          .where('stream_id', '=', streamId)
          .groupBy(sql`lower(topic)`)
          .execute()
      : await db
          .selectFrom('user_messages as um')
          .innerJoin('messages', 'messages.id', 'um.message_id')
          .select([sql<string>`lower(messages.topic)`.as('k'), (eb) => eb.fn.max('messages.id').as('max_id')])
          .where('um.user_id', '=', onlyUserId)
          .where('messages.stream_id', '=', streamId)
          .groupBy(sql`lower(messages.topic)`)
          .execute();
  return rows.map((r) => Number(r.max_id));
}

/** The topic of each of these messages, by id. */
export async function topicsOfMessages(db: Executor, ids: readonly number[]): Promise<Map<number, string>> {
  if (ids.length === 0) return new Map();
  return new Map((await db.selectFrom('messages').select(['id', 'topic']).where('id', 'in', ids).execute()).map((r) => [r.id, r.topic]));
}

/**
 * Up to `limit` of the topic's newest messages (newest first); with `onlyUserId`, only those that
 * user received.
 */
export async function newestTopicMessages(db: Executor, streamId: number, topic: string, limit: number, onlyUserId?: number): Promise<Array<{ id: number; topic: string }>> {
  let q = db
    .selectFrom('messages')
    .select(['messages.id', 'messages.topic'])
    .where('messages.stream_id', '=', streamId)
    .where(sql<boolean>`lower(messages.topic) = lower(${topic})`);
  if (onlyUserId !== undefined) q = q.innerJoin('user_messages', 'user_messages.message_id', 'messages.id').where('user_messages.user_id', '=', onlyUserId);
  return q.orderBy('messages.id', 'desc').limit(limit).execute();
}

/** Those of `userIds` who still have a message of the topic. */
export async function usersWithTopicMessages(db: Executor, userIds: readonly number[], streamId: number, topic: string): Promise<Set<number>> {
  if (userIds.length === 0) return new Set();
  const rows = await db
    .selectFrom('user_messages')
    .innerJoin('messages', 'messages.id', 'user_messages.message_id')
    .select('user_messages.user_id')
    .distinct()
    .where('user_messages.user_id', 'in', userIds)
    .where('messages.stream_id', '=', streamId)
    .where(sql<boolean>`lower(messages.topic) = lower(${topic})`)
    .execute();
  return new Set(rows.map((r) => r.user_id));
}
