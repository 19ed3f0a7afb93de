// Channel and subscription objects as the API shows them (GET /streams, GET /users/me/subscriptions,
// the subscription state of POST /register, stream and subscription events): the read side that
// lists them, each list with a fixed number of queries, and the events a subscription change sends.
import type { Services } from '../services.js';
import type { GroupGraph } from '../store/cache.js';
import { isUserInGroup } from '../store/cache.js';
import {
  STREAM_GROUP_SETTINGS,
  activeUserSubscriberCounts,
  activeUserSubscriberIds,
  allSubscriptionsOf,
  defaultStreamIds,
  listRealmStreams,
  type Stream,
  type Subscription,
} from '../store/channels.js';
import { ROLE, type User } from '../store/users.js';
import { groupSettingValue } from '../access/group_settings.js';
import { channelAccess, isRealmAdmin } from '../access/channel_access.js';
import type { ConfabEvent } from '../events/types.js';

/** Zulip's legacy stream_post_policy, derived from can_send_message_group for old clients. */
export const STREAM_POST_POLICY = { everyone: 1, admins: 2, restrictNewMembers: 3, moderators: 4 } as const;

export function streamPostPolicy(graph: GroupGraph, groupId: number): number {
  const group = graph.groups.get(groupId);
  if (!group || !group.is_system_group) return STREAM_POST_POLICY.everyone;
  if (group.name === 'role:administrators') return STREAM_POST_POLICY.admins;
  if (group.name === 'role:fullmembers') return STREAM_POST_POLICY.restrictNewMembers;
  if (group.name === 'role:moderators') return STREAM_POST_POLICY.moderators;
  return STREAM_POST_POLICY.everyone;
}

/** A channel as GET /streams and the stream events show it. */
export function formatStream(stream: Stream, graph: GroupGraph, subscriberCount: number): Record<string, unknown> {
  const postPolicy = streamPostPolicy(graph, stream.can_send_message_group);
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
    stream_post_policy: postPolicy,
    is_announcement_only: postPolicy === STREAM_POST_POLICY.admins,
    message_retention_days: stream.message_retention_days,
    history_public_to_subscribers: stream.history_public_to_subscribers,
    topics_policy: stream.topics_policy,
    first_message_id: stream.first_message_id,
    folder_id: stream.folder_id,
    is_recently_active: true,
    subscriber_count: subscriberCount,
    // Confab keeps no traffic statistics; null is Zulip's "no information".
    stream_weekly_traffic: null,
  };
  for (const key of STREAM_GROUP_SETTINGS) out[key] = groupSettingValue(graph, stream[key]);
  return out;
}

