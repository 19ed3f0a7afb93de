// Message objects as the API shows them (GET /messages, message events), built for many
// messages with a fixed number of lookups.
import type { Services } from '../../services.js';
import type { Realm } from '../../store/realms.js';
import type { User } from '../../store/users.js';
import { dmGroupMembers, flagNames, type MessageRow } from '../../store/messages.js';
import { getStreamsByIds } from '../../store/channels.js';
import { avatarUrl } from './users.js';

export const EMPTY_TOPIC_DISPLAY_NAME = 'general chat';

export interface MessageShapeOptions {
  applyMarkdown: boolean;
  clientGravatar: boolean;
  /** false: show the empty topic as realm_empty_topic_display_name, for clients that predate it. */
  allowEmptyTopicName: boolean;
}

function displayUser(u: User) {
  return { id: u.id, email: u.email, full_name: u.full_name, is_mirror_dummy: false };
}

/** The message without viewer-specific parts (flags), in the form events and fetches share. */
export function shapeMessage(
  m: MessageRow,
  realm: Realm,
  users: Map<number, User>,
  streamNames: Map<number, string>,
  dmMembers: Map<number, number[]>,
  o: MessageShapeOptions,
): Record<string, unknown> {
  const sender = users.get(m.sender_id);
  const topic = m.topic === '' && !o.allowEmptyTopicName ? EMPTY_TOPIC_DISPLAY_NAME : m.topic;
  const out: Record<string, unknown> = {
    id: m.id,
    sender_id: m.sender_id,
    content: o.applyMarkdown ? m.rendered_content : m.content,
    content_type: o.applyMarkdown ? 'text/html' : 'text/x-markdown',
    recipient_id: m.recipient_id,
    timestamp: m.date_sent,
    client: m.sending_client,
    subject: m.recipient_type === 'stream' ? topic : '',
    topic_links: [],
    is_me_message: /^\/me( |$)/.test(m.content),
    reactions: [],
    submessages: [],
    sender_full_name: sender?.full_name ?? '',
    sender_email: sender?.email ?? '',
    sender_realm_str: realm.string_id,
    avatar_url: sender ? avatarUrl(sender, o.clientGravatar) : null,
    type: m.recipient_type === 'stream' ? 'stream' : 'private',
  };
  if (m.recipient_type === 'stream') {
    out.display_recipient = streamNames.get(m.stream_id!) ?? '';
    out.stream_id = m.stream_id;
  } else {
    const members = dmMembers.get(m.dm_group_id!) ?? [];
    out.display_recipient = members.map((id) => users.get(id)).filter((u): u is User => !!u).map(displayUser);
  }
  if (m.last_edit_time !== null) out.last_edit_timestamp = m.last_edit_time;
  return out;
}

/** Looks up what shaping needs for a batch of messages: channel names and DM participants. */
export async function shapeContext(services: Services, realm: Realm, rows: MessageRow[]) {
  const streamIds = [...new Set(rows.filter((m) => m.stream_id !== null).map((m) => m.stream_id!))];
  const groupIds = [...new Set(rows.filter((m) => m.dm_group_id !== null).map((m) => m.dm_group_id!))];
  const [streams, dmMembers, users] = await Promise.all([
    getStreamsByIds(services.database.db, realm.id, streamIds),
    dmGroupMembers(services.database.db, groupIds),
    services.cache.users(realm.id),
  ]);
  return { streamNames: new Map(streams.map((s) => [s.id, s.name])), dmMembers, users };
}

export async function formatMessages(
  services: Services,
  realm: Realm,
  rows: Array<MessageRow & { flags: number }>,
  o: MessageShapeOptions,
): Promise<Record<string, unknown>[]> {
  const ctx = await shapeContext(services, realm, rows);
  return rows.map((m) => ({ ...shapeMessage(m, realm, ctx.users, ctx.streamNames, ctx.dmMembers, o), flags: flagNames(m.flags) }));
}
