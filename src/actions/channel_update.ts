// PATCH /streams/{stream_id} and archiving (DELETE /streams/{stream_id}): who may change what,
// every value checked, one transaction, a stream update event per changed property.
import type { Services } from '../services.js';
import { nowSeconds } from '../services.js';
import type { Realm } from '../store/realms.js';
import type { User } from '../store/users.js';
import { ROLE } from '../store/users.js';
import { channelHasNamedTopic, defaultStreamIds, getStream, getStreamByName, lockedStreamName, setDefaultStream, STREAM_GROUP_SETTINGS, subscriberIdsByStream, updateStream, type Stream, type StreamGroupSetting } from '../store/channels.js';
import { isUserInGroup } from '../store/cache.js';
import { BadRequest, InvalidStreamId, NotAllowed, AdminRequired, OwnerRequired } from '../errors.js';
import { channelAccess, isRealmAdmin } from '../access/channel_access.js';
import { groupSettingValue, idsNamedBy, sameGroupSettingValue, type GroupSettingValue } from '../access/group_settings.js';
import { storeGroupSettingValue } from './group_settings.js';
import { validateChannelDescription, validateChannelName } from './channels.js';
import { formatStream, STREAM_POST_POLICY, streamPostPolicy, usersWhoCanSee } from '../shapes/channels.js';
import { publishAfterCommit, type OnCommit } from '../events/publish.js';
import { streamUpdateEvent, type ConfabEvent } from '../events/types.js';
import type { Transaction } from 'kysely';
import type { DB } from '../store/schema.js';
import { renderChannelDescription } from './render_context.js';
import { getChannelFolder } from '../store/channel_folders.js';
import { onConflict } from '../store/conflicts.js';
import { unsetChannelSettings } from './realm_settings.js';
import { notificationBot } from './notification_bot.js';
import { prepareBotMessage, type PreparedBotMessage } from './bot_messages.js';
import {
  archivedMarkdown,
  descriptionChangedMarkdown,
  permissionChangedMarkdown,
  postChannelEventNotice,
  renamedMarkdown,
  retentionChangedMarkdown,
  topicsPolicyChangedMarkdown,
  unarchivedMarkdown,
} from './channel_event_notices.js';

export interface ChannelUpdate {
  description?: string;
  newName?: string;
  isPrivate?: boolean;
  isWebPublic?: boolean;
  historyPublicToSubscribers?: boolean;
  isDefaultStream?: boolean;
  /** null: the organization's default; -1: unlimited. */
  messageRetentionDays?: number | null;
  isArchived?: boolean;
  topicsPolicy?: string;
  /** A folder's id, or null to take the channel out of its folder. */
  folderId?: number | null;
  groupSettings: Partial<Record<StreamGroupSetting, { new: GroupSettingValue; old?: GroupSettingValue }>>;
}

/** Settings whose groups may see the channel (Zulip's stream_permission_group_settings_granting_metadata_access). */
const METADATA_GRANTING: ReadonlySet<StreamGroupSetting> = new Set(['can_add_subscribers_group', 'can_administer_channel_group', 'can_subscribe_group']);

/** Settings that only need metadata access to change (the founding document's exception). */
const METADATA_ONLY: ReadonlySet<StreamGroupSetting> = new Set(['can_remove_subscribers_group']);

type GroupSettingUpdate = { new: GroupSettingValue; old?: GroupSettingValue };
type GroupGraph = Awaited<ReturnType<Services['cache']['groupGraph']>>;

/** What the checks found: the channel, its subscribers and the caller's view of it. */
interface UpdateContext {
  stream: Stream;
  graph: GroupGraph;
  subscribers: number[];
}

/** The planned change: new column values (group settings are stored at write time) and the default-channel flip. */
interface UpdatePlan {
  changes: Partial<Stream>;
  defaultChange: boolean;
  /** is_private, is_web_public or history_public_to_subscribers named: Zulip's do_change_stream_permission runs, changed or not. */
  permissionNamed: boolean;
}

/** The Notification Bot's notices this update posts in the channel's events topic, prepared before its transaction. */
interface UpdateNotices {
  bot: User;
  permission?: PreparedBotMessage;
  retention?: PreparedBotMessage;
  unarchived?: PreparedBotMessage;
  topicsPolicy?: PreparedBotMessage;
  description?: PreparedBotMessage;
  rename?: PreparedBotMessage;
}

