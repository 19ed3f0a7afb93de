// Reading one message as a user: whether they may (their own row, or open channel history), and
// its edit history as GET /messages/{id}/history reports it.
import type { Services } from '../services.js';
import type { Realm } from '../store/realms.js';
import type { User } from '../store/users.js';
import { getStreamForViewer } from '../store/channels.js';
import { getMessages, type EditEntry, type MessageRow } from '../store/messages.js';
import { BadRequest, InvalidMessage } from '../errors.js';
import { fetchMessages } from './messages.js';
import { highlightHtmlDifferences } from '../lib/html_diff.js';

/** The message, if the user may read it (their own row, or open channel history). */
export async function accessibleMessage(services: Services, user: User, id: number): Promise<MessageRow & { flags: number }> {
  const { rows } = await fetchMessages(services, user, { anchor: id, numBefore: 0, numAfter: 0, includeAnchor: true, terms: [{ kind: 'id', id, negated: false }] });
  if (rows[0]) return rows[0];
  const [m] = await getMessages(services.database.db, user.realm_id, [id]);
  if (m?.stream_id != null) {
    const found = await getStreamForViewer(services.database.db, user.realm_id, user.id, { id: m.stream_id });
    if (found) {
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

/** The message's versions, oldest first, as GET /messages/{id}/history reports them. */
export async function messageHistory(services: Services, user: User, realm: Realm, id: number): Promise<Record<string, unknown>[]> {
  if (!realm.settings.allow_edit_history) throw new BadRequest('Message edit history is disabled in this organization');
  const m = await accessibleMessage(services, user, id);
  const edits: EditEntry[] = m.edit_history ? (JSON.parse(m.edit_history) as EditEntry[]) : [];
  // Walk back from the current version to rebuild each earlier one.
  let content = m.content;
  let rendered = m.rendered_content;
  let topic = m.topic;
  let stream = m.stream_id;
  const versions: Record<string, unknown>[] = [];
  for (let i = edits.length - 1; i >= 0; i--) {
    const e = edits[i]!;
    const v: Record<string, unknown> = { topic, content, rendered_content: rendered, timestamp: e.timestamp, user_id: e.user_id };
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
      v.prev_topic = e.prev_topic;
      topic = e.prev_topic;
    }
    versions.unshift(v);
  }
  versions.unshift({ topic, content, rendered_content: rendered, timestamp: m.date_sent, user_id: m.sender_id });
  return versions;
}