/** The user's subscription to a channel: the channel's fields plus the personal ones. */
export function formatSubscription(
  stream: Stream,
  sub: Subscription,
  graph: GroupGraph,
  subscribers: number[] | undefined,
  subscriberCount = subscribers?.length ?? 0,
): Record<string, unknown> {
  const out = formatStream(stream, graph, subscriberCount);
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

/** Whether the user is in one of the channel's groups that grant seeing it (never for guests). */
function metadataViaGroups(graph: GroupGraph, user: User, stream: Stream): boolean {
  if (user.role === ROLE.guest) return false;
  return [stream.can_administer_channel_group, stream.can_add_subscribers_group, stream.can_subscribe_group].some((g) => isUserInGroup(graph, user.id, g));
}

/**
 * Whether the user may see who is subscribed (Zulip's rules): anyone for web-public channels,
 * guests only where subscribed, organization administrators and the channel's granting groups
 * everywhere, others for public channels and private ones they are subscribed to.
 */
export function canSeeSubscribers(graph: GroupGraph, user: User, stream: Stream, subscribed: boolean): boolean {
  if (stream.realm_id !== user.realm_id) return false;
  if (stream.is_web_public) return true;
  if (user.role === ROLE.guest) return subscribed;
  if (isRealmAdmin(user) || metadataViaGroups(graph, user, stream)) return true;
  return !stream.invite_only || subscribed;
}

/** Zulip sorts channel lists by name. */
function byName(a: Record<string, unknown>, b: Record<string, unknown>): number {
  const x = String(a.name);
  const y = String(b.name);
  return x < y ? -1 : x > y ? 1 : 0;
}

export interface SubscriptionState {
  subscriptions: Record<string, unknown>[];
  unsubscribed: Record<string, unknown>[];
  never_subscribed: Record<string, unknown>[];
  streams: Record<string, unknown>[];
}

export interface SubscriptionStateOptions {
  /** true or "partial" adds `subscribers` to every entry (Confab always sends the full list). */
  includeSubscribers: boolean | 'partial';
  /** Clients with the archived_channels capability also get archived channels. */
  includeArchived?: boolean;
  /** The user's subscription rows (allSubscriptionsOf), when the caller reads them for another use too. */
  subscriptionRows?: Promise<Subscription[]>;
}

/**
 * The channels a user may see, split as POST /register reports them, in three queries (the
 * organization's channels, the user's subscription rows, the subscriber lists). Lists are sorted
 * by name. `streams` is every channel the user has metadata access to, as Zulip sends it.
 */
export async function subscriptionStateFor(services: Services, user: User, o: SubscriptionStateOptions): Promise<SubscriptionState> {
  const db = services.database.db;
  const graph = await services.cache.groupGraph(user.realm_id);
  const [allStreams, subRows] = await Promise.all([listRealmStreams(db, user.realm_id), o.subscriptionRows ?? allSubscriptionsOf(db, user.id)]);
  const streams = o.includeArchived ? allStreams : allStreams.filter((s) => !s.is_archived);
  const mine = new Map<number, Subscription>(subRows.map((s) => [s.stream_id, s]));

  const subscribed: Array<[Stream, Subscription]> = [];
  const unsubscribed: Array<[Stream, Subscription]> = [];
  const never: Stream[] = [];
  const visible: Stream[] = [];
  for (const stream of streams) {
    const sub = mine.get(stream.id);
    const access = channelAccess(graph, user, stream, sub?.active ?? false);
    if (access.metadata) visible.push(stream);
    if (sub?.active) subscribed.push([stream, sub]);
    // A channel left behind stays listed only while the user may still see it.
    else if (sub) {
      if (access.metadata) unsubscribed.push([stream, sub]);
    } else if (access.metadata) never.push(stream);
  }

  const subscriberLists = await activeUserSubscriberIds(db, visible.map((s) => s.id));
  const listFor = (stream: Stream): number[] => subscriberLists.get(stream.id) ?? [];
  // Where the user may not see the subscribers, Zulip still sends the field, empty.
  const shownSubscribers = (stream: Stream): number[] | undefined => {
    if (!o.includeSubscribers) return undefined;
    return canSeeSubscribers(graph, user, stream, mine.get(stream.id)?.active ?? false) ? listFor(stream) : [];
  };

  const state: SubscriptionState = {
    subscriptions: subscribed.map(([s, sub]) => formatSubscription(s, sub, graph, shownSubscribers(s), listFor(s).length)),
    unsubscribed: unsubscribed.map(([s, sub]) => formatSubscription(s, sub, graph, shownSubscribers(s), listFor(s).length)),
    never_subscribed: never.map((s) => {
      const shaped = formatStream(s, graph, listFor(s).length);
      const shown = shownSubscribers(s);
      if (shown) shaped.subscribers = shown;
      return shaped;
    }),
    streams: visible.map((s) => formatStream(s, graph, listFor(s).length)),
  };
  for (const list of Object.values(state)) list.sort(byName);
  return state;
}

export interface ChannelFilter {
  includePublic: boolean;
  includeWebPublic: boolean;
  includeSubscribed: boolean;
  excludeArchived: boolean;
  includeAll: boolean;
  includeDefault: boolean;
  includeOwnerSubscribed: boolean;
  includeCanAccessContent: boolean;
}

/** GET /streams: the channels the filter selects among those the user may see, sorted by name. */
export async function listChannelsFor(services: Services, user: User, f: ChannelFilter): Promise<Record<string, unknown>[]> {
  const db = services.database.db;
  const graph = await services.cache.groupGraph(user.realm_id);
  const ownerId = f.includeOwnerSubscribed && user.is_bot ? user.bot_owner_id : null;
  const [streams, subRows, defaults, ownerRows] = await Promise.all([
    listRealmStreams(db, user.realm_id),
    allSubscriptionsOf(db, user.id),
    defaultStreamIds(db, user.realm_id),
    ownerId !== null ? allSubscriptionsOf(db, ownerId) : Promise.resolve([]),
  ]);
  const active = new Set(subRows.filter((s) => s.active).map((s) => s.stream_id));
  const ownerActive = new Set(ownerRows.filter((s) => s.active).map((s) => s.stream_id));
  const defaultSet = new Set(defaults);
  const guest = user.role === ROLE.guest;

  const chosen = streams.filter((stream) => {
    if (f.excludeArchived && stream.is_archived) return false;
    // A bot may act in every channel its owner is in, as Zulip lists them.
    if (ownerActive.has(stream.id)) return true;
    const access = channelAccess(graph, user, stream, active.has(stream.id));
    // Nothing the user may not see is ever listed, whatever the filter says.
    if (!access.metadata) return false;
    if (f.includeAll) return true;
    if (f.includeCanAccessContent && access.content) return true;
    if (f.includeSubscribed && active.has(stream.id)) return true;
    if (f.includePublic && !guest && !stream.invite_only) return true;
    if (f.includeWebPublic && stream.is_web_public) return true;
    return f.includeDefault && defaultSet.has(stream.id);
  });
  const counts = await activeUserSubscriberCounts(db, chosen.map((s) => s.id));
  const out = chosen.map((stream) => {
    const shaped = formatStream(stream, graph, counts.get(stream.id) ?? 0);
    if (f.includeDefault) shaped.is_default = defaultSet.has(stream.id);
    return shaped;
  });
  return out.sort(byName);
}

/** Users in the organization who may see a channel, and so get its stream and peer events. */
export function usersWhoCanSee(graph: GroupGraph, users: Iterable<User>, stream: Stream, subscriberIds: ReadonlySet<number>): number[] {
  const out: number[] = [];
  for (const u of users) {
    if (!u.is_active || u.realm_id !== stream.realm_id) continue;
    if (channelAccess(graph, u, stream, subscriberIds.has(u.id)).metadata) out.push(u.id);
  }
  return out;
}

export interface OutgoingEvent {
  userIds: number[];
  event: ConfabEvent;
}

/** What a subscription change did, as the events describe it. */
export interface SubscriptionOutcome {
  targets: Stream[];
  /** Users newly subscribed (or re-subscribed), by channel id. */
  added: Map<number, Set<number>>;
  /** Subscriber ids (active users) before and after, by channel id. */
  before: Map<number, number[]>;
  after: Map<number, number[]>;
  /** The subscription rows of the new subscribers, as they now are, keyed `user:stream`. */
  rows: Map<string, Subscription>;
}

/**
 * The events of a subscription change and who gets each, in Zulip's order: `stream`/`create` for
 * new channels (and for new subscribers who could not see an existing channel before),
 * `default_streams` when new channels became defaults, `subscription`/`add` to each new
 * subscriber with the full objects, then `subscription`/`peer_add` to everyone else who may see
 * the channel's subscribers.
 */
export function subscriptionEvents(
  graph: GroupGraph,
  users: User[],
  created: Stream[],
  r: SubscriptionOutcome,
  defaultIds: number[] | undefined,
): OutgoingEvent[] {
  const out: OutgoingEvent[] = [];
  const publish = (userIds: number[], event: ConfabEvent) => {
    if (userIds.length) out.push({ userIds, event });
  };
  const createdIds = new Set(created.map((s) => s.id));
  const byId = new Map(users.map((u) => [u.id, u]));
  const viewersOf = new Map<number, number[]>();
  for (const stream of r.targets) {
    const subscribers = new Set([...(r.after.get(stream.id) ?? []), ...(r.added.get(stream.id) ?? [])]);
    viewersOf.set(stream.id, usersWhoCanSee(graph, users, stream, subscribers));
  }

  for (const stream of r.targets) {
    const fresh = r.added.get(stream.id) ?? new Set<number>();
    if (createdIds.has(stream.id)) {
      // The channel is announced as it was before anyone joined; peer_add then reports who did.
      publish(viewersOf.get(stream.id)!, { type: 'stream', op: 'create', streams: [formatStream(stream, graph, 0)] });
      continue;
    }
    const newlyVisible = [...fresh].filter((id) => {
      const u = byId.get(id);
      return u !== undefined && !channelAccess(graph, u, stream, false).metadata;
    });
    const beforeCount = r.before.get(stream.id)?.length ?? 0;
    if (newlyVisible.length) publish(newlyVisible, { type: 'stream', op: 'create', streams: [formatStream(stream, graph, beforeCount)] });
  }
  if (defaultIds) {
    const nonGuests = users.filter((u) => u.is_active && u.role !== ROLE.guest).map((u) => u.id);
    publish(nonGuests, { type: 'default_streams', default_streams: defaultIds });
  }

  const perUser = new Map<number, Record<string, unknown>[]>();
  for (const stream of r.targets) {
    const subscribers = r.after.get(stream.id) ?? [];
    for (const userId of r.added.get(stream.id) ?? []) {
      const row = r.rows.get(`${userId}:${stream.id}`)!;
      const list = perUser.get(userId) ?? perUser.set(userId, []).get(userId)!;
      list.push(formatSubscription(stream, row, graph, subscribers, subscribers.length));
    }
  }
  for (const [userId, subscriptions] of perUser) publish([userId], { type: 'subscription', op: 'add', subscriptions });

  for (const b of peerEventBatches(r.targets, (id) => r.added.get(id), viewersOf)) {
    publish(b.peers, { type: 'subscription', op: 'peer_add', stream_ids: b.streamIds, user_ids: b.userIds });
  }
  return out;
}

/**
 * The peer_add or peer_remove events of a change to several channels' members: channels with the
 * same members joining (or leaving) and the same audience (those who see the channel, the
 * changed members aside) share one event, as Zulip batches them. Ids sorted.
 */
export function peerEventBatches(
  streams: ReadonlyArray<{ id: number }>,
  changedOf: (streamId: number) => Iterable<number> | undefined,
  viewersOf: ReadonlyMap<number, number[]>,
): Array<{ streamIds: number[]; userIds: number[]; peers: number[] }> {
  const batches = new Map<string, { streamIds: number[]; userIds: number[]; peers: number[] }>();
  for (const stream of streams) {
    const changed = new Set(changedOf(stream.id) ?? []);
    if (!changed.size) continue;
    const peers = viewersOf.get(stream.id)!.filter((id) => !changed.has(id));
    if (!peers.length) continue;
    const userIds = [...changed].sort((a, b) => a - b);
    const key = `${userIds.join(',')}|${peers.join(',')}`;
    (batches.get(key) ?? batches.set(key, { streamIds: [], userIds, peers }).get(key)!).streamIds.push(stream.id);
  }
  return [...batches.values()].map((b) => ({ ...b, streamIds: b.streamIds.sort((x, y) => x - y) }));
}
