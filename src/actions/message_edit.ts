// Editing messages: content, topic and channel moves with Zulip's permissions and time limits,
// notices from the Notification Bot, the edit history, and update_message / delete_message events.
import { createHash } from 'node:crypto';
import type { Services } from '../services.js';
import { nowSeconds } from '../services.js';
import type { Realm } from '../store/realms.js';
import type { User } from '../store/users.js';
import { ROLE } from '../store/users.js';
import { getStream, isSubscribed, subscriberIds, type Stream } from '../store/channels.js';
import { topicParticipants, type MessageRow } from '../store/messages.js';
import { isUserInGroup } from '../store/cache.js';
import type { Executor } from '../store/db.js';
import { ApiError, BadRequest, InvalidMessage, InvalidStreamId } from '../errors.js';
import { channelAccess, isRealmAdmin } from '../access/channel_access.js';
import { EMPTY_TOPIC_DISPLAY_NAME } from '../lib/message_text.js';
import { notificationBot } from './notification_bot.js';
import { renderMarkdown, topicLinks as renderTopicLinks } from '../markdown/render.js';
import { messageRenderContext } from './render_context.js';
import { checkCanCreateTopic, checkGroupMentionPermission, checkWildcardPermission, effectiveTopicsPolicy } from './messages.js';
import { checkTopicCharacters, normalizeContent, truncateTopic } from '../lib/message_text.js';
import { hasSubmessages } from '../store/submessages.js';
import { modifiableMessage } from '../queries/message_access.js';
import { withinLimit } from './message_delete.js';
import { visibleTopicMessages, writeEdit, type EditPlan, type PropagateMode } from './message_edit_write.js';



export type { PropagateMode };

export interface EditRequest {
  content?: string;
  topic?: string;
  /** Move to this channel. */
  streamId?: number;
  propagateMode: PropagateMode;
  prevContentSha256?: string;
  notifyOld: boolean;
  notifyNew: boolean;
}




/** Zulip's rule for changing a message's content: its sender, while editing is on and in time. */
export function checkContentEditAllowed(editor: User, realm: Realm, message: MessageRow, bufferSeconds = 0): void {
  if (!realm.settings.allow_message_editing) throw new BadRequest('Your organization has turned off message editing');
  if (message.sender_id !== editor.id) throw new BadRequest("You don't have permission to edit this message");
  const limit = realm.settings.message_content_edit_limit_seconds;
  if (!withinLimit(message.date_sent, limit === null ? null : limit + bufferSeconds)) throw new BadRequest('The time limit for editing this message has passed');
}

/** Zulip's grace on its edit and move time limits (clients round their countdowns). */
const EDIT_LIMIT_BUFFER = 20;
export const RESOLVED_TOPIC_PREFIX = '✔ ';
/** What an edit to blank content stores, as Zulip does. */
const DELETED_CONTENT = '(deleted)';

function withinEditLimit(sentAt: number, limit: number | null): boolean {
  return limit === null || nowSeconds() - sentAt <= limit + EDIT_LIMIT_BUFFER;
}

