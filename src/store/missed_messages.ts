// Missed-message notices (the queue behind missed-message emails and the lookups the send makes
// to decide who gets one), each a single query however many recipients a message has.
import { placeholders, queryRows, type Executor } from './db.js';

export interface NewNotice {
  realm_id: number;
  user_id: number;
  message_id: number;
  trigger: string;
  mentioned_group_id: number | null;
  due_ms: number;
}

export interface Notice extends NewNotice {
  id: number;
}

/** A notice's row (of missed_message_notices, or of push_queue, which has the same columns) as numbers. */
export function noticeFromRow(r: { id: unknown; realm_id: unknown; user_id: unknown; message_id: unknown; trigger: string; mentioned_group_id: unknown; due_ms: unknown }): Notice {
  return {
    id: Number(r.id),
    realm_id: Number(r.realm_id),
    user_id: Number(r.user_id),
    message_id: Number(r.message_id),
    trigger: r.trigger,
    mentioned_group_id: r.mentioned_group_id === null ? null : Number(r.mentioned_group_id),
    due_ms: Number(r.due_ms),
  };
}

export async function insertNotices(db: Executor, rows: NewNotice[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 500) {
    await db
      .insertInto('missed_message_notices')
      .values(rows.slice(i, i + 500).map((r) => ({ ...r, claim_token: null, claimed_until_ms: null })))
      .execute();
  }
}

export interface SubscriptionNotifyProps {
  is_muted: boolean;
  email_notifications: boolean | null;
  push_notifications: boolean | null;
  wildcard_mentions_notify: boolean | null;
}

const nullableBool = (v: unknown) => (v === null || v === undefined ? null : !!v);

/**
 * The notification properties of a channel's subscriptions: those of the given users, and of
 * anyone who turned email or push notifications on for the channel.
 */
export async function subscriptionNotifyProps(db: Executor, streamId: number, userIds: readonly number[]): Promise<Map<number, SubscriptionNotifyProps>> {
  // Written as SQL: every channel message runs it (the query builder costs more than the query);
  // on SQLite straight to the connection.
  type NotifyRow = { user_id: number; is_muted: unknown; email_notifications: unknown; push_notifications: unknown; wildcard_mentions_notify: unknown };
  const given = userIds.length ? ` or user_id in (${placeholders(userIds.length)})` : '';
  const rows = await queryRows<NotifyRow>(
    db,
    `select user_id, is_muted, email_notifications, push_notifications, wildcard_mentions_notify from subscriptions where stream_id = ? and active = ? and (email_notifications = ? or push_notifications = ?${given})`,
    [streamId, true, true, true, ...userIds],
  );
  return new Map(
    rows.map((r) => [
      Number(r.user_id),
      {
        is_muted: !!r.is_muted,
        email_notifications: nullableBool(r.email_notifications),
        push_notifications: nullableBool(r.push_notifications),
        wildcard_mentions_notify: nullableBool(r.wildcard_mentions_notify),
      },
    ]),
  );
}

/** Every user's policy for one topic (muted, unmuted, followed), by user id. */
export async function topicPoliciesOfAll(db: Executor, streamId: number, topic: string): Promise<Map<number, number>> {
  // Written as SQL: every channel message runs it (on SQLite straight to the connection).
  const rows = await queryRows<{ user_id: number; visibility_policy: number }>(db, 'select user_id, visibility_policy from user_topics where stream_id = ? and lower(topic_name) = lower(?)', [streamId, topic]);
  return new Map(rows.map((r) => [Number(r.user_id), Number(r.visibility_policy)]));
}

/** Last active times (UNIX seconds) of these users, from presence. */
export async function lastActiveTimes(db: Executor, userIds: readonly number[]): Promise<Map<number, number>> {
  if (userIds.length === 0) return new Map();
  const rows = await db.selectFrom('user_presence').select(['user_id', 'last_active_time']).where('user_id', 'in', userIds).execute();
  return new Map(rows.filter((r) => r.last_active_time !== null).map((r) => [Number(r.user_id), Number(r.last_active_time)]));
}

/** Users with a notice that is due and not held by a live claim. */
export async function usersWithDueNotices(db: Executor, nowMs: number, limit: number): Promise<number[]> {
  const rows = await db
    .selectFrom('missed_message_notices')
    .select('user_id')
    .distinct()
    .where('due_ms', '<=', nowMs)
    .where((eb) => eb.or([eb('claimed_until_ms', 'is', null), eb('claimed_until_ms', '<', nowMs)]))
    .limit(limit)
    .execute();
  return rows.map((r) => Number(r.user_id));
}

/** Takes all of a user's unclaimed notices (due or not: they join the batch) under the token. */
export async function claimNotices(db: Executor, userId: number, token: string, nowMs: number, leaseUntilMs: number): Promise<Notice[]> {
  await db
    .updateTable('missed_message_notices')
    .set({ claim_token: token, claimed_until_ms: leaseUntilMs })
    .where('user_id', '=', userId)
    .where((eb) => eb.or([eb('claimed_until_ms', 'is', null), eb('claimed_until_ms', '<', nowMs)]))
    .execute();
  const rows = await db.selectFrom('missed_message_notices').selectAll().where('user_id', '=', userId).where('claim_token', '=', token).orderBy('message_id').execute();
  return rows.map(noticeFromRow);
}

export async function deleteNotices(db: Executor, ids: readonly number[]): Promise<void> {
  for (let i = 0; i < ids.length; i += 500) await db.deleteFrom('missed_message_notices').where('id', 'in', ids.slice(i, i + 500)).execute();
}

