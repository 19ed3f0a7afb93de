// Sending a message: resolve and check the recipients and render (prepareMessage), then write the
// message and every recipient's flags row in one transaction, one event to every recipient's
// queues after it (commitMessage, in message_write.ts).
import type { Services } from '../services.js';
import type { Realm } from '../store/realms.js';
import type { User } from '../store/users.js';
import { getStream, getStreamByName, STREAM_GROUP_SETTINGS, subscriberIds, type Stream } from '../store/channels.js';
import { userAtAddress } from '../queries/user_lookup.js';
import { FLAG_BITS, dmGroupHasMessages, findDmGroup, topicParticipants } from '../store/messages.js';
import { isUserInGroup, type GroupGraph } from '../store/cache.js';
import type { Executor } from '../store/db.js';
import { topicExists } from '../store/user_topics.js';
import { ApiError, BadRequest, StreamDoesNotExist, StreamIdDoesNotExist } from '../errors.js';
import { renderMarkdown, type Rendered } from '../markdown/render.js';
import { usersVisibleTo } from './users.js';
import { messageRenderContext } from './render_context.js';
import { channelAccess } from '../access/channel_access.js';
import { EMPTY_TOPIC_DISPLAY_NAME, normalizeContent, normalizeTopic } from '../lib/message_text.js';
import { apiEmail, usersByAddress } from '../shapes/users.js';
import { outgoingWebhookTriggers } from './outgoing_webhook_triggers.js';
import { addMentionedGenericBots, alertedRecipients, mentionedUserIds } from './message_mentions.js';
import { commitMessage, type PreparedMessage } from './message_write.js';

export type SendTarget =
  | { kind: 'stream'; streamId?: number; streamName?: string; topic: string | undefined }
  | { kind: 'direct'; userIds?: number[]; emails?: string[] };

export interface SendRequest {
  target: SendTarget;
  content: string;
  clientName: string;
  readBySender?: boolean;
  queueId?: string;
  localId?: string;
  /** An outgoing-webhook bot's reply: posted where the triggering message was, as Zulip does, without the channel access check. */
  skipChannelAccessCheck?: boolean;
}

/** Zulip's heuristic: a message starts read for its sender only when a full UI client sent it. */
export function defaultReadBySender(clientName: string): boolean {
  const c = clientName.toLowerCase();
  return ['zulipandroid', 'zulipios', 'zulipdesktop', 'zulipmobile', 'zulipelectron', 'zulipterminal', 'snipe', 'website', 'ios', 'android'].includes(c) || c.includes('desktop app');
}

/** The topics policy in force for a channel, its own or the organization's. */
export function effectiveTopicsPolicy(stream: Stream, realm: Realm): string {
  if (stream.topics_policy !== 'inherit') return stream.topics_policy;
  if (realm.settings.mandatory_topics) return 'disable_empty_topic';
  return realm.settings.topics_policy;
}

/**
 * The channel to send to, checked as Zulip's access_stream_for_send_message does, with its
 * subscribers. A bot may post where its owner is subscribed or allowed to post.
 */
