// The client's state as signals: who is logged in, the organization's users and channels, unread
// messages, the open view and its messages. Events from the server (events.ts) update it.
import { batch, computed, signal } from '@preact/signals';
import type { Term, View } from './narrow';

export interface User {
  user_id: number;
  full_name: string;
  email: string;
  is_active: boolean;
  is_bot: boolean;
  /** One of the bots every organization shares (cross_realm_bots). */
  is_system_bot?: boolean;
  role: number;
  avatar_url?: string | null;
}

export interface Subscription {
  stream_id: number;
  name: string;
  description: string;
  color: string;
  is_muted: boolean;
  invite_only: boolean;
  /** The channel's own desktop notification setting; null follows the user's. */
  desktop_notifications?: boolean | null;
  is_archived?: boolean;
}

export interface Reaction {
  emoji_name: string;
  emoji_code: string;
  reaction_type: string;
  user_id: number;
}

export interface Message {
  id: number;
  sender_id: number;
  sender_full_name: string;
  sender_email: string;
  content: string;
  subject: string;
  stream_id?: number;
  display_recipient: string | Array<{ id: number; email: string; full_name: string }>;
  type: 'stream' | 'private';
  timestamp: number;
  reactions: Reaction[];
  flags: string[];
  last_edit_timestamp?: number;
  last_moved_timestamp?: number;
  /** A "/me" status message ("/me waves"): shown as the sender's name followed by its text. */
  is_me_message?: boolean;
  /** In a search's results: the content with the words found marked (<span class="highlight">). */
  match_content?: string;
}

export interface UnreadInfo {
  stream_id?: number;
  topic?: string;
  dm?: string;
  mentioned: boolean;
}

export type Connection = 'connected' | 'reconnecting' | 'loading';

export const me = signal<{ user_id: number; email: string; full_name: string; role: number; is_admin: boolean }>({
  user_id: 0,
  email: '',
  full_name: '',
  role: 400,
  is_admin: false,
});

/** The other people of a direct message; everyone in it when one wrote to oneself. */
export function dmOthers(m: Message): Array<{ id: number; full_name: string }> {
  const all = Array.isArray(m.display_recipient) ? m.display_recipient : [];
  const others = all.filter((r) => r.id !== me.value.user_id);
  return others.length ? others : all;
}

export const realm = signal<{ name: string; description: string; emoji: Record<string, { id: string; name: string; source_url: string; deactivated: boolean }> }>({
  name: 'Confab',
  description: '',
  emoji: {},
});
export const users = signal(new Map<number, User>());
/** The organization's settings from /register (realm_*), kept current by realm events. */
export interface Draft {
  id: number;
  type: 'stream' | 'private' | '';
  to: number[];
  topic: string;
  content: string;
  timestamp: number;
}
export const drafts = signal(new Map<number, Draft>());
export const realmSettings = signal<Record<string, unknown>>({});
export const subs = signal(new Map<number, Subscription>());
export const allStreams = signal(new Map<number, { stream_id: number; name: string; description: string; invite_only: boolean; is_archived?: boolean; subscriber_count?: number }>());
export const userSettings = signal<Record<string, unknown>>({});
// Each topic's visibility policy from /register's user_topics and user_topic events, by topicKey:
// muted (1), unmuted (2) or followed (3); a topic without one is absent (Zulip's user_topics).
export const TOPIC_MUTED = 1;
export const TOPIC_UNMUTED = 2;
export const TOPIC_FOLLOWED = 3;
export const topicPolicies = signal(new Map<string, number>());
export const connection = signal<Connection>('loading');
export const ready = signal(false);

// Unread messages by id, with where they are; counts are computed from it.
export const unread = signal(new Map<number, UnreadInfo>());
export const dmConversations = signal(new Map<string, number>()); // key "3,7" → newest message id
export const topicsByStream = signal(new Map<number, Array<{ name: string; max_id: number }>>());
export const presence = signal(new Map<number, { active: boolean; ts: number }>());
export const typing = signal(new Map<string, Set<number>>()); // conversation key → typing user ids

export const view = signal<View>({ kind: 'narrow', terms: [] });
export const feed = signal<Message[]>([]);
export const feedState = signal({ loading: false, foundOldest: false, foundNewest: false, error: '' });
export const selectedId = signal<number | null>(null);
// The newest message this person sent that arrived in the open feed: the feed scrolls to it.
export const ownArrived = signal<number | null>(null);
export const composeOpen = signal(false);
export const sidebarOpen = signal(false);
export const overlay = signal<'' | 'shortcuts' | 'profile'>('');
export const toast = signal('');

export function topicKey(streamId: number, topic: string): string {
  return `${streamId}\u0000${topic.toLowerCase()}`;
}

/**
 * Whether a channel's topic is part of the combined feed (Zulip's in:home), the Inbox and the
 * unread counts: not a muted topic, and not in a muted channel unless the topic is unmuted or followed.
 */
export function topicInHome(streamId: number, topic: string): boolean {
  return keyInHome(streamId, topicKey(streamId, topic));
}