export async function editMessage(services: Services, editor: User, realm: Realm, id: number, req: EditRequest): Promise<{ detachedUploads: Record<string, unknown>[] }> {
  const message = await modifiableMessage(services, editor, id);
  const graph = await services.cache.groupGraph(realm.id);
  // The order of Zulip's check_update_message: the request, the channels, the topic
  // permission, the new content's mentions, then the channel permission and time limits.
  const { topic, requestedTopic, streamId } = await checkEditRequest(services, editor, realm, message, req);
  const where = await planEditChannels(services, editor, realm, graph, message, topic, requestedTopic, streamId);
  const moved = topic !== undefined || streamId !== undefined;
  const move = { topic, streamId, moved, ...where };
  checkTopicPermission(editor, realm, graph, message, move);
  let content: string | undefined;
  let rendered: ReturnType<typeof renderMarkdown> | undefined;
  if (req.content !== undefined) {
    // Zulip's check_update_message: content left blank means the text is withdrawn, not an error.
    content = normalizeContent(req.content.trimEnd() === '' ? DELETED_CONTENT : req.content);
    rendered = renderMarkdown(content, await messageRenderContext(services, realm, editor, content));
    await checkEditMentions(services, editor, realm, graph, message, rendered);
  }
  await checkChannelMovePermission(services, editor, realm, graph, message, req, move);
  // Automated notices: the Notification Bot must exist before the transaction that posts them.
  const notices = where.orig !== undefined && moved && (req.notifyOld || req.notifyNew || where.resolved || where.unresolved);
  const bot = notices ? await notificationBot(services, realm.id) : undefined;
  const users = await services.cache.users(realm.id);
  // Zulip's do_update_message sends the new topic's topic_links, as a sent message carries them.
  const topicLinks = topic ? renderTopicLinks(topic, await services.cache.linkifiers(realm.id)) : [];
  const plan: EditPlan = {
    editor,
    realm,
    message,
    graph,
    users,
    propagateMode: req.propagateMode,
    notifyOld: req.notifyOld,
    notifyNew: req.notifyNew,
    topic,
    streamId,
    content,
    rendered,
    moved,
    bot,
    topicLinks,
    now: nowSeconds(),
    ...where,
  };
  const detachedUploads = await services.database.transaction((tx, onCommit) => writeEdit(services, tx, onCommit, plan));
  return { detachedUploads };
}

/** Zulip checks an edit's new mentions as a send's: groups the author may mention, wildcards by channel and topic size. */
async function checkEditMentions(services: Services, editor: User, realm: Realm, graph: EditPlan['graph'], message: MessageRow, rendered: ReturnType<typeof renderMarkdown>): Promise<void> {
  checkGroupMentionPermission(graph, editor, rendered);
  if (message.stream_id === null || (!rendered.streamWildcard && !rendered.topicWildcard)) return;
  const db = services.database.db;
  const [subscribers, participants] = await Promise.all([subscriberIds(db, message.stream_id), topicParticipants(db, message.stream_id, message.topic)]);
  checkWildcardPermission(graph, editor, realm, rendered, subscribers.length, participants.length);
}

/**
 * Check (Zulip's validate_user_can_edit_message, then validate_message_edit_payload in its order): the
 * edit is allowed and consistent; returns what actually changes. A topic equal to the current one is
 * no change, but Zulip's check_update_message keeps a stream_id equal to the current channel: it is a
 * move within the channel (permission checks, edit history, breadcrumbs), as build_message_edit_request
 * sets is_stream_edited for any stream_id given.
 */
async function checkEditRequest(
  services: Services,
  editor: User,
  realm: Realm,
  message: MessageRow,
  req: EditRequest,
): Promise<{ topic?: string; requestedTopic?: string; streamId?: number }> {
  if (req.content !== undefined) checkContentEditAllowed(editor, realm, message, EDIT_LIMIT_BUFFER);
  // Zulip's check_update_message renames only "general chat" to the empty topic (a send also
  // renames "(no topic)"; an edit keeps it as text), and compares before truncating.
  let topic = req.topic?.trim();
  if (topic === EMPTY_TOPIC_DISPLAY_NAME) topic = '';
  if (topic === message.topic) topic = undefined;
  const streamId = req.streamId;
  if (topic === undefined && req.content === undefined && streamId === undefined) throw new BadRequest('Nothing to change');
  if (message.stream_id === null) {
    if (streamId !== undefined) throw new BadRequest('Direct messages cannot be moved to channels.');
    if (topic !== undefined) throw new BadRequest('Direct messages cannot have topics.');
  }
  if (req.propagateMode !== 'change_one' && topic === undefined && streamId === undefined) throw new BadRequest('Invalid propagate_mode without topic edit');
  if (topic === RESOLVED_TOPIC_PREFIX.trim() || topic === `${RESOLVED_TOPIC_PREFIX}${EMPTY_TOPIC_DISPLAY_NAME}`) throw new BadRequest('General chat cannot be marked as resolved');
  if (topic !== undefined) checkTopicCharacters(topic);
  if (streamId !== undefined && req.content !== undefined) throw new BadRequest('Cannot change message content while changing channel');
  // A poll or to-do list is defined by its submessages; its text cannot change under them.
  if (req.content !== undefined && (await hasSubmessages(services.database.db, message.id))) throw new BadRequest('Widgets cannot be edited.');
  if (req.prevContentSha256 !== undefined && createHash('sha256').update(message.content).digest('hex') !== req.prevContentSha256) {
    throw new BadRequest("'prev_content_sha256' value does not match the expected value.");
  }
  // build_message_edit_request truncates the new topic, but judges resolving by the text as sent.
  return { topic: topic === undefined ? undefined : truncateTopic(topic), requestedTopic: topic, streamId };
}