/** Zulip's texts for what the plan changes, each rendered with what its text links and mentions. */
async function prepareUpdateNotices(services: Services, caller: User, realm: Realm, stream: Stream, { changes, permissionNamed }: UpdatePlan): Promise<UpdateNotices> {
  const bot = await notificationBot(services, realm.id);
  const prepare = (markdown: string) => prepareBotMessage(services, realm, bot, markdown);
  const notices: UpdateNotices = { bot };
  if (permissionNamed) notices.permission = await prepare(permissionChangedMarkdown(caller, stream, { ...stream, ...changes }));
  if (changes.message_retention_days !== undefined) {
    notices.retention = await prepare(retentionChangedMarkdown(caller, stream.message_retention_days, changes.message_retention_days, realm.settings.message_retention_days));
  }
  if (changes.is_archived === false) notices.unarchived = await prepare(unarchivedMarkdown(stream.name));
  if (changes.topics_policy !== undefined) notices.topicsPolicy = await prepare(topicsPolicyChangedMarkdown(caller, stream.topics_policy, changes.topics_policy));
  if (changes.description !== undefined) notices.description = await prepare(descriptionChangedMarkdown(caller, stream.description, changes.description));
  if (changes.name !== undefined) notices.rename = await prepare(renamedMarkdown(caller, stream.name, changes.name));
  return notices;
}

export async function updateChannel(services: Services, caller: User, realm: Realm, streamId: number, u: ChannelUpdate): Promise<void> {
  const context = await checkChannelUpdate(services, caller, realm, streamId, u);
  const plan = await planChannelUpdate(services, caller, realm, context, u);
  // Members a new group-setting value names that the cache lacks (made elsewhere a moment ago) are read.
  const users = await services.cache.usersIncluding(realm.id, idsNamedBy(Object.values(u.groupSettings).map((update) => update?.new)).userIds);
  const notices = await prepareUpdateNotices(services, caller, realm, context.stream, plan);
  const renamedTo = plan.changes.name;
  // Another rename to the same name may commit first: the index refuses this one, as the check in the plan would have.
  await onConflict(
    services.database.transaction((tx, onCommit) => writeChannelUpdate(services, tx, onCommit, realm, users, context, plan, u, notices)),
    () => (renamedTo !== undefined ? new BadRequest(`Channel '${renamedTo}' already exists`) : undefined),
  );
}

/** Check: the channel exists for the caller, who may administer it (with content access where the settings need it). */
async function checkChannelUpdate(services: Services, caller: User, realm: Realm, streamId: number, u: ChannelUpdate): Promise<UpdateContext> {
  const db = services.database.db;
  const stream = await getStream(db, realm.id, streamId);
  if (!stream) throw new InvalidStreamId();
  // The channel's groups and those the new values name, read if the cached graph lacks them.
  const named = idsNamedBy(Object.values(u.groupSettings).map((update) => update?.new));
  const graph = await services.cache.groupGraph(realm.id, [...STREAM_GROUP_SETTINGS.map((key) => stream[key]), ...named.groupIds]);
  const subscribers = (await subscriberIdsByStream(db, [stream.id])).get(stream.id) ?? [];
  const access = channelAccess(graph, caller, stream, subscribers.includes(caller.id));
  if (!access.metadata) throw new InvalidStreamId();
  const canAdminister = isRealmAdmin(caller) || isUserInGroup(graph, caller.id, stream.can_administer_channel_group);
  if (!canAdminister) throw new NotAllowed('You do not have permission to administer this channel.');
  // Changing a private channel's permissions needs content access (an administrator must be
  // subscribed), except for the settings the founding document lets metadata access change. Its
  // name and description are not permissions: as Zulip's update_stream_backend, metadata access
  // (an organization or channel administrator) may change them.
  const needsContent =
    u.isPrivate !== undefined ||
    u.isWebPublic !== undefined ||
    u.historyPublicToSubscribers !== undefined ||
    u.topicsPolicy !== undefined ||
    Object.keys(u.groupSettings).some((k) => !METADATA_ONLY.has(k as StreamGroupSetting));
  // Zulip's text for the changes that need content access; the caller may administer the channel,
  // so it sees the channel anyway.
  if (needsContent && !access.content) throw new BadRequest('Channel content access is required.');
  return { stream, graph, subscribers };
}

