// Users' visibility policies for topics.
import { sql } from 'kysely';
import { queryRows, type Executor } from './db.js';

export const VISIBILITY = { inherit: 0, muted: 1, unmuted: 2, followed: 3 } as const;

/**
 * Whether a reader has a channel topic muted: in a muted channel every topic is, unless unmuted or
 * followed; elsewhere only topics muted by name.
 */
export function isTopicMuted(channelMuted: boolean, topicPolicy: number): boolean {
  if (channelMuted) return topicPolicy !== VISIBILITY.unmuted && topicPolicy !== VISIBILITY.followed;
  return topicPolicy === VISIBILITY.muted;
}

export interface UserTopic {
  stream_id: number;
  topic_name: string;
  visibility_policy: number;
  last_updated: number;
}

/** The policies of these users for one topic, by user id (absent: inherit). */
export async function topicPolicies(db: Executor, userIds: readonly number[], streamId: number, topic: string): Promise<Map<number, number>> {
  if (userIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('user_topics')
    .select(['user_id', 'visibility_policy'])
    .where('user_id', 'in', userIds)
    .where('stream_id', '=', streamId)
    .where(sql<boolean>`lower(topic_name) = lower(${topic})`)
    .execute();
  return new Map(rows.map((r) => [r.user_id, Number(r.visibility_policy)]));
}

export async function setTopicPolicy(db: Executor, userId: number, streamId: number, topic: string, policy: number, now: number): Promise<void> {
  await db
    .deleteFrom('user_topics')
    .where('user_id', '=', userId)
    .where('stream_id', '=', streamId)
    .where(sql<boolean>`lower(topic_name) = lower(${topic})`)
    .execute();
  if (policy !== VISIBILITY.inherit) {
    // A concurrent transaction (two first messages to a topic at once, on PostgreSQL) may have
    // inserted the row since the delete: the later write wins instead of failing.
    await sql`INSERT INTO user_topics (user_id, stream_id, topic_name, visibility_policy, last_updated)
      VALUES (${userId}, ${streamId}, ${topic}, ${policy}, ${now})
      ON CONFLICT (user_id, stream_id, lower(topic_name))
      DO UPDATE SET topic_name = excluded.topic_name, visibility_policy = excluded.visibility_policy, last_updated = excluded.last_updated`.execute(db);
  }
}

export async function listUserTopics(db: Executor, userId: number): Promise<UserTopic[]> {
  const rows = await db
    .selectFrom('user_topics')
    .select(['stream_id', 'topic_name', 'visibility_policy', 'last_updated'])
    .where('user_id', '=', userId)
    .orderBy('id')
    .execute();
  return rows.map((r) => ({ ...r, visibility_policy: Number(r.visibility_policy), last_updated: Number(r.last_updated) }));
}

/** Whether any message exists in the topic yet. */
export async function topicExists(db: Executor, streamId: number, topic: string): Promise<boolean> {
  // Written as SQL: most channel messages run it (for the automatic follow policies); on SQLite
  // straight to the connection.
  const rows = await queryRows<{ id: number }>(db, 'select id from messages where stream_id = ? and lower(topic) = lower(?) limit 1', [streamId, topic]);
  return rows.length > 0;
}

/**
 * Zulip's legacy muted_topics: [channel name, topic, when muted] for each topic the user muted
 * (what clients that predate user_topic, such as zulip-terminal 0.7.0, read).
 */
export async function mutedTopicsOf(db: Executor, userId: number): Promise<Array<[string, string, number]>> {
  const rows = await db
    .selectFrom('user_topics')
    .innerJoin('streams', 'streams.id', 'user_topics.stream_id')
    .select(['streams.name as name', 'user_topics.topic_name as topic', 'user_topics.last_updated as at'])
    .where('user_topics.user_id', '=', userId)
    .where('user_topics.visibility_policy', '=', VISIBILITY.muted)
    .orderBy('user_topics.id')
    .execute();
  return rows.map((r) => [r.name, r.topic, Number(r.at)]);
}

/** Every user's stored policy row for the topic (any spelling). */
export async function topicPolicyRows(db: Executor, streamId: number, topic: string): Promise<Array<{ user_id: number; topic_name: string }>> {
  return db.selectFrom('user_topics').select(['user_id', 'topic_name']).where('stream_id', '=', streamId).where(sql<boolean>`lower(topic_name) = lower(${topic})`).execute();
}

/** Drops these users' policies for the topic (any spelling). */
export async function deleteTopicPolicies(db: Executor, userIds: readonly number[], streamId: number, topic: string): Promise<void> {
  if (userIds.length === 0) return;
  await db.deleteFrom('user_topics').where('user_id', 'in', userIds).where('stream_id', '=', streamId).where(sql<boolean>`lower(topic_name) = lower(${topic})`).execute();
}
