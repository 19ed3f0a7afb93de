// Editing (content, topic) and deleting messages, with Zulip's permissions and time limits, the
// edit history, and update_message / delete_message events to everyone who has the message.
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { Services } from '../services.js';
import { nowSeconds } from '../services.js';
import type { Realm } from '../store/realms.js';
import type { User } from '../store/users.js';
import { ROLE } from '../store/users.js';
import { getStream, type Stream } from '../store/channels.js';
import { contentFlags } from '../markdown/content_flags.js';
import { deleteMessageEvent, deleteMessagesByIds, FLAG_BITS, flagNames, getMessages, messageFromRow, type MessageRow } from '../store/messages.js';
import { isUserInGroup } from '../store/cache.js';
import { BadRequest, InvalidMessage } from '../errors.js';
import { renderMarkdown } from '../markdown/render.js';
import { publishAfterCommit } from '../events/publish.js';
import { fetchMessages } from '../queries/messages.js';
import { normalizeContent, normalizeTopic } from './messages.js';

export interface EditEntry {
  timestamp: number;
  user_id: number;
  prev_content?: string;
  prev_rendered_content?: string;
  prev_topic?: string;
  topic?: string;
}

export type PropagateMode = 'change_one' | 'change_later' | 'change_all';

export interface EditRequest {
  content?: string;
  topic?: string;
  propagateMode: PropagateMode;
  prevContentSha256?: string;
}

const MENTION_BITS = FLAG_BITS.mentioned | FLAG_BITS.stream_wildcard_mentioned | FLAG_BITS.topic_wildcard_mentioned;

/** The message, if the user may read it (their own row, or open channel history). */
export async function accessibleMessage(services: Services, user: User, id: number): Promise<MessageRow & { flags: number }> {
  const { rows } = await fetchMessages(services, user, { anchor: id, numBefore: 0, numAfter: 0, includeAnchor: true, terms: [{ kind: 'id', id, negated: false }] });
  if (rows[0]) return rows[0];
  const [m] = await getMessages(services.database.db, user.realm_id, [id]);
  if (m?.stream_id != null) {
    const stream = await getStream(services.database.db, user.realm_id, m.stream_id);
    if (stream) {
      const again = await fetchMessages(services, user, {
        anchor: id,
        numBefore: 0,
        numAfter: 0,
        includeAnchor: true,
        terms: [{ kind: 'channel', stream, negated: false }, { kind: 'id', id, negated: false }],
      });
      if (again.rows[0]) return again.rows[0];
    }
  }
  throw new InvalidMessage();
}

function withinLimit(sentAt: number, limit: number | null): boolean {
  return limit === null || nowSeconds() - sentAt <= limit;
}

export async function editMessage(services: Services, editor: User, realm: Realm, id: number, req: EditRequest): Promise<void> {
  if (req.content === undefined && req.topic === undefined) throw new BadRequest('Nothing to change');
  const message = await accessibleMessage(services, editor, id);
  const settings = realm.settings;
  const graph = await services.cache.groupGraph(realm.id);
  let stream: Stream | undefined;
  if (message.stream_id !== null) stream = await getStream(services.database.db, realm.id, message.stream_id);

  let content: string | undefined;
  let rendered: ReturnType<typeof renderMarkdown> | undefined;
  if (req.content !== undefined) {
    if (message.sender_id !== editor.id || !settings.allow_message_editing) throw new BadRequest("You don't have permission to edit this message");
    if (!withinLimit(message.date_sent, settings.message_content_edit_limit_seconds)) throw new BadRequest('The time limit for editing this message has passed');
    if (req.prevContentSha256 !== undefined && createHash('sha256').update(message.content).digest('hex') !== req.prevContentSha256) {
      throw new BadRequest("'prev_content_sha256' value does not match the expected value.");
    }
    content = normalizeContent(req.content);
    const users = await services.cache.users(realm.id);
    rendered = renderMarkdown(content, { users: users.values(), linkifiers: await services.cache.linkifiers(realm.id) });
  }
  let topic: string | undefined;
  if (req.topic !== undefined) {
    if (!stream) throw new BadRequest('Direct messages do not have topics.');
    topic = normalizeTopic(req.topic);
    const moderator = editor.role <= ROLE.moderator;
    const mayMove =
      message.sender_id === editor.id ||
      isUserInGroup(graph, editor.id, settings.can_move_messages_between_topics_group) ||
      isUserInGroup(graph, editor.id, stream.can_move_messages_within_channel_group);
    if (!mayMove) throw new BadRequest("You don't have permission to edit this message");
    if (!moderator && !withinLimit(message.date_sent, settings.move_messages_within_stream_limit_seconds)) {
      throw new BadRequest('The time limit for editing this message\'s topic has passed.');
    }
    const policy = stream.topics_policy === 'inherit' ? (settings.mandatory_topics ? 'disable_empty_topic' : settings.topics_policy) : stream.topics_policy;
    if (topic === '' && policy === 'disable_empty_topic') throw new BadRequest('Topics are required in this organization.');
    if (topic !== '' && policy === 'empty_topic_only') throw new BadRequest('Only the general chat topic is allowed in this channel.');
  }

  const now = nowSeconds();
  await services.database.transaction(async (tx, onCommit) => {
    // The messages the edit touches: this one, or the topic's later/all messages for topic moves.
    let targets: MessageRow[] = [message];
    if (topic !== undefined && req.propagateMode !== 'change_one' && stream) {
      let q = tx.selectFrom('messages').selectAll().where('stream_id', '=', stream.id).where(sql<boolean>`lower(topic) = lower(${message.topic})`);
      if (req.propagateMode === 'change_later') q = q.where('id', '>=', message.id);
      targets = (await q.orderBy('id').execute()).map(messageFromRow);
    }
    const ids = targets.map((m) => m.id);
    for (const m of targets) {
      const history: EditEntry[] = m.edit_history ? (JSON.parse(m.edit_history) as EditEntry[]) : [];
      const entry: EditEntry = { timestamp: now, user_id: editor.id };
      const set: Record<string, unknown> = { last_edit_time: now };
      if (content !== undefined && m.id === message.id) {
        entry.prev_content = m.content;
        entry.prev_rendered_content = m.rendered_content;
        set.content = content;
        set.rendered_content = rendered!.html;
        Object.assign(set, contentFlags(rendered!.html));
      }
      if (topic !== undefined && topic !== m.topic) {
        entry.prev_topic = m.topic;
        entry.topic = topic;
        set.topic = topic;
      }
      history.push(entry);
      set.edit_history = JSON.stringify(history);
      await tx.updateTable('messages').set(set).where('id', '=', m.id).execute();
    }
    // Mentions follow the new content: recipients gain or lose the mention flags.
    const rows = await tx.selectFrom('user_messages').select(['user_id', 'message_id', 'flags']).where('message_id', 'in', ids).execute();
    if (rendered) {
      for (const r of rows.filter((x) => x.message_id === message.id)) {
        let flags = r.flags & ~MENTION_BITS;
        if (rendered.mentionedUserIds.has(r.user_id)) flags |= FLAG_BITS.mentioned;
        if (rendered.wildcard === 'stream' || (rendered.wildcard && !stream)) flags |= FLAG_BITS.stream_wildcard_mentioned;
        if (flags !== r.flags) {
          await tx.updateTable('user_messages').set({ flags }).where('user_id', '=', r.user_id).where('message_id', '=', message.id).execute();
          r.flags = flags;
        }
      }
    }
    const recipients = [...new Set(rows.map((r) => r.user_id))];
    const perUser: Record<number, Record<string, unknown>> = {};
    for (const r of rows) if (r.message_id === message.id) perUser[r.user_id] = { flags: flagNames(r.flags) };
    for (const u of recipients) perUser[u] ??= { flags: [] };
    const event: Record<string, unknown> = {
      type: 'update_message',
      user_id: editor.id,
      message_id: message.id,
      message_ids: ids,
      edit_timestamp: now,
      rendering_only: false,
    };
    if (content !== undefined) {
      Object.assign(event, {
        orig_content: message.content,
        orig_rendered_content: message.rendered_content,
        content,
        rendered_content: rendered!.html,
        is_me_message: /^\/me( |$)/.test(content),
      });
    }
    if (stream) Object.assign(event, { stream_id: stream.id, stream_name: stream.name });
    if (topic !== undefined) Object.assign(event, { orig_subject: message.topic, subject: topic, propagate_mode: req.propagateMode, topic_links: [] });
    publishAfterCommit(services, onCommit, { realmId: realm.id, userIds: recipients, event, perUser });
  });
}