/** Plan: validates every value and computes the columns that change (in the order Zulip reports errors). */
async function planChannelUpdate(services: Services, caller: User, realm: Realm, context: UpdateContext, u: ChannelUpdate): Promise<UpdatePlan> {
  const db = services.database.db;
  const { stream, graph } = context;
  const changes: Partial<Stream> = {};
  // As Zulip's update_stream_backend: is_archived=true does nothing (archiving is DELETE), and
  // false unarchives, which do_unarchive_stream refuses for a channel that is not archived.
  if (u.isArchived === false) {
    if (!stream.is_archived) throw new BadRequest('Channel is not currently deactivated');
    changes.is_archived = false;
  }
  if (u.description !== undefined) {
    changes.description = validateChannelDescription(u.description);
    changes.rendered_description = await renderChannelDescription(services, realm, caller, changes.description);
  }
  if (u.newName !== undefined) {
    // Zulip's update_stream_backend refuses the channel's own name (a change of case is a rename).
    if (u.newName.trim() === stream.name) throw new BadRequest('Channel already has that name.');
    const name = validateChannelName(u.newName);
    const clash = await getStreamByName(db, realm.id, name);
    if (clash && clash.id !== stream.id) throw new BadRequest(`Channel '${name}' already exists`);
    if (name !== stream.name) changes.name = name;
  }
  const defaults = new Set(await defaultStreamIds(db, realm.id));
  planPrivacy(caller, realm, context, u, changes, defaults.has(stream.id));
  if (u.messageRetentionDays !== undefined) {
    if (caller.role !== ROLE.owner) throw new OwnerRequired();
    // Zulip's do_change_stream_message_retention_days runs (event and notice) even for the same value.
    changes.message_retention_days = u.messageRetentionDays;
  }
  if (u.topicsPolicy !== undefined && u.topicsPolicy !== stream.topics_policy) {
    if (u.topicsPolicy === 'empty_topic_only' && (await channelHasNamedTopic(db, stream.id))) {
      throw new BadRequest('To enable this configuration, all messages in this channel must be in the general chat topic. Consider renaming or deleting other topics.');
    }
    changes.topics_policy = u.topicsPolicy;
  }
  if (u.folderId !== undefined && u.folderId !== stream.folder_id) {
    if (u.folderId !== null) {
      const folder = await getChannelFolder(db, realm.id, u.folderId);
      if (!folder || folder.is_archived) throw new BadRequest('Invalid channel folder ID');
    }
    changes.folder_id = u.folderId;
  }
  for (const [key, update] of Object.entries(u.groupSettings) as Array<[StreamGroupSetting, GroupSettingUpdate]>) {
    if (update.old !== undefined && !sameGroupSettingValue(update.old, groupSettingValue(graph, stream[key]))) {
      throw new BadRequest("'old' value does not match the expected value.");
    }
  }
  const defaultChange = u.isDefaultStream !== undefined && u.isDefaultStream !== defaults.has(stream.id);
  if (defaultChange && !isRealmAdmin(caller)) throw new AdminRequired();
  const permissionNamed = u.isPrivate !== undefined || u.isWebPublic !== undefined || u.historyPublicToSubscribers !== undefined;
  return { changes, defaultChange, permissionNamed };
}

/**
 * Plans invite_only, is_web_public and history_public_to_subscribers together, as Zulip's
 * update_stream_backend: each unnamed property keeps its value (a history unnamed follows a new
 * privacy: private channels protect it, public ones share it), the proposed state must be
 * consistent ('Invalid parameters'; a default channel cannot be private), and naming a privacy
 * needs the right to create channels of that kind, whether or not it changes.
 */