/** topicInHome of a topic's key (the unread counts have it already). */
function keyInHome(streamId: number, key: string): boolean {
  const policy = topicPolicies.value.get(key) ?? 0;
  if (policy === TOPIC_MUTED) return false;
  // Followed topics count as unmuted in a muted channel (Zulip's is_topic_unmuted_or_followed).
  return !subs.value.get(streamId)?.is_muted || policy >= TOPIC_UNMUTED;
}

/** A topic's visibility policy; 0 (Zulip's INHERIT) when it has none. */
export function topicPolicy(streamId: number, topic: string): number {
  return topicPolicies.value.get(topicKey(streamId, topic)) ?? 0;
}

/** The other people of a direct conversation, sorted, as the key of its unread count ("" for one's own). */
export function dmKeyOf(userIds: number[]): string {
  const mine = me.value.user_id;
  return [...new Set(userIds.filter((id) => id !== mine))].sort((a, b) => a - b).join(',');
}

export function messageDmKey(m: Message): string {
  if (!Array.isArray(m.display_recipient)) return '';
  return dmKeyOf(m.display_recipient.map((r) => r.id));
}

export const unreadCounts = computed(() => {
  const streams = new Map<number, number>();
  const topics = new Map<string, number>();
  const dms = new Map<string, number>();
  let mentions = 0;
  let total = 0;
  for (const info of unread.value.values()) {
    if (info.mentioned) mentions++;
    if (info.stream_id !== undefined) {
      const key = topicKey(info.stream_id, info.topic ?? '');
      topics.set(key, (topics.get(key) ?? 0) + 1);
      if (!keyInHome(info.stream_id, key)) continue;
      streams.set(info.stream_id, (streams.get(info.stream_id) ?? 0) + 1);
      total++;
    } else if (info.dm !== undefined) {
      dms.set(info.dm, (dms.get(info.dm) ?? 0) + 1);
      total++;
    }
  }
  return { streams, topics, dms, mentions, total };
});

export function userName(id: number): string {
  return users.value.get(id)?.full_name ?? `user ${id}`;
}
export function userEmail(id: number): string {
  return users.value.get(id)?.email ?? String(id);
}
export function channelName(id: number): string {
  return subs.value.get(id)?.name ?? allStreams.value.get(id)?.name ?? `channel ${id}`;
}
/** A person's id from their email (as Zulip's search operands and old links write them); 'me' is oneself. */
export function userIdByEmail(email: string): number | undefined {
  const e = email.toLowerCase();
  if (e === 'me') return me.value.user_id;
  for (const u of users.value.values()) if (u.email.toLowerCase() === e) return u.user_id;
  return undefined;
}
export function channelIdByName(name: string): number | undefined {
  const n = name.toLowerCase().replace(/-/g, ' ');
  for (const s of allStreams.value.values()) if (s.name.toLowerCase() === name.toLowerCase() || s.name.toLowerCase() === n) return s.stream_id;
  return undefined;
}

export function setUnread(update: (m: Map<number, UnreadInfo>) => void): void {
  const next = new Map(unread.value);
  update(next);
  unread.value = next;
}

export function unreadInfoOf(m: Message): UnreadInfo {
  const mentioned = m.flags.some((f) => f === 'mentioned' || f === 'stream_wildcard_mentioned' || f === 'topic_wildcard_mentioned' || f === 'wildcard_mentioned');
  return m.type === 'stream' ? { stream_id: m.stream_id, topic: m.subject, mentioned } : { dm: messageDmKey(m), mentioned };
}

/** Whether a message belongs in the terms of a narrow (for live insertion). Unknown terms: no. */
export function matchesTerms(m: Message, terms: Term[]): boolean {
  // The combined feed (in:home, feed_loading.ts): not a muted channel's or topic's.
  if (!terms.length) return m.type !== 'stream' || topicInHome(m.stream_id!, m.subject);
  for (const t of terms) {
    let ok: boolean;
    switch (t.operator) {
      case 'channel':
        ok = m.type === 'stream' && m.stream_id === t.operand;
        break;
      case 'topic':
        ok = m.type === 'stream' && m.subject.toLowerCase() === String(t.operand).toLowerCase();
        break;
      case 'dm':
        ok = Array.isArray(t.operand) && m.type === 'private' && messageDmKey(m) === dmKeyOf(t.operand);
        break;
      case 'is':
        if (t.operand === 'dm') ok = m.type === 'private';
        else if (t.operand === 'mentioned') ok = unreadInfoOf(m).mentioned;
        else if (t.operand === 'starred') ok = m.flags.includes('starred');
        else if (t.operand === 'unread') ok = !m.flags.includes('read');
        else return false;
        break;
      case 'sender':
        ok = m.sender_id === t.operand;
        break;
      default:
        return false;
    }
    if (ok === !!t.negated) return false;
  }
  return true;
}

export function updateFeed(f: (msgs: Message[]) => Message[]): void {
  feed.value = f(feed.value);
}

export function replaceMessage(id: number, f: (m: Message) => Message): void {
  const i = feed.value.findIndex((m) => m.id === id);
  if (i < 0) return;
  const next = feed.value.slice();
  next[i] = f(next[i]!);
  feed.value = next;
}

export function showToast(text: string): void {
  toast.value = text;
  setTimeout(() => {
    if (toast.value === text) toast.value = '';
  }, 4000);
}

export { batch };