export async function deleteMessage(services: Services, user: User, realm: Realm, id: number): Promise<void> {
  const message = await accessibleMessage(services, user, id);
  const graph = await services.cache.groupGraph(realm.id);
  const s = realm.settings;
  const stream = message.stream_id === null ? undefined : await getStream(services.database.db, realm.id, message.stream_id);
  const mayDeleteAny =
    isUserInGroup(graph, user.id, s.can_delete_any_message_group) || (stream !== undefined && isUserInGroup(graph, user.id, stream.can_delete_any_message_group));
  const mayDeleteOwn =
    message.sender_id === user.id &&
    (isUserInGroup(graph, user.id, s.can_delete_own_message_group) || (stream !== undefined && isUserInGroup(graph, user.id, stream.can_delete_own_message_group))) &&
    withinLimit(message.date_sent, s.message_content_delete_limit_seconds);
  if (!mayDeleteAny && !mayDeleteOwn) throw new BadRequest("You don't have permission to delete this message");
  await services.database.transaction(async (tx, onCommit) => {
    const recipients = await deleteMessagesByIds(tx, realm.id, [message.id]);
    publishAfterCommit(services, onCommit, { realmId: realm.id, userIds: recipients.get(message.id) ?? [], event: deleteMessageEvent(message) });
  });
}

/** The message's versions, oldest first, as GET /messages/{id}/history reports them. */
export async function messageHistory(services: Services, user: User, realm: Realm, id: number): Promise<Record<string, unknown>[]> {
  if (!realm.settings.allow_edit_history) throw new BadRequest('Message edit history is disabled in this organization');
  const m = await accessibleMessage(services, user, id);
  const edits: EditEntry[] = m.edit_history ? (JSON.parse(m.edit_history) as EditEntry[]) : [];
  // Walk back from the current version to rebuild each earlier one.
  let content = m.content;
  let rendered = m.rendered_content;
  let topic = m.topic;
  const versions: Record<string, unknown>[] = [];
  for (let i = edits.length - 1; i >= 0; i--) {
    const e = edits[i]!;
    const v: Record<string, unknown> = { topic, content, rendered_content: rendered, timestamp: e.timestamp, user_id: e.user_id };
    if (e.prev_content !== undefined) {
      v.prev_content = e.prev_content;
      v.prev_rendered_content = e.prev_rendered_content;
      content = e.prev_content;
      rendered = e.prev_rendered_content ?? rendered;
    }
    if (e.prev_topic !== undefined) {
      v.prev_topic = e.prev_topic;
      topic = e.prev_topic;
    }
    versions.unshift(v);
  }
  versions.unshift({ topic, content, rendered_content: rendered, timestamp: m.date_sent, user_id: m.sender_id });
  return versions;
}
