// The write half of PATCH /streams/{stream_id} (actions/channel_update.ts checks and plans): the
// group settings and columns stored in one transaction, then Zulip's steps one by one, each with
// its events (to those who see the channel at that step) and its Notification Bot notice.
import type { Transaction } from 'kysely';
import type { DB } from '../store/schema.js';
import type { Services } from '../services.js';
import { nowSeconds } from '../services.js';
import type { Realm } from '../store/realms.js';
import type { User } from '../store/users.js';
import { lockedStreamName, setDefaultStream, STREAM_GROUP_SETTINGS, updateStream, type Stream, type StreamGroupSetting } from '../store/channels.js';
import { BadRequest } from '../errors.js';
import { groupSettingValue, type GroupSettingValue } from '../access/group_settings.js';
import { storeGroupSettingValue } from './group_settings.js';
import { formatStream, STREAM_POST_POLICY, streamPostPolicy, usersWhoCanSee } from '../shapes/channels.js';
import { publishAfterCommit, type OnCommit } from '../events/publish.js';
import { streamUpdateEvent, type ConfabEvent } from '../events/types.js';
import type { PreparedBotMessage } from './bot_messages.js';
import { postChannelEventNotice } from './channel_event_notices.js';
import { publishDefaultStreams } from './default_streams.js';

export type GroupSettingUpdate = { new: GroupSettingValue; old?: GroupSettingValue };
export type GroupGraph = Awaited<ReturnType<Services['cache']['groupGraph']>>;

/** What the checks found: the channel, its subscribers and the caller's view of it. */
export interface UpdateContext {
  stream: Stream;
  graph: GroupGraph;
  subscribers: number[];
}

/** The planned change: new column values (group settings are stored at write time) and the default-channel flip. */
export interface UpdatePlan {
  changes: Partial<Stream>;
  defaultChange: boolean;
  /** is_private, is_web_public or history_public_to_subscribers named: Zulip's do_change_stream_permission runs, changed or not. */
  permissionNamed: boolean;
}

/** The Notification Bot's notices this update posts in the channel's events topic, prepared before its transaction. */
export interface UpdateNotices {
  bot: User;
  permission?: PreparedBotMessage;
  retention?: PreparedBotMessage;
  unarchived?: PreparedBotMessage;
  topicsPolicy?: PreparedBotMessage;
  description?: PreparedBotMessage;
  rename?: PreparedBotMessage;
  /** can_send_message_group's notice, posted when its step runs (the stored value changes). */
  postingPermission?: PreparedBotMessage;
}

/** Settings whose groups may see the channel (Zulip's stream_permission_group_settings_granting_metadata_access). */
const METADATA_GRANTING: ReadonlySet<StreamGroupSetting> = new Set(['can_add_subscribers_group', 'can_administer_channel_group', 'can_subscribe_group']);

/**
 * What the steps share. As Zulip's update_stream_backend changes one Stream object step by step,
 * `state` is the channel as the steps so far leave it: events and notices describe it, and
 * `audience` is who can see it.
 */
interface Steps {
  services: Services;
  tx: Transaction<DB>;
  onCommit: OnCommit;
  realm: Realm;
  users: Map<number, User>;
  notices: UpdateNotices;
  /** The graph as it will be, with the anonymous groups the new values make (for audiences and values). */
  graph: GroupGraph;
  subscribers: Set<number>;
  activeSubscribers: number[];
  state: Stream;
  audience: number[];
}

/** Write: stores the group settings and the planned columns in the caller's transaction, events after commit. */
export async function writeChannelUpdate(
  services: Services,
  tx: Transaction<DB>,
  onCommit: OnCommit,
  realm: Realm,
  users: Map<number, User>,
  { stream, graph, subscribers }: UpdateContext,
  { changes, defaultChange, permissionNamed }: UpdatePlan,
  groupSettings: Partial<Record<StreamGroupSetting, GroupSettingUpdate>>,
  isDefaultStream: boolean | undefined,
  notices: UpdateNotices,
): Promise<void> {
  // Renames racing each other were planned against the old name; the first to commit wins, and
  // the others, now renaming the channel to what it is called, get the sequential answer.
  if (changes.name !== undefined && (await lockedStreamName(tx, services.database.dialect, stream.id)) === changes.name) {
    throw new BadRequest('Channel already has that name.');
  }
  const stored = await storeGroupSettings(tx, realm, users, graph, stream, groupSettings);
  await updateStream(tx, stream.id, { ...changes, ...stored.groupChanges });
  if (defaultChange) await setDefaultStream(tx, realm.id, stream.id, isDefaultStream!);
  const s: Steps = {
    services,
    tx,
    onCommit,
    realm,
    users,
    notices,
    graph: stored.eventGraph,
    subscribers: new Set(subscribers),
    activeSubscribers: subscribers.filter((id) => users.get(id)?.is_active),
    state: stream,
    audience: [],
  };
  s.audience = see(s);
  // Zulip's update_stream_backend applies the changes one by one, each with its events, in this order.
  if (permissionNamed) await permissionStep(s, changes);
  if (defaultChange) await publishDefaultStreams(services, tx, onCommit, realm.id, users.values());
  await propertySteps(s, changes);
  if (changes.folder_id !== undefined) {
    emit(s, 'folder_id', changes.folder_id);
    s.state = { ...s.state, folder_id: changes.folder_id };
  }
  await groupSettingSteps(s, ZULIP_SETTING_ORDER.filter((key) => key in groupSettings), stored.groupChanges);
  onCommit(() => services.cache.invalidateGroups(realm.id));
}