type EditChannels = Pick<EditPlan, 'orig' | 'dest' | 'resolved' | 'unresolved'>;

/** Plan: the channel the message is in and the one it ends up in (checked for access and topic policy), and whether the edit (un)resolves the topic. */
async function planEditChannels(
  services: Services,
  editor: User,
  realm: Realm,
  graph: EditPlan['graph'],
  message: MessageRow,
  topic: string | undefined,
  requestedTopic: string | undefined,
  streamId: number | undefined,
): Promise<EditChannels> {
  const db = services.database.db;
  if (message.stream_id === null) return { orig: undefined, dest: undefined, resolved: false, unresolved: false };
  const orig = await getStream(db, realm.id, message.stream_id);
  if (!orig) throw new InvalidMessage();
  let dest: Stream | undefined = orig;
  if (streamId !== undefined) {
    dest = await getStream(db, realm.id, streamId);
    const subscribed = dest ? await isSubscribed(db, editor.id, dest.id) : false;
    // Archived channels take no messages: they look missing, as in Zulip.
    if (!dest || dest.is_archived || !channelAccess(graph, editor, dest, subscribed).content) throw new InvalidStreamId();
  }
  const targetTopic = topic ?? message.topic;
  const policy = effectiveTopicsPolicy(dest, realm);
  // Zulip's build_message_edit_request counts the text "(no topic)" as the empty topic here.
  const targetEmpty = targetTopic === '' || targetTopic === '(no topic)';
  if (targetEmpty && (topic !== undefined || streamId !== undefined) && policy === 'disable_empty_topic') {
    throw new BadRequest(`Sending messages to the ${EMPTY_TOPIC_DISPLAY_NAME} is not allowed in this channel.`);
  }
  if (!targetEmpty && policy === 'empty_topic_only') throw new BadRequest(`Only the ${EMPTY_TOPIC_DISPLAY_NAME} topic is allowed in this channel.`);
  let resolved = false;
  let unresolved = false;
  if (topic !== undefined && requestedTopic !== undefined) {
    // A topic at the length limit still resolves: its "✔ " form is truncated, compared untruncated.
    resolved = topic.startsWith(RESOLVED_TOPIC_PREFIX) && !message.topic.startsWith(RESOLVED_TOPIC_PREFIX) && requestedTopic.slice(RESOLVED_TOPIC_PREFIX.length) === message.topic;
    unresolved = message.topic.startsWith(RESOLVED_TOPIC_PREFIX) && !topic.startsWith(RESOLVED_TOPIC_PREFIX) && message.topic.replace(/^[\u2714 ]+/, '') === topic;
  }
  return { orig, dest, resolved, unresolved };
}

type MoveCheck = EditChannels & { topic: string | undefined; streamId: number | undefined; moved: boolean };

