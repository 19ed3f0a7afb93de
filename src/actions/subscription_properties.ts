// A user's own settings for their subscriptions (color, muting, pinning, notifications), and
// marking whole channels, topics or everything as read.
import type { Services } from '../services.js';
import type { Realm } from '../store/realms.js';
import type { User } from '../store/users.js';
import { getStream, getStreamsByIds, setSubscriptionColumn, subscriptionsOf } from '../store/channels.js';
import { unreadMessageIds } from '../store/unreads.js';
import { setReadFlag } from '../store/messages.js';
import { BadRequest, InvalidStreamId } from '../errors.js';
import { publishAfterCommit } from '../events/publish.js';
import type { Executor } from '../store/db.js';
import { readFlagsEvent } from '../events/types.js';
import { channelAccess } from '../access/channel_access.js';
import { newestTopicMessages } from '../store/topics.js';
import { EMPTY_TOPIC_DISPLAY_NAME } from '../lib/message_text.js';

export interface PropertyChange {
  stream_id: number;
  property: string;
  value: unknown;
}

const BOOLEAN_PROPERTIES = ['is_muted', 'in_home_view', 'pin_to_top', 'desktop_notifications', 'audible_notifications', 'push_notifications', 'email_notifications', 'wildcard_mentions_notify'];

/**
 * POST /users/me/subscriptions/properties, as Zulip's update_subscription_properties_backend:
 * every change's property and value are checked first (they are parsed with the request), then
 * each channel as access_stream_by_id reads it ('Invalid channel ID' for one the user may not
 * read, as for a missing one), then the subscription ('Not subscribed to channel ID N').
 */
export async function updateSubscriptionProperties(services: Services, user: User, changes: PropertyChange[]): Promise<void> {
  const updates: Array<{ streamId: number; column: string; value: unknown; events: Array<[string, unknown]> }> = [];
  for (const c of changes) {
    if (c.property === 'color') {
      // check_color: '#' and three to six hex digits.
      if (typeof c.value !== 'string' || !/^#[0-9a-fA-F]{3,6}$/.test(c.value)) throw new BadRequest('color is not a valid hex color code');
      updates.push({ streamId: c.stream_id, column: 'color', value: c.value, events: [['color', c.value]] });
    } else if (BOOLEAN_PROPERTIES.includes(c.property)) {
      if (typeof c.value !== 'boolean') throw new BadRequest(`${c.property} is not a boolean`);
      if (c.property === 'is_muted' || c.property === 'in_home_view') {
        // The legacy in_home_view is the opposite of is_muted; both are announced.
        const muted = c.property === 'is_muted' ? c.value : !c.value;
        updates.push({ streamId: c.stream_id, column: 'is_muted', value: muted, events: [['in_home_view', !muted], ['is_muted', muted]] });
      } else {
        updates.push({ streamId: c.stream_id, column: c.property, value: c.value, events: [[c.property, c.value]] });
      }
    } else {
      throw new BadRequest(`Unknown subscription property: ${c.property}`);
    }
  }
  const db = services.database.db;
  const ids = [...new Set(changes.map((c) => c.stream_id))];
  const [subs, graph, streams] = await Promise.all([subscriptionsOf(db, user.id, ids), services.cache.groupGraph(user.realm_id), getStreamsByIds(db, user.realm_id, ids)]);
  const byId = new Map(streams.map((s) => [s.id, s]));
  for (const c of changes) {
    const subscribed = subs.get(c.stream_id)?.active ?? false;
    const stream = byId.get(c.stream_id);
    if (!stream || !channelAccess(graph, user, stream, subscribed).content) throw new InvalidStreamId();
    if (!subscribed) throw new BadRequest(`Not subscribed to channel ID ${c.stream_id}`);
  }
  await services.database.transaction(async (tx, onCommit) => {
    for (const u of updates) {
      await setSubscriptionColumn(tx, user.id, u.streamId, u.column, u.value);
      for (const [property, value] of u.events) {
        publishAfterCommit(services, onCommit, { realmId: user.realm_id, userIds: [user.id], event: { type: 'subscription', op: 'update', stream_id: u.streamId, property, value } });
      }
    }
  });
}

/** Marks the user's unread messages (all, or a channel's or topic's) read; one flags event with their ids. */
async function markRead(services: Services, user: User, only: { streamId?: number; topic?: string }): Promise<number[]> {
  return services.database.transaction(async (tx, onCommit) => {
    const ids = await unreadMessageIds(tx, services.database.dialect, user.id, only);
    await setReadFlag(tx, user.id, ids);
    if (ids.length) publishAfterCommit(services, onCommit, { realmId: user.realm_id, userIds: [user.id], event: readFlagsEvent(ids) });
    return ids;
  });
}

/**
 * Zulip's do_mark_all_as_read: the event names no messages but says `all`, and is sent even when
 * nothing was unread (clients clear their unread state from it).
 */
export async function markAllAsRead(services: Services, user: User): Promise<void> {
  await services.database.transaction(async (tx, onCommit) => {
    const ids = await unreadMessageIds(tx, services.database.dialect, user.id, {});
    await setReadFlag(tx, user.id, ids);
    publishAfterCommit(services, onCommit, { realmId: user.realm_id, userIds: [user.id], event: { ...readFlagsEvent([]), all: true } });
  });
}

/** The channel, if the user may read its messages (Zulip's access_stream_by_id): else "Invalid channel ID". */
async function readableStream(services: Services, user: User, realm: Realm, streamId: number) {
  const db = services.database.db;
  const [stream, graph, subs] = await Promise.all([getStream(db, realm.id, streamId), services.cache.groupGraph(realm.id), subscriptionsOf(db, user.id, [streamId])]);
  if (!stream || !channelAccess(graph, user, stream, subs.get(streamId)?.active ?? false).content) throw new InvalidStreamId();
  return stream;
}

export async function markStreamAsRead(services: Services, user: User, realm: Realm, streamId: number): Promise<void> {
  const stream = await readableStream(services, user, realm, streamId);
  await markRead(services, user, { streamId: stream.id });
}

/** A named topic must hold a message the user received, as Zulip checks; "general chat" names the empty topic. */
export async function markTopicAsRead(services: Services, user: User, realm: Realm, streamId: number, topicName: string): Promise<void> {
  const stream = await readableStream(services, user, realm, streamId);
  const topic = topicName === EMPTY_TOPIC_DISPLAY_NAME ? '' : topicName;
  if (topicName !== '' && (await newestTopicMessages(services.database.db, stream.id, topic, 1, user.id)).length === 0) {
    throw new BadRequest(`No such topic '${topic}'`);
  }
  await markRead(services, user, { streamId: stream.id, topic });
}