async function resolveStream(
  services: Services,
  sender: User,
  realm: Realm,
  target: Extract<SendTarget, { kind: 'stream' }>,
  users: Map<number, User>,
  graph: GroupGraph,
  skipAccessCheck = false,
): Promise<{ stream: Stream; subscribers: number[] }> {
  const db = services.database.db;
  let stream: Stream | undefined;
  let missing: () => Error;
  if (target.streamId !== undefined) {
    const id = target.streamId;
    stream = await getStream(db, realm.id, id);
    missing = () => new StreamIdDoesNotExist(id);
  } else {
    const name = target.streamName!.trim();
    if (!name) throw new BadRequest("Channel name can't be empty.");
    stream = await getStreamByName(db, realm.id, name);
    missing = () => new StreamDoesNotExist(name);
  }
  // A channel the sender may not see is reported exactly like a missing one.
  if (!stream) throw missing();
  const subscribers = await subscriberIds(db, stream.id);
  // A group a setting names that the cached graph lacks (made with the channel in another
  // process a moment ago) is read; settings the graph knows cost nothing.
  const found = stream;
  graph = await services.cache.groupGraph(realm.id, STREAM_GROUP_SETTINGS.map((key) => found[key]));
  if (skipAccessCheck) {
    if (stream.is_archived) throw new BadRequest(`Not authorized to send to channel '${stream.name}'`);
    return { stream, subscribers };
  }
  const subscribed = new Set(subscribers);
  const owner = sender.is_bot && sender.bot_owner_id !== null ? users.get(sender.bot_owner_id) : undefined;
  const viaOwner = owner !== undefined && subscribed.has(owner.id);
  const access = channelAccess(graph, sender, stream, subscribed.has(sender.id));
  if (!access.metadata && !viaOwner) throw missing();
  const mayPost = (u: User) => isUserInGroup(graph, u.id, stream.can_send_message_group);
  if (!mayPost(sender) && !(owner && mayPost(owner))) throw new BadRequest('You do not have permission to post in this channel.');
  if (stream.is_archived || (!access.content && !viaOwner)) throw new BadRequest(`Not authorized to send to channel '${stream.name}'`);
  return { stream, subscribers };
}

async function resolveDirectRecipients(services: Services, sender: User, realm: Realm, target: Extract<SendTarget, { kind: 'direct' }>, users: Map<number, User>): Promise<User[]> {
  const out = new Map<number, User>();
  // The system bots every organization shares (a reply to the Welcome Bot) may be written to too.
  const systemBots = await services.cache.systemBots();
  if (target.userIds) {
    for (const id of target.userIds) {
      const u = users.get(id) ?? systemBots.get(id) ?? (await services.cache.user(realm.id, id));
      if (!u) throw new BadRequest(`Invalid user ID ${id}`);
      out.set(u.id, u);
    }
  } else {
    const byEmail = usersByAddress([...users.values(), ...systemBots.values()], sender, services.emailDomains);
    for (const email of target.emails ?? []) {
      const u = await userAtAddress(services, sender, email, byEmail);
      if (!u) throw new BadRequest(`Invalid email '${email}'`);
      out.set(u.id, u);
    }
  }
  if (out.size === 0) throw new BadRequest('Message must have recipients');
  // A guest who may see only some users may write only to those (and to the system bots).
  const visible = await usersVisibleTo(services, sender, realm);
  if (visible && [...out.keys()].some((id) => !visible.has(id) && !systemBots.has(id))) throw new BadRequest('You do not have permission to access some of the recipients.');
  for (const u of out.values()) {
    if (!u.is_active) throw new BadRequest(`'${apiEmail(u, services.emailDomains)}' is no longer using Zulip.`);
  }
  // The sender in the list counts only when they are the only recipient (a note to self).
  if (out.size > 1) out.delete(sender.id);
  return [...out.values()];
}

/** The organization's direct-message policy: who may take part, and who may start a conversation. */
async function checkDirectMessagePermission(services: Services, sender: User, realm: Realm, recipients: User[], participants: number[], graph: GroupGraph): Promise<void> {
  if (sender.is_bot || recipients.every((u) => u.is_bot || u.id === sender.id)) return;
  const allowed = realm.settings.direct_message_permission_group;
  if (![sender, ...recipients].some((u) => isUserInGroup(graph, u.id, allowed))) {
    if (allowed === graph.systemIds['role:nobody']) throw new BadRequest('Direct messages are disabled in this organization.');
    throw new BadRequest('This conversation does not include any users who can authorize it.');
  }
  if (isUserInGroup(graph, sender.id, realm.settings.direct_message_initiator_group)) return;
  // Those who may not start conversations may still reply in existing ones.
  const db = services.database.db;
  const groupId = await findDmGroup(db, realm.id, participants);
  if (groupId === undefined || !(await dmGroupHasMessages(db, groupId))) throw new BadRequest('You do not have permission to initiate direct message conversations.');
}

