// Reading one message as a user: whether they may (their own row, or open channel history), and
// its edit history as GET /messages/{id}/history reports it.
import type { Services } from '../services.js';
import type { Realm } from '../store/realms.js';
import type { User } from '../store/users.js';
import { getStream, getStreamForViewer } from '../store/channels.js';
import { getMessages, type EditEntry, type MessageRow } from '../store/messages.js';
import { BadRequest, InvalidMessage } from '../errors.js';
import { fetchMessages } from './messages.js';
import { channelAccess } from '../access/channel_access.js';
import { highlightHtmlDifferences } from '../lib/html_diff.js';
import { EMPTY_TOPIC_DISPLAY_NAME } from '../lib/message_text.js';

/** The message, if the user may read it (their own row, or open channel history), with Zulip's access_message rules. */
export async function accessibleMessage(services: Services, user: User, id: number): Promise<MessageRow & { flags: number }> {
  const { rows } = await fetchMessages(services, user, { anchor: id, numBefore: 0, numAfter: 0, includeAnchor: true, terms: [{ kind: 'id', id, negated: false }] });
  const own = rows[0];
  if (own && own.stream_id === null) return own;
  const m = own ?? (await getMessages(services.database.db, user.realm_id, [id]))[0];
  if (m?.stream_id != null) {
    const found = await getStreamForViewer(services.database.db, user.realm_id, user.id, { id: m.stream_id });
    // Zulip's has_message_access: a channel message needs access to the channel's content too,
    // so a row kept from before leaving a private channel (or a guest's, a public one) is not enough.
    if (found && own && channelAccess(await services.cache.groupGraph(user.realm_id), user, found.stream, found.subscribed).content) return own;
    if (found && !own) {
      const again = await fetchMessages(services, user, {
        anchor: id,
        numBefore: 0,
        numAfter: 0,
        includeAnchor: true,
        terms: [{ kind: 'channel', stream: found.stream, subscribed: found.subscribed, negated: false }, { kind: 'id', id, negated: false }],
      });
      if (again.rows[0]) return again.rows[0];
    }
  }
  throw new InvalidMessage();
}

/**
 * The message, if the user may read it and change something of it (edit, move, delete, react,
 * vote): Zulip's access_message with is_modifying_message refuses messages of archived channels.
 */
export async function modifiableMessage(services: Services, user: User, id: number): Promise<MessageRow & { flags: number }> {
  const message = await accessibleMessage(services, user, id);
  if (message.stream_id !== null && (await getStream(services.database.db, user.realm_id, message.stream_id))?.is_archived) throw new InvalidMessage();
  return message;
}

/**
 * The message's versions, oldest first, as GET /messages/{id}/history reports them: under the
 * organization's "moves" policy only moves show (a content edit made with a move keeps the move),
 * and an empty channel topic reads as "general chat" unless the client accepts empty names.
 */
export async function messageHistory(services: Services, user: User, realm: Realm, id: number, allowEmptyTopicName = false): Promise<Record<string, unknown>[]> {
  const policy = realm.settings.allow_edit_history ? realm.settings.message_edit_history_visibility_policy : 'none';
  if (policy === 'none') throw new BadRequest('Message edit history is disabled in this organization');
  const m = await accessibleMessage(services, user, id);
  const topicName = (t: string) => (m.stream_id === null ? '' : t === '' && !allowEmptyTopicName ? EMPTY_TOPIC_DISPLAY_NAME : t);
  const edits: EditEntry[] = m.edit_history ? (JSON.parse(m.edit_history) as EditEntry[]) : [];
  // Walk back from the current version to rebuild each earlier one.
  let content = m.content;
  let rendered = m.rendered_content;
  let topic = m.topic;
  let stream = m.stream_id;
  const versions: Record<string, unknown>[] = [];
  for (let i = edits.length - 1; i >= 0; i--) {
    const e = edits[i]!;
    const v: Record<string, unknown> = { topic: topicName(topic), content, rendered_content: rendered, timestamp: e.timestamp, user_id: e.user_id };
    if (e.prev_stream !== undefined) {
      v.prev_stream = e.prev_stream;
      v.stream = stream;
      stream = e.prev_stream;
    }
    if (e.prev_content !== undefined) {
      v.prev_content = e.prev_content;
      v.prev_rendered_content = e.prev_rendered_content;
      v.content_html_diff = highlightHtmlDifferences(e.prev_rendered_content ?? '', rendered ?? '');
      content = e.prev_content;
      rendered = e.prev_rendered_content ?? rendered;
    }
    if (e.prev_topic !== undefined) {
      v.prev_topic = topicName(e.prev_topic);
      topic = e.prev_topic;
    }
    if (policy === 'moves' && v.prev_content !== undefined) {
      if (v.prev_topic === undefined) continue;
      delete v.prev_content;
      delete v.prev_rendered_content;
      delete v.content_html_diff;
    }
    versions.unshift(v);
  }
  versions.unshift({ topic: topicName(topic), content, rendered_content: rendered, timestamp: m.date_sent, user_id: m.sender_id });
  return versions;
}