/** Stores each group setting's value (an anonymous value becomes a group); the ids that changed, and the graph with the new groups. */
async function storeGroupSettings(
  tx: Transaction<DB>,
  realm: Realm,
  users: Map<number, User>,
  graph: GroupGraph,
  stream: Stream,
  groupSettings: Partial<Record<StreamGroupSetting, GroupSettingUpdate>>,
): Promise<{ groupChanges: Partial<Record<StreamGroupSetting, number>>; eventGraph: GroupGraph }> {
  const now = nowSeconds();
  const groupChanges: Partial<Record<StreamGroupSetting, number>> = {};
  const eventGraph: GroupGraph = { ...graph, groups: new Map(graph.groups), members: new Map(graph.members), subgroups: new Map(graph.subgroups) };
  for (const [key, update] of Object.entries(groupSettings) as Array<[StreamGroupSetting, GroupSettingUpdate]>) {
    const id = await storeGroupSettingValue(tx, graph, new Set(users.keys()), realm.id, update.new, key, now, { allowInternet: false });
    if (!graph.groups.has(id) && typeof update.new !== 'number') {
      const template = graph.groups.get(graph.systemIds['role:nobody'])!;
      eventGraph.groups.set(id, { ...template, id, named: false, is_system_group: false, name: '', description: '' });
      eventGraph.members.set(id, new Set(update.new.direct_members));
      eventGraph.subgroups.set(id, [...update.new.direct_subgroups]);
    }
    if (id !== stream[key]) groupChanges[key] = id;
  }
  return { groupChanges, eventGraph };
}

function see(s: Steps): number[] {
  return usersWhoCanSee(s.graph, s.users.values(), s.state, s.subscribers);
}

function publish(s: Steps, userIds: number[], event: ConfabEvent): void {
  publishAfterCommit(s.services, s.onCommit, { realmId: s.realm.id, userIds, event });
}

/** A stream update event to the audience, named as the channel is called before the step (a rename's event carries the old name). */
function emit(s: Steps, property: string, value: unknown, extra?: Parameters<typeof streamUpdateEvent>[3]): void {
  publish(s, s.audience, streamUpdateEvent({ id: s.state.id, name: s.state.name }, property, value, extra));
}

/** Those who now see the channel and could not before get it whole, then its subscribers (peer_add). */
function announce(s: Steps, userIds: number[]): void {
  publish(s, userIds, { type: 'stream', op: 'create', streams: [formatStream(s.state, s.graph, s.activeSubscribers.length)] });
  publish(s, userIds, { type: 'subscription', op: 'peer_add', stream_ids: [s.state.id], user_ids: [...s.activeSubscribers] });
}

/** A step's notice, in the channel as the step leaves it, after the step's events. */
async function notice(s: Steps, n: PreparedBotMessage | undefined): Promise<void> {
  if (n) await postChannelEventNotice(s.services, s.tx, s.onCommit, { bot: s.notices.bot, realm: s.realm, users: s.users, stream: s.state, notice: n });
}

/**
 * do_change_stream_permission: a private channel made public is announced (create, peer_add) to
 * those who could not see it; the update goes to everyone else who can see it now.
 */
async function permissionStep(s: Steps, changes: Partial<Stream>): Promise<void> {
  const name = s.state.name;
  const wasPrivate = s.state.invite_only;
  const before = new Set(s.audience);
  s.state = {
    ...s.state,
    invite_only: changes.invite_only ?? s.state.invite_only,
    is_web_public: changes.is_web_public ?? s.state.is_web_public,
    history_public_to_subscribers: changes.history_public_to_subscribers ?? s.state.history_public_to_subscribers,
  };
  s.audience = see(s);
  const gaining = wasPrivate && !s.state.invite_only ? s.audience.filter((id) => !before.has(id)) : [];
  announce(s, gaining);
  const announced = new Set(gaining);
  const { invite_only, history_public_to_subscribers, is_web_public } = s.state;
  publish(s, s.audience.filter((id) => !announced.has(id)), streamUpdateEvent({ id: s.state.id, name }, 'invite_only', invite_only, { history_public_to_subscribers, is_web_public }));
  await notice(s, s.notices.permission);
}

