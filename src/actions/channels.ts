// Creating channels and subscribing users (POST /users/me/subscriptions), and the channel views
// other code needs (what a user may see, the subscription state /register returns).
import type { Services } from '../services.js';
import { nowSeconds } from '../services.js';
import type { Realm } from '../store/realms.js';
import type { User } from '../store/users.js';
import { ROLE } from '../store/users.js';
import type { GroupGraph } from '../store/cache.js';
import { isUserInGroup } from '../store/cache.js';
import {
  allSubscriptionsOf,
  getStreamByName,
  insertStream,
  listRealmStreams,
  setDefaultStream,
  STREAM_GROUP_SETTINGS,
  subscriberIdsByStream,
  subscriptionsOf,
  upsertSubscriptions,
  type Stream,
  type StreamGroupSetting,
  type Subscription,
} from '../store/channels.js';
import { BadRequest, NotAllowed } from '../errors.js';
import { channelAccess, isRealmAdmin } from './channel_access.js';
import { storeGroupSettingValue, type GroupSettingValue } from './group_settings.js';
import { formatStream, formatSubscription } from '../http/shapes/channels.js';
import { renderMarkdown } from '../markdown/render.js';
import { getChannelFolder } from './channel_folders.js';

export const MAX_CHANNEL_NAME_LENGTH = 60;
export const MAX_CHANNEL_DESCRIPTION_LENGTH = 1024;

/** Zulip's palette for new subscriptions, picked in turn. */
const COLORS = [
  '#76ce90', '#fae589', '#a6c7e5', '#e79ab5', '#bfd56f', '#f4ae55', '#b0a5fd', '#addfe5', '#f5ce6e', '#c2726a',
  '#94c849', '#bd86e5', '#ee7e4a', '#a6dcbf', '#95a5fd', '#53a063', '#9987e1', '#e4523d', '#c2c2c2', '#4f8de4',
  '#c6a8ad', '#e7cc4d', '#c8bebf', '#a47462',
];

export function colorFor(streamId: number): string {
  return COLORS[streamId % COLORS.length]!;
}

export function validateChannelName(raw: string): string {
  const name = raw.trim();
  if (!name) throw new BadRequest("Channel name can't be empty.");
  if (name.length > MAX_CHANNEL_NAME_LENGTH) throw new BadRequest(`Channel name too long (limit: ${MAX_CHANNEL_NAME_LENGTH} characters).`);
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c < 0x20 || c === 0x7f || (c >= 0xfdd0 && c <= 0xfdef) || c === 0xfffe || c === 0xffff) {
      throw new BadRequest(`Invalid character in channel name, at position ${i + 1}.`);
    }
  }
  return name;
}

export function validateChannelDescription(raw: string): string {
  if (raw.length > MAX_CHANNEL_DESCRIPTION_LENGTH) {
    throw new BadRequest(`Channel description too long (limit: ${MAX_CHANNEL_DESCRIPTION_LENGTH} characters).`);
  }
  // Zulip keeps descriptions on one line.
  return raw.replace(/\r?\n/g, ' ');
}

export interface ChannelOptions {
  inviteOnly: boolean;
  isWebPublic: boolean;
  historyPublicToSubscribers: boolean | undefined;
  isDefaultStream: boolean;
  messageRetentionDays: number | null;
  topicsPolicy: string;
  folderId: number | null;
  groupSettings: Partial<Record<StreamGroupSetting, GroupSettingValue>>;
}

export interface SubscribeRequest {
  channels: Array<{ name: string; description?: string }>;
  /** Users to subscribe; undefined means the caller. */
  principals: User[] | undefined;
  authorizationErrorsFatal: boolean;
  options: ChannelOptions;
}

