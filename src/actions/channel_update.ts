// PATCH /streams/{stream_id} and archiving (DELETE /streams/{stream_id}): who may change what,
// every value checked, one transaction, a stream update event per changed property.
import type { Services } from '../services.js';
import type { Realm } from '../store/realms.js';
import type { User } from '../store/users.js';
import { ROLE } from '../store/users.js';
import { channelHasNamedTopic, defaultStreamIds, getStream, getStreamByName, setDefaultStream, STREAM_GROUP_SETTINGS, subscriberIdsByStream, updateStream, type Stream, type StreamGroupSetting } from '../store/channels.js';
import { isUserInGroup } from '../store/cache.js';
import { BadRequest, InvalidStreamId, NotAllowed, OwnerRequired } from '../errors.js';
import { channelAccess, isRealmAdmin } from '../access/channel_access.js';
import { groupSettingValue, idsNamedBy, sameGroupSettingValue, type GroupSettingValue } from '../access/group_settings.js';
import { validateChannelDescription, validateChannelName } from './channels.js';
import { usersWhoCanSee } from '../shapes/channels.js';
import { publishAfterCommit } from '../events/publish.js';
import { streamUpdateEvent } from '../events/types.js';
import { renderChannelDescription } from './render_context.js';
import { getChannelFolder } from '../store/channel_folders.js';
import { onConflict } from '../store/conflicts.js';
import { unsetChannelSettings } from './realm_settings.js';
import { publishDefaultStreams } from './default_streams.js';
import { notificationBot } from './notification_bot.js';
import { prepareBotMessage } from './bot_messages.js';
import {
  archivedMarkdown,
  descriptionChangedMarkdown,
  groupSettingDescription,
  permissionChangedMarkdown,
  postChannelEventNotice,
  postingPermissionChangedMarkdown,
  renamedMarkdown,
  retentionChangedMarkdown,
  topicsPolicyChangedMarkdown,
  unarchivedMarkdown,
} from './channel_event_notices.js';
import { writeChannelUpdate, type GroupSettingUpdate, type UpdateContext, type UpdateNotices, type UpdatePlan } from './channel_update_write.js';

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

/** Settings that only need metadata access to change (the founding document's exception). */
const METADATA_ONLY: ReadonlySet<StreamGroupSetting> = new Set(['can_remove_subscribers_group']);

/** Zulip's texts for what the plan changes, each rendered with what its text links and mentions. */
async function prepareUpdateNotices(
  services: Services,
  caller: User,
  realm: Realm,
  { stream, graph }: UpdateContext,
  { changes, permissionNamed }: UpdatePlan,
  u: ChannelUpdate,
  users: Map<number, User>,
): Promise<UpdateNotices> {
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
  const posting = u.groupSettings.can_send_message_group;
  if (posting) {
    const before = groupSettingDescription(graph, users, groupSettingValue(graph, stream.can_send_message_group));
    notices.postingPermission = await prepare(postingPermissionChangedMarkdown(caller, before, groupSettingDescription(graph, users, posting.new)));
  }
  return notices;
}

export async function updateChannel(services: Services, caller: User, realm: Realm, streamId: number, u: ChannelUpdate): Promise<void> {
  const context = await checkChannelUpdate(services, caller, realm, streamId, u);
  const plan = await planChannelUpdate(services, caller, realm, context, u);
  // Members a new group-setting value names that the cache lacks (made elsewhere a moment ago) are read.
  const users = await services.cache.usersIncluding(realm.id, idsNamedBy(Object.values(u.groupSettings).map((update) => update?.new)).userIds);
  const notices = await prepareUpdateNotices(services, caller, realm, context, plan, u, users);
  const renamedTo = plan.changes.name;
  // Another rename to the same name may commit first: the index refuses this one, as the check in the plan would have.
  await onConflict(
    services.database.transaction((tx, onCommit) => writeChannelUpdate(services, tx, onCommit, realm, users, context, plan, u.groupSettings, u.isDefaultStream, notices)),
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
  // name, description and topics policy are not permissions: as Zulip's update_stream_backend,
  // metadata access (an organization or channel administrator) may change them.
  const needsContent =
    u.isPrivate !== undefined ||
    u.isWebPublic !== undefined ||
    u.historyPublicToSubscribers !== undefined ||
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
  // update_stream_backend asks can_manage_default_streams (administrators) whenever
  // is_default_stream is given, changed or not, right after the privacy checks.
  if (u.isDefaultStream !== undefined && !isRealmAdmin(caller)) throw new NotAllowed('You do not have permission to change default channels.');
  if (u.messageRetentionDays !== undefined) {
    if (caller.role !== ROLE.owner) throw new OwnerRequired();
    // Zulip's do_change_stream_message_retention_days runs (event and notice) even for the same value.
    changes.message_retention_days = u.messageRetentionDays;
  }
  // Zulip's validate_topics_policy asks can_set_topics_policy of any policy but inherit, changed or not.
  if (u.topicsPolicy !== undefined && u.topicsPolicy !== 'inherit' && !isUserInGroup(graph, caller.id, realm.settings.can_set_topics_policy_group)) {
    throw new NotAllowed('Insufficient permission');
  }
  if (u.topicsPolicy !== undefined && u.topicsPolicy !== stream.topics_policy) {
    if (u.topicsPolicy === 'empty_topic_only' && (await channelHasNamedTopic(db, stream.id))) {
      throw new BadRequest('To enable this configuration, all messages in this channel must be in the general chat topic. Consider renaming or deleting other topics.');
    }
    changes.topics_policy = u.topicsPolicy;
  }
  // do_change_stream_folder runs (its event too) whenever folder_id is given, even unchanged.
  if (u.folderId !== undefined) {
    if (u.folderId !== null) {
      // get_channel_folder_by_id finds archived folders too: a channel may be moved into one.
      if (!(await getChannelFolder(db, realm.id, u.folderId))) throw new BadRequest('Invalid channel folder ID');
    }
    changes.folder_id = u.folderId;
  }
  for (const [key, update] of Object.entries(u.groupSettings) as Array<[StreamGroupSetting, GroupSettingUpdate]>) {
    if (update.old !== undefined && !sameGroupSettingValue(update.old, groupSettingValue(graph, stream[key]))) {
      throw new BadRequest("'old' value does not match the expected value.");
    }
  }
  const defaultChange = u.isDefaultStream !== undefined && u.isDefaultStream !== defaults.has(stream.id);
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
      await publishDefaultStreams(services, tx, onCommit, realm.id, users.values());
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

