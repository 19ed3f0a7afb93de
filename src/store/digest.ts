// What weekly digests read: an organization's busiest topics and new public channels of the past
// week, who is subscribed where, and the once-a-week claim per person.
import { sql } from 'kysely';
import type { Executor } from './db.js';

export interface BusyTopic {
  stream_id: number;
  topic: string;
  messages: number;
  senders: number;
  first_id: number;
}

/** The organization's busiest channel topics since a time (UNIX seconds), by message count. */
export async function busiestTopics(db: Executor, realmId: number, since: number, limit: number): Promise<BusyTopic[]> {
  const { rows } = await sql<{ stream_id: number; topic: string; messages: number; senders: number; first_id: number }>`
    select stream_id, max(topic) as topic, count(*) as messages, count(distinct sender_id) as senders, min(id) as first_id
    from messages
    where realm_id = ${realmId} and stream_id is not null and date_sent >= ${since}
    group by stream_id, lower(topic)
    order by count(*) desc, count(distinct sender_id) desc, min(id) desc
    limit ${limit}`.execute(db);
  return rows.map((r) => ({ stream_id: Number(r.stream_id), topic: r.topic, messages: Number(r.messages), senders: Number(r.senders), first_id: Number(r.first_id) }));
}

export interface NewChannel {
  id: number;
  name: string;
  description: string;
}

export async function newPublicChannels(db: Executor, realmId: number, since: number): Promise<NewChannel[]> {
  const rows = await db
    .selectFrom('streams')
    .select(['id', 'name', 'description'])
    .where('realm_id', '=', realmId)
    .where('date_created', '>=', since)
    .where('invite_only', '=', false)
    .where('is_archived', '=', false)
    .orderBy('id')
    .execute();
  return rows.map((r) => ({ id: Number(r.id), name: r.name, description: r.description }));
}

/** The channels each of these users is subscribed to. */
export async function subscribedChannels(db: Executor, userIds: readonly number[]): Promise<Map<number, Set<number>>> {
  const out = new Map<number, Set<number>>();
  for (let i = 0; i < userIds.length; i += 1000) {
    const rows = await db.selectFrom('subscriptions').select(['user_id', 'stream_id']).where('user_id', 'in', userIds.slice(i, i + 1000)).where('active', '=', true).execute();
    for (const r of rows) {
      const uid = Number(r.user_id);
      if (!out.has(uid)) out.set(uid, new Set());
      out.get(uid)!.add(Number(r.stream_id));
    }
  }
  return out;
}

/** The first messages of a topic (for a digest's teaser). */
export async function topicOpening(db: Executor, streamId: number, topic: string, since: number, limit: number): Promise<Array<{ sender_id: number; content: string; rendered_content: string }>> {
  return db
    .selectFrom('messages')
    .select(['sender_id', 'content', 'rendered_content'])
    .where('stream_id', '=', streamId)
    .where(sql<boolean>`lower(topic) = lower(${topic})`)
    .where('date_sent', '>=', since)
    .orderBy('id')
    .limit(limit)
    .execute();
}

export async function lastDigests(db: Executor, userIds: readonly number[]): Promise<Map<number, number>> {
  if (userIds.length === 0) return new Map();
  const rows = await db.selectFrom('digest_sent').select(['user_id', 'sent_at']).where('user_id', 'in', userIds).execute();
  return new Map(rows.map((r) => [Number(r.user_id), Number(r.sent_at)]));
}

/**
 * Claims this week's digest for a user: true for exactly one caller when the last digest is
 * older than `before` (or there was none). Run in the transaction that queues the email.
 */
export async function claimDigest(db: Executor, userId: number, now: number, before: number): Promise<boolean> {
  const updated = await db.updateTable('digest_sent').set({ sent_at: now }).where('user_id', '=', userId).where('sent_at', '<', before).executeTakeFirst();
  if (Number(updated.numUpdatedRows) === 1) return true;
  const inserted = await db.insertInto('digest_sent').values({ user_id: userId, sent_at: now }).onConflict((oc) => oc.column('user_id').doNothing()).executeTakeFirst();
  return Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1;
}