/** Above this many subscribers (or topic participants), wildcard mentions need permission. */
export const WILDCARD_MENTION_THRESHOLD = 15;

/** Zulip's rule: mentioning everyone in a big channel or topic needs can_mention_many_users_group. */
export function checkWildcardPermission(graph: GroupGraph, sender: User, realm: Realm, rendered: Rendered, subscribers: number, participants: number): void {
  if (isUserInGroup(graph, sender.id, realm.settings.can_mention_many_users_group)) return;
  if (rendered.streamWildcard && subscribers > WILDCARD_MENTION_THRESHOLD) {
    throw new ApiError('You do not have permission to use channel wildcard mentions in this channel.', 'STREAM_WILDCARD_MENTION_NOT_ALLOWED');
  }
  if (rendered.topicWildcard && participants > WILDCARD_MENTION_THRESHOLD) {
    throw new ApiError('You do not have permission to use topic wildcard mentions in this topic.', 'TOPIC_WILDCARD_MENTION_NOT_ALLOWED');
  }
}

/**
 * Zulip's check_for_can_create_topic_group_violation: a topic without messages may be started only
 * by members of the channel's can_create_topic_group (a bot also through its owner).
 */
export async function checkCanCreateTopic(db: Executor, graph: GroupGraph, user: User, users: ReadonlyMap<number, User>, stream: Stream, topic: string): Promise<void> {
  const group = stream.can_create_topic_group;
  if (group === graph.systemIds['role:everyone'] || (await topicExists(db, stream.id, topic))) return;
  const owner = user.is_bot && user.bot_owner_id !== null ? users.get(user.bot_owner_id) : undefined;
  if (isUserInGroup(graph, user.id, group) || (owner !== undefined && isUserInGroup(graph, owner.id, group))) return;
  throw new BadRequest('You do not have permission to create new topics in this channel.');
}

/** Zulip's check_user_group_mention_allowed: each group mentioned (not silently) must let the author mention it. */
export function checkGroupMentionPermission(graph: GroupGraph, sender: User, rendered: Rendered): void {
  for (const groupId of rendered.mentionedGroupIds) {
    const group = graph.groups.get(groupId)!;
    if (group.can_mention_group !== null && !isUserInGroup(graph, sender.id, group.can_mention_group)) {
      throw new BadRequest(`You are not allowed to mention user group '${group.name}'.`);
    }
  }
}

/** The users a message mentions: by name, or as members of mentioned groups the sender may mention. */
function mentionedUsers(graph: GroupGraph, sender: User, rendered: Rendered): Set<number> {
  checkGroupMentionPermission(graph, sender, rendered);
  return mentionedUserIds(graph, rendered);
}

