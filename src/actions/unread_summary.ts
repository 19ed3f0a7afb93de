// unread_msgs of POST /register: the user's unread messages by conversation. The subscription
// rows and topic settings it needs are read by the caller, which has other uses for them.
import type { Services } from '../services.js';
import type { User } from '../store/users.js';
import type { Subscription } from '../store/channels.js';
import { MAX_UNREAD_MESSAGES, unreadRows } from '../store/unreads.js';
import { isTopicMuted, VISIBILITY, type UserTopic } from '../store/user_topics.js';
import { FLAG_BITS } from '../store/messages.js';

/**
 * Zulip's unread_msgs: every unread message by conversation, with `count` and `mentions` leaving
 * out what the user muted (channel messages in muted topics; wildcard mentions there).
 */
export async function unreadSummary(services: Services, user: User, reads: { subscriptions: Promise<Subscription[]>; userTopics: Promise<UserTopic[]> }) {
  const db = services.database.db;
  const [rows, subRows, topics] = await Promise.all([unreadRows(db, services.database.dialect, user.id, MAX_UNREAD_MESSAGES + 1), reads.subscriptions, reads.userTopics]);
  const subs = new Map(subRows.map((s) => [s.stream_id, s]));
  const policyOf = new Map(topics.map((t) => [`${t.stream_id}\u0000${t.topic_name.toLowerCase()}`, t.visibility_policy]));
  const muted = new Map<string, boolean>();
  const oldMissing = rows.length > MAX_UNREAD_MESSAGES;
  if (oldMissing) rows.pop();
  rows.reverse();
  const pms = new Map<number, number[]>();
  const streams = new Map<string, { stream_id: number; topic: string; ids: number[] }>();
  const huddles = new Map<string, number[]>();
  const mentions: number[] = [];
  let count = 0;
  for (const r of rows) {
    let isMuted = false;
    if (r.recipient_type === 'stream' && r.stream_id !== null) {
      const key = `${r.stream_id}\u0000${r.topic.toLowerCase()}`;
      let entry = streams.get(key);
      if (!entry) {
        streams.set(key, (entry = { stream_id: r.stream_id, topic: r.topic, ids: [] }));
        muted.set(key, isTopicMuted(subs.get(r.stream_id)?.is_muted ?? false, policyOf.get(key) ?? VISIBILITY.inherit));
      }
      entry.ids.push(r.message_id);
      isMuted = muted.get(key)!;
    } else if (r.user_ids_key !== null) {
      const ids = r.user_ids_key.split(',').map(Number);
      if (ids.length <= 2) {
        const other = ids.find((id) => id !== user.id) ?? user.id;
        let list = pms.get(other);
        if (!list) pms.set(other, (list = []));
        list.push(r.message_id);
      } else {
        let list = huddles.get(r.user_ids_key);
        if (!list) huddles.set(r.user_ids_key, (list = []));
        list.push(r.message_id);
      }
    }
    if (!isMuted) count++;
    // Personal and group mentions always count; wildcard mentions only outside muted topics.
    if (r.flags & (FLAG_BITS.mentioned | FLAG_BITS.group_mentioned) || (!isMuted && r.flags & (FLAG_BITS.stream_wildcard_mentioned | FLAG_BITS.topic_wildcard_mentioned))) {
      mentions.push(r.message_id);
    }
  }
  return {
    count,
    pms: [...pms].map(([other, ids]) => ({ other_user_id: other, sender_id: other, unread_message_ids: ids })),
    streams: [...streams.values()].map((s) => ({ stream_id: s.stream_id, topic: s.topic, unread_message_ids: s.ids })),
    huddles: [...huddles].map(([key, ids]) => ({ user_ids_string: key, unread_message_ids: ids })),
    mentions,
    old_unreads_missing: oldMissing,
  };
}