function planPrivacy(caller: User, realm: Realm, { stream, graph }: UpdateContext, u: ChannelUpdate, changes: Partial<Stream>, isDefault: boolean): void {
  const inviteOnly = u.isPrivate ?? stream.invite_only;
  const webPublic = u.isWebPublic ?? stream.is_web_public;
  const history = u.historyPublicToSubscribers ?? (u.isPrivate !== undefined ? !u.isPrivate : stream.history_public_to_subscribers);
  if (webPublic && !history) throw new BadRequest('Invalid parameters');
  if (webPublic && inviteOnly) throw new BadRequest('Invalid parameters');
  if (!inviteOnly && !history) throw new BadRequest('Invalid parameters');
  if (inviteOnly && (u.isDefaultStream ?? isDefault)) throw new BadRequest('A default channel cannot be private.');
  if (!inviteOnly && realm.settings.moderation_request_channel_id === stream.id) throw new BadRequest('Moderation request channel must be private.');
  if (u.isPrivate !== undefined) {
    const group = u.isPrivate ? realm.settings.can_create_private_channel_group : realm.settings.can_create_public_channel_group;
    if (!isUserInGroup(graph, caller.id, group)) throw new NotAllowed('Insufficient permission');
  }
  if (u.isWebPublic) {
    if (!realm.settings.enable_spectator_access) throw new BadRequest('Web-public channels are not enabled.');
    if (!isUserInGroup(graph, caller.id, realm.settings.can_create_web_public_channel_group)) throw new NotAllowed('Insufficient permission');
  }
  if (u.historyPublicToSubscribers === false && stream.can_create_topic_group !== graph.systemIds['role:everyone']) {
    throw new BadRequest('Invalid parameters');
  }
  if (inviteOnly !== stream.invite_only) changes.invite_only = inviteOnly;
  if (webPublic !== stream.is_web_public) changes.is_web_public = webPublic;
  if (history !== stream.history_public_to_subscribers) changes.history_public_to_subscribers = history;
}