/** Retention, unarchiving, topics policy, description and name, in Zulip's order: each its update event, then its notice. */
async function propertySteps(s: Steps, changes: Partial<Stream>): Promise<void> {
  if (changes.message_retention_days !== undefined) {
    emit(s, 'message_retention_days', changes.message_retention_days);
    s.state = { ...s.state, message_retention_days: changes.message_retention_days };
    await notice(s, s.notices.retention);
  }
  if (changes.is_archived === false) {
    // do_unarchive_stream: the update, then the channel whole (for_unarchiving) for clients that did not list it while archived.
    emit(s, 'is_archived', false);
    s.state = { ...s.state, is_archived: false };
    const event: ConfabEvent = { type: 'stream', op: 'create', streams: [formatStream(s.state, s.graph, s.activeSubscribers.length)] };
    publishAfterCommit(s.services, s.onCommit, { realmId: s.realm.id, userIds: s.audience, event, channelArchiving: true });
    await notice(s, s.notices.unarchived);
  }
  if (changes.topics_policy !== undefined) {
    emit(s, 'topics_policy', changes.topics_policy);
    s.state = { ...s.state, topics_policy: changes.topics_policy };
    // do_set_stream_property sends its notice without archived_channel_notice: to an archived channel Zulip's send fails (logged), and nothing is posted.
    if (!s.state.is_archived) await notice(s, s.notices.topicsPolicy);
  }
  if (changes.description !== undefined) {
    emit(s, 'description', changes.description, { rendered_description: changes.rendered_description });
    s.state = { ...s.state, description: changes.description, rendered_description: changes.rendered_description! };
    await notice(s, s.notices.description);
  }
  // do_rename_stream: `name` is the channel's old name, `value` the new one.
  if (changes.name !== undefined) {
    emit(s, 'name', changes.name);
    s.state = { ...s.state, name: changes.name };
    await notice(s, s.notices.rename);
  }
}

/**
 * The order Zulip's update_stream_backend changes group settings in, whatever the request's order:
 * that of Stream.stream_permission_group_settings, where can_resolve_topics_group comes last.
 */
const ZULIP_SETTING_ORDER: readonly StreamGroupSetting[] = [
  ...STREAM_GROUP_SETTINGS.filter((name) => name !== 'can_resolve_topics_group'),
  'can_resolve_topics_group',
];

/** do_change_stream_group_based_setting for each setting named, in ZULIP_SETTING_ORDER. */
async function groupSettingSteps(s: Steps, keys: StreamGroupSetting[], groupChanges: Partial<Record<StreamGroupSetting, number>>): Promise<void> {
  for (const key of keys) {
    const id = groupChanges[key];
    if (id === undefined) continue;
    // The value as stored (an anonymous value naming one group is that group).
    const event = streamUpdateEvent({ id: s.state.id, name: s.state.name }, key, groupSettingValue(s.graph, id));
    const previous = s.state;
    s.state = { ...s.state, [key]: id };
    if (METADATA_GRANTING.has(key)) {
      // Who gains sight of the channel gets it whole; who loses it, a delete; the rest the update.
      const before = new Set(s.audience);
      s.audience = see(s);
      const seeing = new Set(s.audience);
      publish(s, s.audience.filter((x) => before.has(x)), event);
      announce(s, s.audience.filter((x) => !before.has(x)));
      publish(s, [...before].filter((x) => !seeing.has(x)), { type: 'stream', op: 'delete', streams: [{ stream_id: s.state.id }], stream_ids: [s.state.id] });
    } else {
      publish(s, s.audience, event);
    }
    if (key === 'can_send_message_group') {
      // The legacy stream_post_policy (and is_announcement_only) events, when the derived value changes.
      const oldPolicy = streamPostPolicy(s.graph, previous.can_send_message_group);
      const newPolicy = streamPostPolicy(s.graph, id);
      if (oldPolicy !== newPolicy) {
        emit(s, 'stream_post_policy', newPolicy);
        emit(s, 'is_announcement_only', newPolicy === STREAM_POST_POLICY.admins);
      }
      // Then who may post, before and after. An archived channel takes no message (Zulip's send fails, logged).
      if (!s.state.is_archived) await notice(s, s.notices.postingPermission);
    }
  }
}
