// Channel and subscription objects as the API shows them (GET /streams, subscriptions in
// /register, stream and subscription events).
import type { GroupGraph } from '../../store/cache.js';
import { STREAM_GROUP_SETTINGS, type Stream, type Subscription } from '../../store/channels.js';
import { groupSettingValue } from '../../actions/group_settings.js';

/** Zulip's stream_post_policy, derived for old clients: 1 = anyone may post. */
const STREAM_POST_POLICY_EVERYONE = 1;

export function formatStream(stream: Stream, graph: GroupGraph, subscriberCount: number): Record<string, unknown> {
  const out: Record<string, unknown> = {
    stream_id: stream.id,
    name: stream.name,
    is_archived: stream.is_archived,
    description: stream.description,
    rendered_description: stream.rendered_description,
    date_created: stream.date_created,
    creator_id: stream.creator_id,
    invite_only: stream.invite_only,
    is_web_public: stream.is_web_public,
    stream_post_policy: STREAM_POST_POLICY_EVERYONE,
    is_announcement_only: false,
    message_retention_days: stream.message_retention_days,
    history_public_to_subscribers: stream.history_public_to_subscribers,
    topics_policy: stream.topics_policy,
    first_message_id: stream.first_message_id,
    folder_id: stream.folder_id,
    is_recently_active: true,
    subscriber_count: subscriberCount,
    stream_weekly_traffic: null,
  };
  for (const key of STREAM_GROUP_SETTINGS) out[key] = groupSettingValue(graph, stream[key]);
  return out;
}

export function formatSubscription(
  stream: Stream,
  sub: Subscription,
  graph: GroupGraph,
  subscribers: number[] | undefined,
): Record<string, unknown> {
  const out = formatStream(stream, graph, subscribers?.length ?? 0);
  Object.assign(out, {
    color: sub.color,
    is_muted: sub.is_muted,
    in_home_view: !sub.is_muted,
    pin_to_top: sub.pin_to_top,
    desktop_notifications: sub.desktop_notifications,
    audible_notifications: sub.audible_notifications,
    push_notifications: sub.push_notifications,
    email_notifications: sub.email_notifications,
    wildcard_mentions_notify: sub.wildcard_mentions_notify,
  });
  if (subscribers) out.subscribers = subscribers;
  return out;
}