/** Write: stores the group settings and the planned columns in the caller's transaction, events after commit. */
async function writeChannelUpdate(
  services: Services,
  tx: Transaction<DB>,
  onCommit: OnCommit,
  realm: Realm,
  users: Map<number, User>,
  { stream, graph, subscribers }: UpdateContext,
  { changes, defaultChange, permissionNamed }: UpdatePlan,
  u: ChannelUpdate,
  notices: UpdateNotices,
): Promise<void> {
  // Renames racing each other were planned against the old name; the first to commit wins, and
  // the others, now renaming the channel to what it is called, get the sequential answer.
  if (changes.name !== undefined && (await lockedStreamName(tx, services.database.dialect, stream.id)) === changes.name) {
    throw new BadRequest('Channel already has that name.');
  }
  const now = nowSeconds();
  const groupChanges: Partial<Record<StreamGroupSetting, number>> = {};
  // The graph as it will be, with the anonymous groups the new values make (for the events' audiences and values).
  const eventGraph: GroupGraph = { ...graph, groups: new Map(graph.groups), members: new Map(graph.members), subgroups: new Map(graph.subgroups) };
  for (const [key, update] of Object.entries(u.groupSettings) as Array<[StreamGroupSetting, GroupSettingUpdate]>) {
    const id = await storeGroupSettingValue(tx, graph, new Set(users.keys()), realm.id, update.new, key, now, { allowInternet: false });
    if (!graph.groups.has(id) && typeof update.new !== 'number') {
      const template = graph.groups.get(graph.systemIds['role:nobody'])!;
      eventGraph.groups.set(id, { ...template, id, named: false, is_system_group: false, name: '', description: '' });
      eventGraph.members.set(id, new Set(update.new.direct_members));
      eventGraph.subgroups.set(id, [...update.new.direct_subgroups]);
    }
    if (id !== stream[key]) groupChanges[key] = id;
  }
  const all = { ...changes, ...groupChanges };
  await updateStream(tx, stream.id, all);
  if (defaultChange) await setDefaultStream(tx, realm.id, stream.id, u.isDefaultStream!);
  const after: Stream = { ...stream, ...all };
  // Zulip's update_stream_backend applies the changes one by one, each with its events, in this
  // order; each goes to those who can see the channel at that step. Events before the rename (and
  // the rename's own) carry the old name, later ones the new.
  const subs = new Set(subscribers);
  const activeSubscribers = subscribers.filter((id) => users.get(id)?.is_active);
  const see = (s: Stream) => usersWhoCanSee(eventGraph, users.values(), s, subs);
  const publish = (userIds: number[], event: ConfabEvent) => {
    if (userIds.length) publishAfterCommit(services, onCommit, { realmId: realm.id, userIds, event });
  };
  /** Those who now see the channel and could not before get it whole, then its subscribers (peer_add). */
  const announce = (userIds: number[], s: Stream) => {
    publish(userIds, { type: 'stream', op: 'create', streams: [formatStream(s, eventGraph, activeSubscribers.length)] });
    publish(userIds, { type: 'subscription', op: 'peer_add', stream_ids: [s.id], user_ids: [...activeSubscribers] });
  };
  let current: Stream = stream;
  let audience = see(current);
  const emit = (name: string, property: string, value: unknown, extra?: Parameters<typeof streamUpdateEvent>[3]) =>
    publish(audience, streamUpdateEvent({ id: stream.id, name }, property, value, extra));
  const oldName = stream.name;
  // The channel as each step leaves it: each step's notice follows its events, in the channel as it is then.
  let state: Stream = stream;
  const notice = async (n: PreparedBotMessage | undefined) => {
    if (n) await postChannelEventNotice(services, tx, onCommit, { bot: notices.bot, realm, users, stream: state, notice: n });
  };
  if (permissionNamed) {
    // do_change_stream_permission: a private channel made public is announced (create, peer_add) to
    // those who could not see it; the update goes to everyone else who can see it now.
    current = { ...current, invite_only: after.invite_only, is_web_public: after.is_web_public, history_public_to_subscribers: after.history_public_to_subscribers };
    const before = new Set(audience);
    audience = see(current);
    const gaining = stream.invite_only && !current.invite_only ? audience.filter((id) => !before.has(id)) : [];
    announce(gaining, current);
    const announced = new Set(gaining);
    publish(
      audience.filter((id) => !announced.has(id)),
      streamUpdateEvent({ id: stream.id, name: oldName }, 'invite_only', current.invite_only, {
        history_public_to_subscribers: current.history_public_to_subscribers,
        is_web_public: current.is_web_public,
      }),
    );
    state = { ...state, invite_only: current.invite_only, is_web_public: current.is_web_public, history_public_to_subscribers: current.history_public_to_subscribers };
    await notice(notices.permission);
  }
  if (defaultChange) {
    const ids = await defaultStreamIds(tx, realm.id);
    // Like Zulip, only non-guests hear about the default channels.
    const nonGuests = [...users.values()].filter((x) => x.is_active && x.role !== ROLE.guest).map((x) => x.id);
    publish(nonGuests, { type: 'default_streams', default_streams: ids });
  }
  if (changes.message_retention_days !== undefined) {
    emit(oldName, 'message_retention_days', changes.message_retention_days);
    state = { ...state, message_retention_days: changes.message_retention_days };
    await notice(notices.retention);
  }
  if (changes.is_archived === false) {
    // do_unarchive_stream: the update, then the channel whole (for_unarchiving) for clients that did not list it while archived.
    emit(oldName, 'is_archived', false);
    if (audience.length) {
      const event: ConfabEvent = { type: 'stream', op: 'create', streams: [formatStream({ ...current, is_archived: false }, eventGraph, activeSubscribers.length)] };
      publishAfterCommit(services, onCommit, { realmId: realm.id, userIds: audience, event, channelArchiving: true });
    }
    state = { ...state, is_archived: false };
    await notice(notices.unarchived);
  }
  if (changes.topics_policy !== undefined) {
    emit(oldName, 'topics_policy', changes.topics_policy);
    state = { ...state, topics_policy: changes.topics_policy };
    // do_set_stream_property sends its notice without archived_channel_notice: to an archived channel Zulip's send fails (logged), and nothing is posted.
    if (!state.is_archived) await notice(notices.topicsPolicy);
  }
  if (changes.description !== undefined) {
    emit(oldName, 'description', changes.description, { rendered_description: changes.rendered_description });
    state = { ...state, description: changes.description, rendered_description: changes.rendered_description! };
    await notice(notices.description);
  }
  // do_rename_stream: `name` is the channel's old name, `value` the new one.
  if (changes.name !== undefined) {
    emit(oldName, 'name', changes.name);
    state = { ...state, name: changes.name };
    await notice(notices.rename);
  }
  current = { ...after, ...Object.fromEntries(STREAM_GROUP_SETTINGS.map((key) => [key, stream[key]])) };
  if (changes.folder_id !== undefined) emit(after.name, 'folder_id', changes.folder_id);
  for (const key of Object.keys(u.groupSettings) as StreamGroupSetting[]) {
    const id = groupChanges[key];
    if (id === undefined) continue;
    // do_change_stream_group_based_setting: the value as stored (an anonymous value naming one group is that group).
    const event = streamUpdateEvent({ id: stream.id, name: after.name }, key, groupSettingValue(eventGraph, id));
    const previous = current;
    current = { ...current, [key]: id };
    if (METADATA_GRANTING.has(key)) {
      // Who gains sight of the channel gets it whole; who loses it, a delete; the rest the update.
      const before = new Set(audience);
      audience = see(current);
      const seeing = new Set(audience);
      const gaining = audience.filter((x) => !before.has(x));
      publish(audience.filter((x) => before.has(x)), event);
      announce(gaining, current);
      publish([...before].filter((x) => !seeing.has(x)), { type: 'stream', op: 'delete', streams: [{ stream_id: stream.id }], stream_ids: [stream.id] });
    } else {
      publish(audience, event);
    }
    if (key === 'can_send_message_group') {
      // The legacy stream_post_policy (and is_announcement_only) events, when the derived value changes.
      const oldPolicy = streamPostPolicy(eventGraph, previous.can_send_message_group);
      const newPolicy = streamPostPolicy(eventGraph, id);
      if (oldPolicy !== newPolicy) {
        emit(after.name, 'stream_post_policy', newPolicy);
        emit(after.name, 'is_announcement_only', newPolicy === STREAM_POST_POLICY.admins);
      }
    }
  }
  onCommit(() => services.cache.invalidateGroups(realm.id));
}

