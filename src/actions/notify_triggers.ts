// Who a new message notifies, and why: Zulip's notification triggers for email and for mobile
// push, from a recipient's settings, the message's flags for them, their subscription's
// notification properties and their policy for the topic. Pure functions.
import type { UserSettings } from '../lib/user_settings.js';
import { FLAG_BITS } from '../store/messages.js';
import { VISIBILITY, isTopicMuted } from '../store/user_topics.js';

/** The settings that decide one recipient's trigger (shared with mobile push). */
export interface TriggerInput {
  settings: UserSettings;
  flags: number;
  isDm: boolean;
  personal: boolean;
  sub?: { is_muted: boolean; wildcard_mentions_notify: boolean | null; email_notifications: boolean | null; push_notifications: boolean | null };
  topicPolicy: number;
}

/**
 * Why a recipient is notified by email, or null: Zulip's triggers in its order of precedence. A
 * muted channel or topic silences everything but direct messages, personal and group mentions and
 * alert words.
 */
export function emailTrigger(t: TriggerInput): string | null {
  const s = t.settings;
  if (t.isDm) return s.enable_offline_email_notifications ? 'private_message' : null;
  const muted = isTopicMuted(t.sub?.is_muted ?? false, t.topicPolicy);
  const followed = t.topicPolicy === VISIBILITY.followed;
  if (t.flags & FLAG_BITS.mentioned && s.enable_offline_email_notifications) return t.personal ? 'mentioned' : 'group_mentioned';
  if (t.flags & FLAG_BITS.has_alert_word && s.enable_offline_email_notifications) return 'alert_word';
  for (const [bit, name] of [
    [FLAG_BITS.topic_wildcard_mentioned, 'topic_wildcard_mentioned'],
    [FLAG_BITS.stream_wildcard_mentioned, 'stream_wildcard_mentioned'],
  ] as const) {
    if (!(t.flags & bit)) continue;
    if (followed && s.enable_followed_topic_wildcard_mentions_notify && s.enable_followed_topic_email_notifications) return `${name}_in_followed_topic`;
    if (!muted && (t.sub?.wildcard_mentions_notify ?? s.wildcard_mentions_notify) && s.enable_offline_email_notifications) return name;
  }
  if (followed && s.enable_followed_topic_email_notifications) return 'followed_topic_email_notify';
  if (!muted && (t.sub?.email_notifications ?? s.enable_stream_email_notifications)) return 'stream_email_notify';
  return null;
}

/** Why a recipient gets a mobile push, or null: the same order as email, with the push settings. */
export function pushTrigger(t: TriggerInput): string | null {
  const s = t.settings;
  if (t.isDm) return s.enable_offline_push_notifications ? 'direct_message' : null;
  const muted = isTopicMuted(t.sub?.is_muted ?? false, t.topicPolicy);
  const followed = t.topicPolicy === VISIBILITY.followed;
  if (t.flags & (FLAG_BITS.mentioned | FLAG_BITS.has_alert_word) && s.enable_offline_push_notifications) return 'mentioned';
  for (const [bit, name] of [
    [FLAG_BITS.topic_wildcard_mentioned, 'topic_wildcard_mentioned'],
    [FLAG_BITS.stream_wildcard_mentioned, 'stream_wildcard_mentioned'],
  ] as const) {
    if (!(t.flags & bit)) continue;
    if (followed && s.enable_followed_topic_wildcard_mentions_notify && s.enable_followed_topic_push_notifications) return `${name}_in_followed_topic`;
    if (!muted && (t.sub?.wildcard_mentions_notify ?? s.wildcard_mentions_notify) && s.enable_offline_push_notifications) return name;
  }
  if (followed && s.enable_followed_topic_push_notifications) return 'followed_topic_push_notify';
  if (!muted && (t.sub?.push_notifications ?? s.enable_stream_push_notifications)) return 'stream_push_notify';
  return null;
}