export interface SubscribeResult {
  subscribed: Record<string, string[]>;
  already_subscribed: Record<string, string[]>;
  unauthorized?: string[];
  new_subscription_messages_sent?: boolean;
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

function canCreate(graph: GroupGraph, realm: Realm, user: User, o: ChannelOptions): boolean {
  const s = realm.settings;
  if (o.isWebPublic) return s.enable_spectator_access && isUserInGroup(graph, user.id, s.can_create_web_public_channel_group);
  return isUserInGroup(graph, user.id, o.inviteOnly ? s.can_create_private_channel_group : s.can_create_public_channel_group);
}

function canSubscribeOthers(graph: GroupGraph, realm: Realm, user: User, stream: Stream | undefined): boolean {
  if (user.role === ROLE.guest) return false;
  if (isUserInGroup(graph, user.id, realm.settings.can_add_subscribers_group)) return true;
  return stream !== undefined && isUserInGroup(graph, user.id, stream.can_add_subscribers_group);
}

export async function subscribeToChannels(services: Services, caller: User, realm: Realm, req: SubscribeRequest): Promise<SubscribeResult> {
  const { cache, database } = services;
  const graph = await cache.groupGraph(realm.id);
  const users = await cache.users(realm.id);
  const principals = req.principals ?? [caller];
  const othersIncluded = principals.some((p) => p.id !== caller.id);
  if (req.options.isDefaultStream && !isRealmAdmin(caller)) throw new NotAllowed('Insufficient permission');
  if (req.options.historyPublicToSubscribers === false && !req.options.inviteOnly) {
    throw new BadRequest('Invalid parameters: public channels must have history available to subscribers.');
  }
  if (req.options.isWebPublic && req.options.inviteOnly) throw new BadRequest('A web-public channel cannot be private.');

  // Sort the requested names into existing channels the caller may use and ones to create.
  const seen = new Set<string>();
  const existing: Stream[] = [];
  const toCreate: Array<{ name: string; description: string }> = [];
  const unauthorized: string[] = [];
  for (const spec of req.channels) {
    const name = validateChannelName(spec.name);
    if (seen.has(name.toLowerCase())) continue;
    seen.add(name.toLowerCase());
    const stream = await getStreamByName(database.db, realm.id, name);
    if (!stream) {
      toCreate.push({ name, description: validateChannelDescription(spec.description ?? '') });
      continue;
    }
    const subs = await subscriberIdsByStream(database.db, [stream.id]);
    const access = channelAccess(graph, caller, stream, subs.get(stream.id)!.includes(caller.id));
    const allowed = access.content && (!othersIncluded || canSubscribeOthers(graph, realm, caller, stream)) && !stream.is_archived;
    if (!allowed) {
      if (req.authorizationErrorsFatal) {
        if (access.metadata && othersIncluded && access.content) throw new NotAllowed('Insufficient permission');
        throw new BadRequest(`Unable to access channel (${access.metadata ? stream.name : name}).`);
      }
      unauthorized.push(access.metadata ? stream.name : name);
      continue;
    }
    existing.push(stream);
  }
  if (toCreate.length && !canCreate(graph, realm, caller, req.options)) throw new NotAllowed('Insufficient permission');
  if (toCreate.length && req.options.folderId !== null) {
    const folder = await getChannelFolder(database.db, realm.id, req.options.folderId);
    if (!folder || folder.is_archived) throw new BadRequest('Invalid channel folder ID');
  }
  if (toCreate.length && othersIncluded && !canSubscribeOthers(graph, realm, caller, undefined)) throw new NotAllowed('Insufficient permission');

  const now = nowSeconds();
  const realmUserIds = new Set(users.keys());
  const rendered = new Map(toCreate.map((c) => [c.name, renderMarkdown(c.description).html]));
  const result = await database.transaction(async (tx, onCommit) => {
    const created: Stream[] = [];
    for (const spec of toCreate) {
      const settings = await channelGroupSettings(tx, graph, realmUserIds, realm.id, caller, req.options.groupSettings, now);
      const row: Omit<Stream, 'id' | 'first_message_id'> = {
        realm_id: realm.id,
        name: spec.name,
        description: spec.description,
        rendered_description: rendered.get(spec.name) ?? '',
        invite_only: req.options.inviteOnly,
        is_web_public: req.options.isWebPublic,
        history_public_to_subscribers: req.options.historyPublicToSubscribers ?? true,
        date_created: now,
        creator_id: caller.id,
        message_retention_days: req.options.messageRetentionDays,
        is_archived: false,
        folder_id: req.options.folderId,
        topics_policy: req.options.topicsPolicy,
        ...settings,
      };
      const id = await insertStream(tx, row);
      if (req.options.isDefaultStream) await setDefaultStream(tx, realm.id, id, true);
      created.push({ ...row, id, first_message_id: null });
    }
    const all = [...existing, ...created];
    const before = await subscriberIdsByStream(tx, all.map((s) => s.id));
    const subscribed: Record<string, string[]> = {};
    const already: Record<string, string[]> = {};
    const added = new Map<number, number[]>();
    for (const stream of all) {
      const current = new Set(before.get(stream.id) ?? []);
      const fresh = principals.filter((p) => !current.has(p.id)).map((p) => p.id);
      for (const p of principals) {
        const bucket = current.has(p.id) ? already : subscribed;
        (bucket[String(p.id)] ??= []).push(stream.name);
      }
      await upsertSubscriptions(tx, realm.id, stream.id, fresh, () => colorFor(stream.id));
      added.set(stream.id, fresh);
    }
    return { created, all, before, added, subscribed, already };
  });
  if (result.created.length) cache.invalidateGroups(realm.id);
  await emitSubscriptionEvents(services, realm, result.created, result.all, result.before, result.added);
  const out: SubscribeResult = { subscribed: result.subscribed, already_subscribed: result.already };
  if (!req.authorizationErrorsFatal) out.unauthorized = unauthorized;
  out.new_subscription_messages_sent = false;
  return out;
}

/** The stored group ids of a new channel's permission settings, from the request or Zulip's defaults. */
async function channelGroupSettings(
  tx: Parameters<typeof storeGroupSettingValue>[0],
  graph: GroupGraph,
  realmUserIds: ReadonlySet<number>,
  realmId: number,
  creator: User,
  given: Partial<Record<StreamGroupSetting, GroupSettingValue>>,
  now: number,
): Promise<Record<StreamGroupSetting, number>> {
  const ids = graph.systemIds;
  const defaults: Record<StreamGroupSetting, GroupSettingValue> = {
    can_add_subscribers_group: ids['role:nobody'],
    can_administer_channel_group: { direct_members: [creator.id], direct_subgroups: [] },
    can_create_topic_group: ids['role:everyone'],
    can_delete_any_message_group: ids['role:nobody'],
    can_delete_own_message_group: ids['role:nobody'],
    can_move_messages_out_of_channel_group: ids['role:nobody'],
    can_move_messages_within_channel_group: ids['role:nobody'],
    can_remove_subscribers_group: ids['role:nobody'],
    can_resolve_topics_group: ids['role:nobody'],
    can_send_message_group: ids['role:everyone'],
    can_subscribe_group: ids['role:nobody'],
  };
  const out = {} as Record<StreamGroupSetting, number>;
  for (const key of STREAM_GROUP_SETTINGS) {
    out[key] = await storeGroupSettingValue(tx, graph, realmUserIds, realmId, given[key] ?? defaults[key], key, now);
  }
  return out;
}

async function emitSubscriptionEvents(
  services: Services,
  realm: Realm,
  created: Stream[],
  all: Stream[],
  before: Map<number, number[]>,
  added: Map<number, number[]>,
): Promise<void> {
  if (!created.length && ![...added.values()].some((a) => a.length)) return;
  const graph = await services.cache.groupGraph(realm.id);
  const users = [...(await services.cache.users(realm.id)).values()];
  // Called after the commit: the events describe committed state.
  const publish = (userIds: number[], event: Record<string, unknown>) => {
    if (userIds.length) services.bus.publish({ realmId: realm.id, userIds, event });
  };
  const createdIds = new Set(created.map((s) => s.id));
  const newSubsByUser = new Map<number, Stream[]>();
  for (const stream of all) {
    const subscribers = new Set([...(before.get(stream.id) ?? []), ...(added.get(stream.id) ?? [])]);
    const fresh = added.get(stream.id) ?? [];
    const viewers = usersWhoCanSee(graph, users, stream, subscribers);
    if (createdIds.has(stream.id)) publish(viewers, { type: 'stream', op: 'create', streams: [formatStream(stream, graph, subscribers.size)] });
    for (const u of fresh) (newSubsByUser.get(u) ?? newSubsByUser.set(u, []).get(u)!).push(stream);
    const freshSet = new Set(fresh);
    const peers = viewers.filter((u) => !freshSet.has(u));
    if (fresh.length && peers.length) publish(peers, { type: 'subscription', op: 'peer_add', stream_ids: [stream.id], user_ids: fresh });
  }
  // Each new subscriber hears of their own subscriptions, with the full objects.
  const streamIds = [...new Set([...newSubsByUser.values()].flat().map((s) => s.id))];
  const subscribers = await subscriberIdsByStream(services.database.db, streamIds);
  for (const [userId, streams] of newSubsByUser) {
    const rows = await subscriptionsOf(services.database.db, userId, streams.map((s) => s.id));
    const subs = streams.map((s) => formatSubscription(s, rows.get(s.id)!, graph, subscribers.get(s.id) ?? []));
    publish([userId], { type: 'subscription', op: 'add', subscriptions: subs });
  }
}

export interface SubscriptionState {
  subscriptions: Record<string, unknown>[];
  unsubscribed: Record<string, unknown>[];
  never_subscribed: Record<string, unknown>[];
  streams: Record<string, unknown>[];
}

/**
 * The channels a user may see, split as /register reports them, in a fixed number of queries:
 * their subscription rows, every channel of the organization, and the subscriber lists.
 */
export async function subscriptionStateFor(services: Services, user: User, o: { includeSubscribers: boolean }): Promise<SubscriptionState> {
  const db = services.database.db;
  const graph = await services.cache.groupGraph(user.realm_id);
  const [streams, subRows] = await Promise.all([listRealmStreams(db, user.realm_id), allSubscriptionsOf(db, user.id)]);
  const mine = new Map<number, Subscription>(subRows.map((s) => [s.stream_id, s]));
  const visible = streams.filter((s) => channelAccess(graph, user, s, mine.get(s.id)?.active ?? false).metadata);
  const subscriberLists = await subscriberIdsByStream(db, visible.map((s) => s.id));
  const state: SubscriptionState = { subscriptions: [], unsubscribed: [], never_subscribed: [], streams: [] };
  for (const stream of visible) {
    const subscribers = subscriberLists.get(stream.id) ?? [];
    const sub = mine.get(stream.id);
    // Subscriber lists go only where the user may see them: everyone for public channels, subscribers otherwise.
    const showSubscribers = o.includeSubscribers ? subscribers : undefined;
    if (!stream.is_archived) state.streams.push(formatStream(stream, graph, subscribers.length));
    if (sub?.active) state.subscriptions.push(formatSubscription(stream, sub, graph, showSubscribers));
    else if (sub) state.unsubscribed.push(formatSubscription(stream, sub, graph, showSubscribers));
    else {
      const shaped = formatStream(stream, graph, subscribers.length);
      if (showSubscribers) shaped.subscribers = showSubscribers;
      state.never_subscribed.push(shaped);
    }
  }
  return state;
}

/** Channels the user may see (metadata access), with whether they are subscribed. */
export async function visibleChannels(services: Services, user: User): Promise<Array<{ stream: Stream; subscribed: boolean; contentAccess: boolean }>> {
  const db = services.database.db;
  const graph = await services.cache.groupGraph(user.realm_id);
  const [streams, subRows] = await Promise.all([listRealmStreams(db, user.realm_id), allSubscriptionsOf(db, user.id)]);
  const active = new Set(subRows.filter((s) => s.active).map((s) => s.stream_id));
  const out = [];
  for (const stream of streams) {
    const access = channelAccess(graph, user, stream, active.has(stream.id));
    if (access.metadata) out.push({ stream, subscribed: active.has(stream.id), contentAccess: access.content });
  }
  return out;
}

/** First start of a server: a #general channel that everyone joins by default. */
export async function createGeneralChannel(services: Services, realm: Realm, owner: User): Promise<void> {
  await subscribeToChannels(services, owner, realm, {
    channels: [{ name: 'general', description: 'Everyone is added to this channel by default.' }],
    principals: undefined,
    authorizationErrorsFatal: true,
    options: {
      inviteOnly: false,
      isWebPublic: false,
      historyPublicToSubscribers: true,
      isDefaultStream: true,
      messageRetentionDays: null,
      topicsPolicy: 'inherit',
      folderId: null,
      groupSettings: {},
    },
  });
}