/** Resolves and checks the recipients, normalises and renders the content; writes nothing. */
export async function prepareMessage(services: Services, sender: User, realm: Realm, req: SendRequest): Promise<PreparedMessage> {
  const content = normalizeContent(req.content);
  const renderContext = await messageRenderContext(services, realm, sender, content);
  const { graph } = renderContext;
  let users = renderContext.usersById;
  const linkifiers = renderContext.linkifiers ?? [];
  const rendered = renderMarkdown(content, renderContext);
  const mentioned = mentionedUsers(graph, sender, rendered);

  let recipientUserIds: number[];
  let stream: Stream | undefined;
  let topic = '';
  let dmParticipants: number[] = [];
  let topicParticipantIds: Set<number> | undefined;
  let shapeUsers = users;
  if (req.target.kind === 'stream') {
    if (req.target.topic === undefined) throw new BadRequest('Missing topic');
    const resolved = await resolveStream(services, sender, realm, req.target, users, graph, req.skipChannelAccessCheck);
    stream = resolved.stream;
    topic = normalizeTopic(req.target.topic);
    const policy = effectiveTopicsPolicy(stream, realm);
    if (topic === '' && policy === 'disable_empty_topic') throw new BadRequest(`Sending messages to the ${EMPTY_TOPIC_DISPLAY_NAME} is not allowed in this channel.`);
    if (topic !== '' && policy === 'empty_topic_only') throw new BadRequest(`Only the ${EMPTY_TOPIC_DISPLAY_NAME} topic is allowed in this channel.`);
    await checkCanCreateTopic(services.database.db, graph, sender, users, stream, topic);
    // Subscribers the cached users lack (made in another process a moment ago) are read; when
    // all are there, as almost always, this costs no query.
    users = shapeUsers = await services.cache.usersIncluding(realm.id, resolved.subscribers);
    // Deactivated accounts keep their subscriptions but receive nothing.
    recipientUserIds = resolved.subscribers.filter((id) => users.get(id)?.is_active);
    if (rendered.topicWildcard) {
      // The topic's participants: everyone who has posted in it, and now the sender.
      topicParticipantIds = new Set(await topicParticipants(services.database.db, stream.id, topic));
      topicParticipantIds.add(sender.id);
    }
    checkWildcardPermission(graph, sender, realm, rendered, recipientUserIds.length, topicParticipantIds?.size ?? 0);
  } else {
    const recipients = await resolveDirectRecipients(services, sender, realm, req.target, users);
    // A system bot among them is shaped from outside the organization's map.
    const outsiders = recipients.filter((u) => !users.has(u.id));
    if (outsiders.length) shapeUsers = new Map([...users, ...outsiders.map((u): [number, User] => [u.id, u])]);
    dmParticipants = [...new Set([sender.id, ...recipients.map((u) => u.id)])].sort((a, b) => a - b);
    await checkDirectMessagePermission(services, sender, realm, recipients, dmParticipants, graph);
    recipientUserIds = dmParticipants;
  }
  const everyone = new Set(recipientUserIds);
  everyone.add(sender.id);
  addMentionedGenericBots(everyone, mentioned, users);
  const readBySender = req.readBySender ?? defaultReadBySender(req.clientName);

  // Messages from a user someone muted arrive read for them. Both reads are cached, as Zulip
  // caches get_muting_users and alert_words_in_realm: the muting and alert-word actions invalidate them.
  const muters = await services.cache.muters(sender.id);
  // Recipients whose alert words the message contains get has_alert_word (never for one's own message).
  const alerted = alertedRecipients(await services.cache.alertWords(realm.id), content, everyone, sender.id);
  const flagsOf = (userId: number): number => {
    let flags = 0;
    if ((userId === sender.id && readBySender) || muters.has(userId)) flags |= FLAG_BITS.read;
    if (mentioned.has(userId)) flags |= FLAG_BITS.mentioned;
    if (rendered.streamWildcard) flags |= FLAG_BITS.stream_wildcard_mentioned;
    if (topicParticipantIds?.has(userId)) flags |= FLAG_BITS.topic_wildcard_mentioned;
    if (alerted.has(userId)) flags |= FLAG_BITS.has_alert_word;
    return flags;
  };
  const webhookTriggers = outgoingWebhookTriggers(sender, users, stream ? mentioned : new Set(), dmParticipants);
  return { sender, realm, content, rendered, stream, topic, dmParticipants, everyone, flagsOf, clientName: req.clientName, users: shapeUsers, linkifiers, webhookTriggers };
}

export async function sendMessage(services: Services, sender: User, realm: Realm, req: SendRequest): Promise<{ id: number; automatic_new_visibility_policy?: number }> {
  const prepared = await prepareMessage(services, sender, realm, req);
  return commitMessage(services, prepared, { queueId: req.queueId, localId: req.localId });
}
