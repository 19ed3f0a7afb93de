// Creating channels and subscribing users (POST /users/me/subscriptions) with Zulip's permission
// rules, defaults and events (and the Notification Bot's messages about it, subscription_notices.ts);
// the #general channel of a new server.
import type { Services } from '../services.js';
import { nowSeconds } from '../services.js';
import type { Realm } from '../store/realms.js';
import type { User } from '../store/users.js';
import { ROLE } from '../store/users.js';
import type { GroupGraph } from '../store/cache.js';
import { isUserInGroup } from '../store/cache.js';
import { UniqueConflict } from '../store/conflicts.js';
import type { Executor } from '../store/db.js';
import {
  defaultStreamIds,
  getStreamByName,
  getStreamsByNames,
  insertStream,
  setDefaultStream,
  STREAM_GROUP_SETTINGS,
  subscriptionsOf,
  type Stream,
  type StreamGroupSetting,
} from '../store/channels.js';
import { BadRequest, IncompatibleParameters, NotAllowed, OwnerRequired } from '../errors.js';
import { channelAccess, isRealmAdmin } from '../access/channel_access.js';
import { idsNamedBy, type GroupSettingValue } from '../access/group_settings.js';
import { storeGroupSettingValue } from './group_settings.js';
import { subscriptionEvents, type SubscriptionOutcome } from '../shapes/channels.js';
import { renderChannelDescription } from './render_context.js';
import { getChannelFolder } from '../store/channel_folders.js';
import { publishAfterCommit, type OnCommit } from '../events/publish.js';
import { writeSubscriptions } from './subscription_writes.js';
import { newSubscriptionMessagesSent, postSubscriptionNotices, prepareChannelCreatedMessages } from './subscription_notices.js';
import type { PreparedBotMessage } from './bot_messages.js';
import { notificationBot } from './notification_bot.js';
import { updateRealmSettings } from './realm_settings.js';
import type { Transaction } from 'kysely';
import type { DB } from '../store/schema.js';


export const MAX_CHANNEL_NAME_LENGTH = 60;
export const MAX_CHANNEL_DESCRIPTION_LENGTH = 1024;

/** Whether a code point is one Zulip refuses in names: controls, surrogates, noncharacters. */
function isUnprintable(cp: number): boolean {
  if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f)) return true;
  if (cp >= 0xd800 && cp <= 0xdfff) return true;
  if (cp >= 0xfdd0 && cp <= 0xfdef) return true;
  return (cp & 0xfffe) === 0xfffe;
}

