// Writing subscriptions: the rows of users joining channels, in a fixed number of statements,
// inside the caller's transaction (which publishes the events of the outcome after its commit).
// Apart from channels.ts so that account creation (users.ts) can subscribe without importing
// what sends messages.
import type { Executor } from '../store/db.js';
import type { User } from '../store/users.js';
import { activeUserSubscriberIds, addSubscriptionRows, subscriptionRows, usedColorsByUser, type Stream, type Subscription } from '../store/channels.js';
import type { SubscriptionOutcome } from '../shapes/channels.js';
import { nowSeconds } from '../services.js';
import { addNewUserHistory, defaultStreamsForNewUser } from './default_streams.js';
import { pickColors } from './subscription_colors.js';

/** Subscribes the users to the channels with a fixed number of statements. */
export async function writeSubscriptions(
  tx: Executor,
  realmId: number,
  targets: Stream[],
  principals: User[],
  requestedColors: ReadonlyMap<number, string>,
): Promise<SubscriptionOutcome> {
  const streamIds = targets.map((s) => s.id);
  const userIds = principals.map((p) => p.id);
  // One after another: a transaction runs on one connection.
  const rows = await subscriptionRows(tx, userIds, streamIds);
  const before = await activeUserSubscriberIds(tx, streamIds);
  const used = await usedColorsByUser(tx, userIds);
  const existing = new Map(rows.map((r) => [`${r.user_id}:${r.stream_id}`, r]));
  const added = new Map<number, Set<number>>(streamIds.map((id) => [id, new Set()]));
  const fresh: Array<{ userId: number; streamId: number; color: string }> = [];
  const reactivate: number[] = [];
  const newRows = new Map<string, Subscription>();
  for (const user of principals) {
    const missing = streamIds.filter((id) => !existing.has(`${user.id}:${id}`));
    const colors = pickColors(used.get(user.id) ?? new Set(), missing, requestedColors);
    for (const streamId of streamIds) {
      const key = `${user.id}:${streamId}`;
      const row = existing.get(key);
      if (row?.active) continue;
      added.get(streamId)!.add(user.id);
      if (row) {
        reactivate.push(row.id);
        newRows.set(key, { ...row, active: true });
      } else {
        const color = colors.get(streamId)!;
        fresh.push({ userId: user.id, streamId, color });
        newRows.set(key, {
          id: 0, realm_id: realmId, user_id: user.id, stream_id: streamId, active: true, color, is_muted: false, pin_to_top: false,
          desktop_notifications: null, audible_notifications: null, push_notifications: null, email_notifications: null, wildcard_mentions_notify: null,
        });
      }
    }
  }
  await addSubscriptionRows(tx, realmId, fresh, reactivate);
  const changed = streamIds.filter((id) => added.get(id)!.size > 0);
  const after = changed.length ? await activeUserSubscriberIds(tx, streamIds) : before;
  return { targets, added, before, after, rows: newRows };
}

/**
 * A new human account joins the organization's default channels (inside the transaction that
 * creates it). The caller publishes subscriptionEvents of the outcome after the commit.
 */
export async function subscribeNewAccountToDefaults(tx: Executor, realmId: number, user: User): Promise<SubscriptionOutcome | undefined> {
  if (user.is_bot) return undefined;
  const streams = await defaultStreamsForNewUser(tx, realmId);
  if (!streams.length) return undefined;
  const outcome = await writeSubscriptions(tx, realmId, streams, [user], new Map());
  await addNewUserHistory(tx, user.id, streams, nowSeconds());
  return outcome;
}

/** A new account joins the given channels (an invitation's), inside the transaction that creates it. */
export async function subscribeNewAccountTo(tx: Executor, realmId: number, user: User, streams: Stream[]): Promise<SubscriptionOutcome | undefined> {
  if (!streams.length) return undefined;
  const outcome = await writeSubscriptions(tx, realmId, streams, [user], new Map());
  await addNewUserHistory(tx, user.id, streams, nowSeconds());
  return outcome;
}
