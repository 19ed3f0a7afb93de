// Message objects as the API shows them (GET /messages, message events), built for many
// messages with a fixed number of lookups.
import type { Services } from '../services.js';
import type { Realm } from '../store/realms.js';
import type { User } from '../store/users.js';
import { dmGroupMembers, flagNames, type MessageRow } from '../store/messages.js';
import { getStreamsByIds, type Stream } from '../store/channels.js';
import { topicLinks, type LinkifierRule } from '../markdown/render.js';
import { apiEmail, avatarUrl } from './users.js';
import type { RealmEmailDomains } from '../lib/realm_email_domains.js';
import type { EditEntry } from '../store/messages.js';
import { EMPTY_TOPIC_DISPLAY_NAME } from '../lib/message_text.js';
import { messageExtras } from '../store/message_extras.js';
import { submessageForClient } from '../store/submessages.js';


export interface MessageShapeOptions {
  applyMarkdown: boolean;
  clientGravatar: boolean;
  /** false: show the empty topic as realm_empty_topic_display_name, for clients that predate it. */
  allowEmptyTopicName: boolean;
  /** The organization's linkifiers, for topic_links (none: an empty list). */
  linkifiers?: readonly LinkifierRule[];
}


function displayUser(u: User, domains: RealmEmailDomains) {
  return { id: u.id, email: apiEmail(u, domains), full_name: u.full_name, is_mirror_dummy: false };
}

const isMove = (e: EditEntry) => e.prev_topic !== undefined || e.prev_stream !== undefined;

/** Resolving or unresolving a topic (adding or removing Zulip's "✔ " prefix) is not a move. */
function isResolveOnly(e: EditEntry): boolean {
  if (e.prev_stream !== undefined || e.prev_topic === undefined || e.topic === undefined) return false;
  const bare = (t: string) => t.replace(/^\u2714 /, '');
  return bare(e.prev_topic) === bare(e.topic) && e.prev_topic !== e.topic;
}

/**
 * edit_history (newest first, as the organization lets members see it), last_edit_timestamp (the
 * last content edit) and last_moved_timestamp (the last move other than resolving).
 */
function editFields(m: MessageRow, realm: Realm, o: MessageShapeOptions): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  let history: EditEntry[] = [];
  if (m.edit_history) {
    try {
      history = JSON.parse(m.edit_history) as EditEntry[];
    } catch {
      history = [];
    }
  }
  if (history.length === 0) {
    if (m.last_edit_time !== null) out.last_edit_timestamp = m.last_edit_time;
    return out;
  }
  const newestFirst = [...history].reverse();
  const lastEdit = newestFirst.find((e) => e.prev_content !== undefined);
  const lastMove = newestFirst.find((e) => isMove(e) && !isResolveOnly(e));
  if (lastEdit) out.last_edit_timestamp = lastEdit.timestamp;
  if (lastMove) out.last_moved_timestamp = lastMove.timestamp;
  const policy = realm.settings.allow_edit_history ? realm.settings.message_edit_history_visibility_policy : 'none';
  if (policy === 'none') return out;
  const topicName = (t: string) => (t === '' && !o.allowEmptyTopicName ? EMPTY_TOPIC_DISPLAY_NAME : t);
  const visible: Record<string, unknown>[] = [];
  for (const e of newestFirst) {
    const entry: Record<string, unknown> = { timestamp: e.timestamp, user_id: e.user_id };
    if (policy === 'all' && e.prev_content !== undefined) {
      entry.prev_content = e.prev_content;
      if (e.prev_rendered_content !== undefined) entry.prev_rendered_content = e.prev_rendered_content;
    }
    if (e.prev_topic !== undefined) entry.prev_topic = topicName(e.prev_topic);
    if (e.topic !== undefined) entry.topic = topicName(e.topic);
    if (e.prev_stream !== undefined) entry.prev_stream = e.prev_stream;
    if (e.stream !== undefined) entry.stream = e.stream;
    // With the "moves" policy, content-only edits are left out entirely.
    if (policy === 'all' || isMove(e)) visible.push(entry);
  }
  if (visible.length) out.edit_history = visible;
  return out;
}

