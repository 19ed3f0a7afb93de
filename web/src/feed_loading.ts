// The open view's messages: GET /messages with anchors for the view and for paging, the feed kept
// within bounds, and a channel's topics.
import { api } from './api';
import type { Term, View } from './narrow';
import { dmKeyOf, feed, feedState, Message, ready, topicsByStream, unread, view } from './state';

let loadSeq = 0;

// The combined feed is Zulip's in:home: without the muted channels and topics.
function apiNarrow(terms: Term[]): Array<{ operator: string; operand: unknown; negated?: boolean }> {
  if (!terms.some((t) => t.operator !== 'near')) return [{ operator: 'in', operand: 'home' }];
  return terms.filter((t) => t.operator !== 'near').map((t) => ({ operator: t.operator, operand: t.operand, ...(t.negated ? { negated: true } : {}) }));
}

export async function loadView(v: View, keep = false): Promise<void> {
  if (v.kind !== 'narrow') return;
  const seq = ++loadSeq;
  if (!keep) feed.value = [];
  feedState.value = { loading: true, foundOldest: false, foundNewest: false, error: '' };
  try {
    // 'first_unread' costs the server a search for the first unread message; when this client
    // knows the narrow has none, 'newest' gives the same answer.
    const anchor = v.near ?? (v.search || !mayHaveUnread(v.terms) ? 'newest' : 'first_unread');
    const res = await api.get('/messages', { narrow: apiNarrow(v.terms), anchor, num_before: 60, num_after: 60, apply_markdown: true, client_gravatar: true });
    if (seq !== loadSeq) return;
    feed.value = res.messages.map((m: Message) => ({ ...m, reactions: m.reactions ?? [], flags: m.flags ?? [] }));
    feedState.value = { loading: false, foundOldest: !!res.found_oldest, foundNewest: !!res.found_newest, error: '' };
  } catch (e) {
    if (seq !== loadSeq) return;
    feedState.value = { loading: false, foundOldest: true, foundNewest: true, error: e instanceof Error ? e.message : String(e) };
  }
  const ch = v.terms.find((t) => t.operator === 'channel');
  if (ch && typeof ch.operand === 'number') void fetchTopics(ch.operand);
}

function mayHaveUnread(terms: Term[]): boolean {
  if (!ready.value) return true;
  const ch = terms.find((t) => t.operator === 'channel' && !t.negated);
  const tp = terms.find((t) => t.operator === 'topic' && !t.negated);
  const dm = terms.find((t) => t.operator === 'dm' && !t.negated);
  for (const info of unread.value.values()) {
    if (ch && info.stream_id !== ch.operand) continue;
    if (tp && (info.topic ?? '').toLowerCase() !== String(tp.operand).toLowerCase()) continue;
    if (dm && (!Array.isArray(dm.operand) || info.dm !== dmKeyOf(dm.operand))) continue;
    return true;
  }
  return false;
}

export async function loadMore(direction: 'older' | 'newer'): Promise<boolean> {
  const v = view.value;
  const st = feedState.value;
  if (v.kind !== 'narrow' || st.loading || feed.value.length === 0) return false;
  if (direction === 'older' ? st.foundOldest : st.foundNewest) return false;
  const seq = loadSeq;
  feedState.value = { ...st, loading: true };
  const anchor = direction === 'older' ? feed.value[0]!.id : feed.value[feed.value.length - 1]!.id;
  try {
    const res = await api.get('/messages', {
      narrow: apiNarrow(v.terms),
      anchor,
      include_anchor: false,
      num_before: direction === 'older' ? 100 : 0,
      num_after: direction === 'newer' ? 100 : 0,
      apply_markdown: true,
      client_gravatar: true,
    });
    if (seq !== loadSeq) return false;
    const got: Message[] = res.messages.map((m: Message) => ({ ...m, reactions: m.reactions ?? [], flags: m.flags ?? [] }));
    const have = new Set(feed.value.map((m) => m.id));
    const fresh = got.filter((m) => !have.has(m.id));
    feed.value = direction === 'older' ? [...fresh, ...feed.value] : [...feed.value, ...fresh];
    trimFeed(direction === 'older' ? 'newer' : 'older');
    feedState.value = {
      ...feedState.value,
      loading: false,
      foundOldest: direction === 'older' ? !!res.found_oldest : feedState.value.foundOldest,
      foundNewest: direction === 'newer' ? !!res.found_newest : feedState.value.foundNewest,
    };
    return fresh.length > 0;
  } catch {
    feedState.value = { ...feedState.value, loading: false };
    return false;
  }
}

// The feed is virtualized (feed.tsx), so it can hold thousands of messages, but not without bound:
// paging back keeps up to MAX_FEED (the far end is dropped and loads again when the reader scrolls
// back to it), and while the reader follows live traffic at the bottom the older end is cut to
// MAX_LIVE, so hours of traffic do not grow the page.
const MAX_FEED = 5000;
export const MAX_LIVE = 1000;
export function trimFeed(end: 'older' | 'newer', max = MAX_FEED): void {
  const f = feed.value;
  if (f.length <= max) return;
  const st = feedState.value;
  if (end === 'older') {
    // Only while the reader follows the newest messages (otherwise their place would move).
    const el = document.querySelector('.feed');
    if (el && el.scrollHeight - el.scrollTop - el.clientHeight > 200) return;
    feed.value = f.slice(f.length - max);
    feedState.value = { ...st, foundOldest: false };
  } else {
    feed.value = f.slice(0, max);
    feedState.value = { ...st, foundNewest: false };
  }
}

export async function fetchTopics(streamId: number): Promise<void> {
  try {
    const res = await api.get(`/users/me/${streamId}/topics`);
    topicsByStream.value = new Map(topicsByStream.value).set(streamId, res.topics);
  } catch {
    /* the channel may be gone; its topics stay as they were */
  }
}