/** Zulip counts characters as code points. */
export function codePointLength(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** A channel name as Zulip accepts it: trimmed, non-empty, at most 60 characters, printable. */
export function validateChannelName(raw: string): string {
  const name = raw.trim();
  if (!name) throw new BadRequest("Channel name can't be empty.");
  if (codePointLength(name) > MAX_CHANNEL_NAME_LENGTH) throw new BadRequest(`Channel name too long (limit: ${MAX_CHANNEL_NAME_LENGTH} characters).`);
  let position = 0;
  for (const ch of name) {
    position++;
    if (isUnprintable(ch.codePointAt(0)!)) throw new BadRequest(`Invalid character in channel name, at position ${position}.`);
  }
  return name;
}

export function validateChannelDescription(raw: string): string {
  if (codePointLength(raw) > MAX_CHANNEL_DESCRIPTION_LENGTH) {
    throw new BadRequest(`Channel description too long (limit: ${MAX_CHANNEL_DESCRIPTION_LENGTH} characters).`);
  }
  // Zulip keeps descriptions on one line.
  return raw.replace(/\n/g, ' ');
}

export interface ChannelOptions {
  inviteOnly: boolean;
  isWebPublic: boolean;
  historyPublicToSubscribers: boolean | undefined;
  isDefaultStream: boolean;
  /** null: the organization's default; -1: unlimited. */
  messageRetentionDays: number | null;
  topicsPolicy: string | undefined;
  folderId: number | null;
  groupSettings: Partial<Record<StreamGroupSetting, GroupSettingValue>>;
}

export interface ChannelSpec {
  name: string;
  description?: string;
  color?: string;
}

export interface SubscribeRequest {
  channels: ChannelSpec[];
  /** Users to subscribe; undefined or empty means the caller. */
  principals: User[] | undefined;
  /**
   * Principals as the request names them (ids or addresses), looked up only once the channels are
   * checked, as Zulip's add_subscriptions_backend does (bulk_principals_to_user_profiles comes
   * after list_to_streams and the authorization checks); takes the place of `principals`.
   */
  namedPrincipals?: { raw: Array<number | string>; lookup: () => Promise<User[]> };
  /** POST /channels/create: exactly `principals`, even none. */
  exactPrincipals?: boolean;
  authorizationErrorsFatal: boolean;
  /** Whether the Notification Bot tells users someone else subscribed to existing channels (default true). */
  sendNewSubscriptionMessages?: boolean;
  /** Whether the Notification Bot announces the channels this request creates (default false). */
  announce?: boolean;
  /**
   * Whether each channel this request creates gets the Notification Bot's "channel created" message
   * (default true; Zulip's do_create_realm makes #general without one).
   */
  channelCreatedMessages?: boolean;
  options: ChannelOptions;
}

export interface SubscribeResult {
  subscribed: Record<string, string[]>;
  already_subscribed: Record<string, string[]>;
  unauthorized?: string[];
  new_subscription_messages_sent?: boolean;
}

/** Settings Zulip never lets role:everyone (guests included) hold. */
const NO_EVERYONE: ReadonlySet<StreamGroupSetting> = new Set(['can_add_subscribers_group', 'can_administer_channel_group', 'can_subscribe_group']);
const DELETE_SETTINGS: ReadonlySet<StreamGroupSetting> = new Set(['can_delete_any_message_group', 'can_delete_own_message_group']);

/** Zulip's defaults for a new channel; can_administer_channel_group is the creator alone. */
function defaultGroupSettings(graph: GroupGraph, creator: User): Record<StreamGroupSetting, GroupSettingValue> {
  const ids = graph.systemIds;
  return {
    can_add_subscribers_group: ids['role:nobody'],
    can_administer_channel_group: { direct_members: [creator.id], direct_subgroups: [] },
    can_create_topic_group: ids['role:everyone'],
    can_delete_any_message_group: ids['role:nobody'],
    can_delete_own_message_group: ids['role:nobody'],
    can_move_messages_out_of_channel_group: ids['role:nobody'],
    can_move_messages_within_channel_group: ids['role:nobody'],
    can_remove_subscribers_group: ids['role:administrators'],
    can_resolve_topics_group: ids['role:nobody'],
    can_send_message_group: ids['role:everyone'],
    can_subscribe_group: ids['role:nobody'],
  };
}

/** The named group a value stands for, when it is one (an id, or one subgroup and no members). */
function namedGroupOf(value: GroupSettingValue): number | undefined {
  if (typeof value === 'number') return value;
  return value.direct_members.length === 0 && value.direct_subgroups.length === 1 ? value.direct_subgroups[0] : undefined;
}

/** Checks a new channel's requested permission settings against Zulip's per-setting rules. */
function checkGroupSettings(graph: GroupGraph, realm: Realm, caller: User, o: ChannelOptions, history: boolean): void {
  const nobody = graph.systemIds['role:nobody'];
  for (const key of STREAM_GROUP_SETTINGS) {
    const value = o.groupSettings[key];
    if (value === undefined) continue;
    const named = namedGroupOf(value);
    const name = named === undefined ? undefined : graph.groups.get(named)?.name;
    if (name === 'role:internet' || (name === 'role:everyone' && NO_EVERYONE.has(key))) {
      throw new BadRequest(`'${key}' setting cannot be set to '${name}' group.`);
    }
    const isNobody = named === nobody || (typeof value !== 'number' && !value.direct_members.length && !value.direct_subgroups.length);
    if (DELETE_SETTINGS.has(key) && !isNobody && !isUserInGroup(graph, caller.id, realm.settings.can_set_delete_message_policy_group)) {
      throw new NotAllowed('Insufficient permission');
    }
    // Protected history means new subscribers cannot see old topics, so anyone must be able to start one.
    if (key === 'can_create_topic_group' && !history && value !== graph.systemIds['role:everyone']) {
      throw new IncompatibleParameters(['history_public_to_subscribers', 'can_create_topic_group']);
    }
  }
}

/** Zulip's check_channel_creation_permissions, in its order. */
function checkCreationPermissions(graph: GroupGraph, realm: Realm, caller: User, o: ChannelOptions): void {
  const s = realm.settings;
  const can = (groupId: number) => isUserInGroup(graph, caller.id, groupId);
  if (o.inviteOnly && !can(s.can_create_private_channel_group)) throw new NotAllowed('Insufficient permission');
  if (!o.inviteOnly && !can(s.can_create_public_channel_group)) throw new NotAllowed('Insufficient permission');
  if (o.isDefaultStream && !isRealmAdmin(caller)) throw new NotAllowed('Insufficient permission');
  if (o.inviteOnly && o.isDefaultStream) throw new BadRequest('A default channel cannot be private.');
  if (o.isWebPublic) {
    if (!s.enable_spectator_access) throw new BadRequest('Web-public channels are not enabled.');
    if (!can(s.can_create_web_public_channel_group)) throw new NotAllowed('Insufficient permission');
  }
  if (o.messageRetentionDays !== null && caller.role !== ROLE.owner) throw new OwnerRequired();
}

/** May the caller add other users to this existing channel (to which they have content access)? */
export function canAddSubscribers(graph: GroupGraph, realm: Realm, caller: User, stream: Stream): boolean {
  if (caller.role === ROLE.guest) return false;
  if (isRealmAdmin(caller)) return true;
  const can = (groupId: number) => isUserInGroup(graph, caller.id, groupId);
  return can(realm.settings.can_add_subscribers_group) || can(stream.can_administer_channel_group) || can(stream.can_add_subscribers_group);
}

/** A write lost a race on a unique index (store/conflicts.ts turns the driver's error into this). */
export function isUniqueViolation(e: unknown): boolean {
  return e instanceof UniqueConflict;
}

/**
 * POST /users/me/subscriptions. Two requests racing to create the same channel or subscription
 * collide on a unique index; the loser runs once more and then finds what the winner wrote.
 */
export async function subscribeToChannels(services: Services, caller: User, realm: Realm, req: SubscribeRequest): Promise<SubscribeResult> {
  try {
    return await subscribeOnce(services, caller, realm, req);
  } catch (e) {
    if (!isUniqueViolation(e)) throw e;
    return subscribeOnce(services, caller, realm, req);
  }
}

async function subscribeOnce(services: Services, caller: User, realm: Realm, req: SubscribeRequest): Promise<SubscribeResult> {
  const plan = await prepareSubscribe(services, caller, realm, req);
  return plan.respond(await services.database.transaction(plan.write));
}

/** A checked subscription request: `write` runs inside a transaction, `respond` shapes its outcome. */
export interface SubscribePlan {
  write: (tx: Transaction<DB>, onCommit: OnCommit) => Promise<SubscriptionOutcome>;
  respond: (outcome: SubscriptionOutcome) => SubscribeResult;
}

/** Every check of POST /users/me/subscriptions, before anything is written. */
export async function prepareSubscribe(services: Services, caller: User, realm: Realm, req: SubscribeRequest): Promise<SubscribePlan> {
  const { cache, database } = services;
  const o = req.options;
  if (caller.role === ROLE.guest) throw new NotAllowed('Not allowed for guest users');
  let graph = await cache.groupGraph(realm.id);
  let principals = req.exactPrincipals ? (req.principals ?? []) : req.principals?.length ? req.principals : [caller];
  // Zulip's is_subscribing_other_users compares each principal with the caller's id, so an address
  // (even the caller's own) counts as someone else.
  const named = req.namedPrincipals;
  const subscribingOthers = named ? named.raw.some((p) => p !== caller.id) : principals.some((p) => p.id !== caller.id);

  // add_subscriptions_backend looks the folder up before it checks the topics_policy permission,
  // and both before list_to_streams validates the names.
  if (o.folderId !== null) {
    // get_channel_folder_by_id finds archived folders too.
    if (!(await getChannelFolder(database.db, realm.id, o.folderId))) throw new BadRequest('Invalid channel folder ID');
  }
  if (o.topicsPolicy !== undefined && o.topicsPolicy !== 'inherit' && !isUserInGroup(graph, caller.id, realm.settings.can_set_topics_policy_group)) {
    throw new NotAllowed('Insufficient permission');
  }
  const specs = req.channels.map((spec) => ({ ...spec, name: validateChannelName(spec.name) }));

  const { existing, toCreate, specOf } = await existingAndNewChannels(database.db, realm.id, specs);
  // Groups the channels' settings or the request name that the cached graph lacks (made in another
  // process a moment ago) are read; when it has them all this costs no query.
  const requested = idsNamedBy(Object.values(o.groupSettings));
  graph = await cache.groupGraph(realm.id, [...requested.groupIds, ...existing.flatMap((s) => STREAM_GROUP_SETTINGS.map((key) => s[key]))]);
  // Zulip forces shared history on public channels and protects it by default on private ones.
  const history = o.inviteOnly ? (o.historyPublicToSubscribers ?? false) : true;
  if (toCreate.length) {
    if (o.isWebPublic && o.inviteOnly) throw new BadRequest('Invalid parameters');
    checkGroupSettings(graph, realm, caller, o, history);
    checkCreationPermissions(graph, realm, caller, o);
  }

  const callerSubs = await subscriptionsOf(database.db, caller.id, existing.map((s) => s.id));
  const unauthorized: Stream[] = [];
  const authorized: Stream[] = [];
  let cannotAdd = false;
  for (const stream of existing) {
    if (!channelAccess(graph, caller, stream, callerSubs.get(stream.id)?.active ?? false).content) unauthorized.push(stream);
    else if (subscribingOthers && !canAddSubscribers(graph, realm, caller, stream)) cannotAdd = true;
    else authorized.push(stream);
  }
  if (unauthorized.length && req.authorizationErrorsFatal) throw new BadRequest(`Unable to access channel (${unauthorized[0]!.name}).`);
  if (cannotAdd) throw new NotAllowed('Insufficient permission');
  if (named) principals = subscribingOthers ? await named.lookup() : [caller];

  const users = await cache.usersIncluding(realm.id, requested.userIds);
  const sendMessages = req.sendNewSubscriptionMessages ?? true;
  const createdMessages = toCreate.length > 0 && (req.channelCreatedMessages ?? true);
  // Fetched (or made) before the transaction: nobody is told of subscribing only themselves.
  const bot = (sendMessages && subscribingOthers) || (req.announce && toCreate.length) || createdMessages ? await notificationBot(services) : undefined;
  const renderedDescriptions = new Map<string, string>();
  for (const spec of toCreate) renderedDescriptions.set(spec.name, await renderChannelDescription(services, realm, caller, spec.description ?? ''));
  const createdBodies = bot && createdMessages
    ? await prepareChannelCreatedMessages(services, realm, bot, caller, toCreate.map((spec) => ({
      name: spec.name, description: spec.description ?? '', invite_only: o.inviteOnly, is_web_public: o.isWebPublic, history_public_to_subscribers: history,
    })))
    : new Map<string, PreparedBotMessage>();
  const now = nowSeconds();
  const write = async (tx: Transaction<DB>, onCommit: OnCommit): Promise<SubscriptionOutcome> => {
    const overlay = overlayGraph(graph);
    const created: Stream[] = [];
    for (const spec of toCreate) {
      const description = spec.description ?? '';
      const settings = await storeChannelGroupSettings(tx, overlay, new Set(users.keys()), realm.id, caller, o.groupSettings, now);
      const row: Omit<Stream, 'id' | 'first_message_id'> = {
        realm_id: realm.id,
        name: spec.name,
        description,
        rendered_description: renderedDescriptions.get(spec.name) ?? '',
        invite_only: o.inviteOnly,
        is_web_public: o.isWebPublic,
        history_public_to_subscribers: history,
        date_created: now,
        creator_id: caller.id,
        message_retention_days: o.messageRetentionDays,
        is_archived: false,
        folder_id: o.folderId,
        topics_policy: o.topicsPolicy ?? 'inherit',
        ...settings,
      };
      const id = await insertStream(tx, row);
      if (o.isDefaultStream) await setDefaultStream(tx, realm.id, id, true);
      created.push({ ...row, id, first_message_id: null });
      specOf.set(id, spec);
    }
    const requestedColors = new Map<number, string>();
    for (const stream of [...authorized, ...created]) {
      const color = specOf.get(stream.id)?.color;
      if (color !== undefined) requestedColors.set(stream.id, color);
    }
    const outcome = await writeSubscriptions(tx, realm.id, [...authorized, ...created], principals, requestedColors);
    const defaults = created.length && o.isDefaultStream ? await defaultStreamIds(tx, realm.id) : undefined;
    for (const e of subscriptionEvents(overlay, [...users.values()], created, outcome, defaults)) {
      publishAfterCommit(services, onCommit, { realmId: realm.id, userIds: e.userIds, event: e.event });
    }
    if (overlay.groups.size !== graph.groups.size) onCommit(() => cache.invalidateGroups(realm.id));
    if (bot) {
      const sendDirectMessages = sendMessages && newSubscriptionMessagesSent(outcome);
      await postSubscriptionNotices(services, tx, onCommit, {
        bot, actor: caller, realm, users, outcome, created, sendDirectMessages, announce: req.announce ?? false, createdMessages: createdBodies, graph,
      });
    }
    return outcome;
  };

  return { write, respond: (result) => subscribeResponse(req, principals, unauthorized, result) };
}

/** The names asked for, split into channels that exist and specs of channels to create (one per channel, whatever the case). */
async function existingAndNewChannels(
  db: Executor,
  realmId: number,
  named: ChannelSpec[],
): Promise<{ existing: Stream[]; toCreate: ChannelSpec[]; specOf: Map<number, ChannelSpec> }> {
  const { keys, byKey: found } = await getStreamsByNames(db, realmId, named.map((s) => s.name));
  // One entry per channel, whatever the case of the names asked for: the first spelling wins.
  const specs = new Map<string, ChannelSpec>();
  named.forEach((spec, i) => specs.has(keys[i]!) || specs.set(keys[i]!, spec));
  const existing: Stream[] = [];
  const toCreate: ChannelSpec[] = [];
  const specOf = new Map<number, ChannelSpec>();
  for (const [key, spec] of specs) {
    const stream = found.get(key);
    if (!stream) toCreate.push(spec);
    else {
      existing.push(stream);
      specOf.set(stream.id, spec);
    }
  }
  return { existing, toCreate, specOf };
}

/** Zulip's response body: channel names by user id, subscribed now or already. */
function subscribeResponse(req: SubscribeRequest, principals: User[], unauthorized: Stream[], result: SubscriptionOutcome): SubscribeResult {
  const out: SubscribeResult = { subscribed: {}, already_subscribed: {} };
  for (const p of principals) {
    for (const stream of result.targets) {
      const bucket = result.added.get(stream.id)?.has(p.id) ? out.subscribed : out.already_subscribed;
      (bucket[String(p.id)] ??= []).push(stream.name);
    }
  }
  if (!req.authorizationErrorsFatal) out.unauthorized = unauthorized.map((s) => s.name);
  // Zulip answers it whenever asked, true when few enough users were newly subscribed (even if nobody needed a message).
  if (req.sendNewSubscriptionMessages ?? true) out.new_subscription_messages_sent = newSubscriptionMessagesSent(result);
  return out;
}

/** A copy of the group graph that can take the anonymous groups a transaction creates. */
function overlayGraph(graph: GroupGraph): GroupGraph {
  return { groups: new Map(graph.groups), members: new Map(graph.members), subgroups: new Map(graph.subgroups), systemIds: graph.systemIds };
}

/** Stores each permission setting of a new channel (new anonymous groups also go into `overlay`). */
async function storeChannelGroupSettings(
  tx: Executor,
  overlay: GroupGraph,
  realmUserIds: ReadonlySet<number>,
  realmId: number,
  creator: User,
  given: Partial<Record<StreamGroupSetting, GroupSettingValue>>,
  now: number,
): Promise<Record<StreamGroupSetting, number>> {
  const defaults = defaultGroupSettings(overlay, creator);
  const out = {} as Record<StreamGroupSetting, number>;
  for (const key of STREAM_GROUP_SETTINGS) {
    const value = given[key] ?? defaults[key];
    const id = await storeGroupSettingValue(tx, overlay, realmUserIds, realmId, value, key, now, { allowInternet: false });
    if (!overlay.groups.has(id) && typeof value !== 'number') {
      overlay.groups.set(id, {
        id, realm_id: realmId, name: '', description: '', is_system_group: false, named: false, deactivated: false, date_created: now, creator_id: null,
        can_add_members_group: null, can_join_group: null, can_leave_group: null, can_manage_group: null, can_mention_group: null, can_remove_members_group: null,
      });
      overlay.members.set(id, new Set(value.direct_members));
      overlay.subgroups.set(id, [...value.direct_subgroups]);
    }
    out[key] = id;
  }
  return out;
}

/** Zulip's description of the channel a new organization starts with. */
const GENERAL_DESCRIPTION = 'Everyone is added to this channel by default. Welcome! :octopus:';

/** First start of a server: a default #general channel, public, with the owner subscribed. */
export async function createDefaultChannels(services: Services, realmId: number, ownerId: number): Promise<void> {
  const realm = await services.cache.realm(realmId);
  const owner = await services.cache.user(realmId, ownerId);
  if (!realm || !owner) throw new Error(`createDefaultChannels: no organization ${realmId} with owner ${ownerId}`);
  await createGeneralChannel(services, realm, owner);
}

/**
 * A new organization's #general, which (as in Zulip's do_create_realm) also becomes where new
 * channels and Zulip-update notices are announced.
 */
export async function createGeneralChannel(services: Services, realm: Realm, owner: User): Promise<void> {
  await createGeneralChannelOnly(services, realm, owner);
  const general = await getStreamByName(services.database.db, realm.id, 'general');
  const current = await services.cache.realm(realm.id);
  if (!general || !current) return;
  await updateRealmSettings(services, owner, current, [
    { kind: 'value', key: 'new_stream_announcements_stream_id', value: general.id },
    { kind: 'value', key: 'zulip_update_announcements_stream_id', value: general.id },
  ]);
}

async function createGeneralChannelOnly(services: Services, realm: Realm, owner: User): Promise<void> {
  await subscribeToChannels(services, owner, realm, {
    channels: [{ name: 'general', description: GENERAL_DESCRIPTION }],
    principals: undefined,
    authorizationErrorsFatal: true,
    sendNewSubscriptionMessages: false,
    channelCreatedMessages: false,
    options: {
      inviteOnly: false,
      isWebPublic: false,
      historyPublicToSubscribers: true,
      isDefaultStream: true,
      messageRetentionDays: null,
      topicsPolicy: undefined,
      folderId: null,
      groupSettings: {},
    },
  });
}