/** The message without viewer-specific parts (flags), in the form events and fetches share. */
export function shapeMessage(
  m: MessageRow,
  realm: Realm,
  users: Map<number, User>,
  domains: RealmEmailDomains,
  streamNames: Map<number, string>,
  dmMembers: Map<number, number[]>,
  o: MessageShapeOptions,
  avatarOf: (sender: User) => string | null = (sender) => avatarUrl(sender, o.clientGravatar),
): Record<string, unknown> {
  const sender = users.get(m.sender_id);
  const isStream = m.recipient_type === 'stream';
  const topic = m.topic === '' && !o.allowEmptyTopicName ? EMPTY_TOPIC_DISPLAY_NAME : m.topic;
  const out: Record<string, unknown> = {
    id: m.id,
    sender_id: m.sender_id,
    content: o.applyMarkdown ? m.rendered_content : m.content,
    content_type: o.applyMarkdown ? 'text/html' : 'text/x-markdown',
    recipient_id: m.recipient_id,
    timestamp: m.date_sent,
    client: m.sending_client,
    subject: isStream ? topic : '',
    topic_links: isStream && m.topic ? topicLinks(m.topic, o.linkifiers ?? []) : [],
    // Zulip's rule: a message that starts with "/me " is a status ("/me waves").
    is_me_message: m.content.startsWith('/me '),
    reactions: [],
    submessages: [],
    sender_full_name: sender?.full_name ?? '',
    sender_email: sender ? apiEmail(sender, domains) : '',
    sender_realm_str: realm.string_id,
    avatar_url: sender ? avatarOf(sender) : null,
    type: isStream ? 'stream' : 'private',
  };
  if (isStream) {
    out.display_recipient = streamNames.get(m.stream_id!) ?? '';
    out.stream_id = m.stream_id;
  } else {
    const members = dmMembers.get(m.dm_group_id!) ?? [];
    out.display_recipient = members.map((id) => users.get(id)).filter((u): u is User => !!u).map((u) => displayUser(u, domains));
  }
  return Object.assign(out, editFields(m, realm, o));
}

/**
 * Looks up what shaping needs for a batch of messages: channel names, DM participants, linkifiers.
 * `knownStreams`: channels the caller has just read (a narrow's), not read again.
 */
export async function shapeContext(services: Services, realm: Realm, rows: MessageRow[], knownStreams: readonly Stream[] = []) {
  const known = new Map(knownStreams.map((s) => [s.id, s]));
  const streamIds = [...new Set(rows.filter((m) => m.stream_id !== null && !known.has(m.stream_id)).map((m) => m.stream_id!))];
  const groupIds = [...new Set(rows.filter((m) => m.dm_group_id !== null).map((m) => m.dm_group_id!))];
  const [fetched, dmMembers, users, linkifiers] = await Promise.all([
    getStreamsByIds(services.database.db, realm.id, streamIds),
    dmGroupMembers(services.database.db, groupIds),
    services.cache.users(realm.id),
    rows.some((m) => m.topic !== '') ? services.cache.linkifiers(realm.id) : Promise.resolve([]),
  ]);
  // A system bot (Notification Bot, Welcome Bot) belongs to no organization of people: when one
  // sent a message or shares a conversation, the shared bots join the map. Anyone else the cached
  // users lack was made by another process a moment ago, and is read (no query when none is).
  const absent = new Set<number>();
  for (const m of rows) if (!users.has(m.sender_id)) absent.add(m.sender_id);
  for (const ids of dmMembers.values()) for (const id of ids) if (!users.has(id)) absent.add(id);
  let everyone = users;
  if (absent.size) {
    const bots = await services.cache.systemBots();
    const unknown = [...absent].filter((id) => !bots.has(id));
    const found = unknown.length ? await services.cache.usersIncluding(realm.id, unknown) : users;
    everyone = new Map([...found, ...bots]);
  }
  const streams = [...known.values(), ...fetched];
  return { streamNames: new Map(streams.map((s) => [s.id, s.name])), dmMembers, users: everyone, linkifiers };
}

export async function formatMessages(
  services: Services,
  realm: Realm,
  rows: Array<MessageRow & { flags: number }>,
  o: MessageShapeOptions,
  knownStreams: readonly Stream[] = [],
): Promise<Record<string, unknown>[]> {
  const [ctx, { reactions, submessages }] = await Promise.all([
    shapeContext(services, realm, rows, knownStreams),
    messageExtras(services.database.db, rows.map((m) => m.id)),
  ]);
  const options = { ...o, linkifiers: o.linkifiers ?? ctx.linkifiers };
  // Each sender's avatar URL is computed once however many of their messages the page holds.
  const avatars = new Map<number, string | null>();
  const avatarOf = (sender: User) => {
    if (!avatars.has(sender.id)) avatars.set(sender.id, avatarUrl(sender, o.clientGravatar));
    return avatars.get(sender.id)!;
  };
  const reactionsOf = (id: number) =>
    (reactions.get(id) ?? []).map((r) => ({ emoji_name: r.emoji_name, emoji_code: r.emoji_code, reaction_type: r.reaction_type, user_id: r.user_id }));
  const submessagesOf = (id: number) => (submessages.get(id) ?? []).map(submessageForClient);
  return rows.map((m) => ({
    ...shapeMessage(m, realm, ctx.users, services.emailDomains, ctx.streamNames, ctx.dmMembers, options, avatarOf),
    reactions: reactionsOf(m.id),
    submessages: submessagesOf(m.id),
    flags: flagNames(m.flags),
  }));
}