/** Check: the editor may move (or resolve) the topic, within Zulip's time limit for topics. */
function checkTopicPermission(editor: User, realm: Realm, graph: EditPlan['graph'], message: MessageRow, e: MoveCheck): void {
  const { orig, dest } = e;
  if (e.topic === undefined || !orig || !dest) return;
  const settings = realm.settings;
  const inGroup = (g: number) => isUserInGroup(graph, editor.id, g);
  const other = dest.id !== orig.id ? dest : undefined;
  if (e.resolved || e.unresolved) {
    const may = inGroup(settings.can_resolve_topics_group) || inGroup(orig.can_resolve_topics_group) || (other !== undefined && inGroup(other.can_resolve_topics_group));
    if (!may) throw new BadRequest("You don't have permission to resolve topics in this channel.");
    return;
  }
  const mayWithin = (s: Stream) => isRealmAdmin(editor) || inGroup(s.can_administer_channel_group) || inGroup(s.can_move_messages_within_channel_group);
  const may = inGroup(settings.can_move_messages_between_topics_group) || mayWithin(orig) || (other !== undefined && mayWithin(other));
  if (!may) throw new BadRequest("You don't have permission to edit this message");
  if (editor.role > ROLE.moderator && !withinEditLimit(message.date_sent, settings.move_messages_within_stream_limit_seconds)) {
    throw new BadRequest("The time limit for editing this message's topic has passed.");
  }
}

/** Check: the editor may move the messages to the other channel, within Zulip's time limits (a whole topic's included), and start the topic they land in. */
async function checkChannelMovePermission(services: Services, editor: User, realm: Realm, graph: EditPlan['graph'], message: MessageRow, req: EditRequest, e: MoveCheck): Promise<void> {
  const settings = realm.settings;
  const inGroup = (g: number) => isUserInGroup(graph, editor.id, g);
  const moderator = editor.role <= ROLE.moderator;
  const { orig, dest } = e;
  if (e.streamId !== undefined && orig && dest) {
    const may = isRealmAdmin(editor) || inGroup(settings.can_move_messages_between_channels_group) || inGroup(orig.can_administer_channel_group) || inGroup(orig.can_move_messages_out_of_channel_group);
    if (!may) throw new BadRequest("You don't have permission to move this message");
    if (!inGroup(dest.can_send_message_group)) throw new BadRequest('You do not have permission to post in this channel.');
    if (!moderator && !withinEditLimit(message.date_sent, settings.move_messages_between_streams_limit_seconds)) {
      throw new BadRequest("The time limit for editing this message's channel has passed");
    }
  }
  if (orig && e.moved && req.propagateMode === 'change_all' && !moderator && !e.resolved && !e.unresolved) {
    await checkWholeTopicTimeLimit(services.database.db, editor, realm, orig, message.topic, e.topic !== undefined, e.streamId !== undefined);
  }
  if (dest && e.moved && !e.resolved && !e.unresolved) {
    await checkCanCreateTopic(services.database.db, graph, editor, await services.cache.users(realm.id), dest, e.topic ?? message.topic);
  }
}

/**
 * Zulip's check for moving a whole topic: everyone but moderators may move only messages within
 * the applicable time limit; when older ones are in the topic, the error says which part may move.
 */
async function checkWholeTopicTimeLimit(db: Executor, user: User, realm: Realm, stream: Stream, topic: string, topicChanged: boolean, streamChanged: boolean): Promise<void> {
  const s = realm.settings;
  const limits: number[] = [];
  if (topicChanged && s.move_messages_within_stream_limit_seconds !== null) limits.push(s.move_messages_within_stream_limit_seconds + EDIT_LIMIT_BUFFER);
  if (streamChanged && s.move_messages_between_streams_limit_seconds !== null) limits.push(s.move_messages_between_streams_limit_seconds + EDIT_LIMIT_BUFFER);
  if (limits.length === 0) return;
  const oldest = nowSeconds() - Math.min(...limits);
  const all = await visibleTopicMessages(db, user, stream, topic);
  const allowed = all.filter((m) => m.date_sent > oldest);
  if (allowed.length === all.length) return;
  throw new ApiError(`You only have permission to move the ${allowed.length}/${all.length} most recent messages in this topic.`, 'MOVE_MESSAGES_TIME_LIMIT_EXCEEDED', 400, {
    first_message_id_allowed_to_move: allowed[0]?.id ?? null,
    total_messages_in_topic: all.length,
    total_messages_allowed_to_move: allowed.length,
  });
}