/** DELETE /streams/{stream_id}: archives the channel (its messages stay readable). */
export async function archiveChannel(services: Services, caller: User, realm: Realm, streamId: number): Promise<void> {
  const db = services.database.db;
  const stream = await getStream(db, realm.id, streamId);
  if (!stream) throw new InvalidStreamId();
  const graph = await services.cache.groupGraph(realm.id);
  const subscribers = (await subscriberIdsByStream(db, [stream.id])).get(stream.id) ?? [];
  if (!channelAccess(graph, caller, stream, subscribers.includes(caller.id)).metadata) throw new InvalidStreamId();
  if (!isRealmAdmin(caller) && !isUserInGroup(graph, caller.id, stream.can_administer_channel_group)) {
    throw new NotAllowed('You do not have permission to administer this channel.');
  }
  if (stream.is_archived) throw new BadRequest('Channel is already deactivated');
  const users = await services.cache.users(realm.id);
  const bot = await notificationBot(services, realm.id);
  const archivedNotice = await prepareBotMessage(services, realm, bot, archivedMarkdown(stream.name));
  await services.database.transaction(async (tx, onCommit) => {
    await updateStream(tx, stream.id, { is_archived: true });
    // maybe_set_moderation_or_announcement_channels_none: realm settings naming the channel are unset (-1), in one update_dict event.
    await unsetChannelSettings(services, tx, onCommit, realm.id, stream.id, [...users.values()].filter((u) => u.is_active).map((u) => u.id));
    const wasDefault = (await defaultStreamIds(tx, realm.id)).includes(stream.id);
    if (wasDefault) {
      // do_deactivate_stream removes a default channel with do_remove_default_stream, whose event non-guests get.
      await setDefaultStream(tx, realm.id, stream.id, false);
      const nonGuests = [...users.values()].filter((x) => x.is_active && x.role !== ROLE.guest).map((x) => x.id);
      publishAfterCommit(services, onCommit, { realmId: realm.id, userIds: nonGuests, event: { type: 'default_streams', default_streams: await defaultStreamIds(tx, realm.id) } });
    }
    const audience = usersWhoCanSee(graph, users.values(), stream, new Set(subscribers));
    publishAfterCommit(services, onCommit, {
      realmId: realm.id,
      userIds: audience,
      event: streamUpdateEvent(stream, 'is_archived', true),
    });
    // send_stream_deletion_event(for_archiving=True): clients that do not list archived channels drop it.
    publishAfterCommit(services, onCommit, {
      realmId: realm.id,
      userIds: audience,
      event: { type: 'stream', op: 'delete', streams: [{ stream_id: stream.id }], stream_ids: [stream.id] },
      channelArchiving: true,
    });
    // do_deactivate_stream's notice (archived_channel_notice), read for everyone (limit_unread_user_ids=set()).
    await postChannelEventNotice(services, tx, onCommit, { bot, realm, users, stream: { ...stream, is_archived: true }, notice: archivedNotice, allRead: true });
  });
}

