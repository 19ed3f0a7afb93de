// The Inbox (the conversations with unread messages, as the unread counts count them) and Recent
// conversations (the newest 200 messages' conversations) views.
import { useEffect, useState } from 'preact/hooks';
import { api } from './api';
import { fetchTopics } from './feed_loading';
import { MarkAllRead } from './markread';
import { dmHash, topicHash } from './narrow';
import { channelName, me, subs, topicInHome, topicsByStream, unreadCounts, userName } from './state';
import { UnreadCount } from './unread_count';

export function Inbox() {
  const counts = unreadCounts.value;
  const rows: Array<{ href: string; label: string; n: number }> = [];
  for (const [key, n] of counts.topics) {
    const [sid, topic] = key.split('\u0000') as [string, string];
    const streamId = Number(sid);
    // As Zulip's Inbox (its default "unmuted topics" filter): only subscribed channels, without
    // muted topics, and without a muted channel's topics unless unmuted or followed.
    if (!subs.value.has(streamId) || !topicInHome(streamId, topic)) continue;
    const real = (topicsByStream.value.get(streamId) ?? []).find((t) => t.name.toLowerCase() === topic)?.name ?? topic;
    rows.push({ href: topicHash(streamId, channelName(streamId), real), label: `${channelName(streamId)} › ${real}`, n });
  }
  for (const [key, n] of counts.dms) {
    const ids = key ? key.split(',').map(Number) : [me.value.user_id];
    rows.push({ href: dmHash(ids, ids.map(userName)), label: ids.map(userName).join(', '), n });
  }
  useEffect(() => {
    for (const sid of new Set([...counts.topics.keys()].map((k) => Number(k.split('\u0000')[0])))) if (!topicsByStream.value.has(sid)) void fetchTopics(sid);
  }, []);
  return (
    <section class="inbox" aria-label="Inbox">
      <h1>Inbox</h1>
      {rows.length === 0 ? <p class="muted">You have no unread messages.</p> : <MarkAllRead />}
      <ul>
        {rows.map((r) => (
          <li key={r.href}>
            <a href={r.href}>
              <span class="name">{r.label}</span> <UnreadCount n={r.n} />
            </a>
          </li>
        ))}
      </ul>
    </section>
  );
}

export function RecentConversations() {
  const [rows, setRows] = useState<Array<{ href: string; label: string; ts: number }> | null>(null);
  useEffect(() => {
    void api.get('/messages', { anchor: 'newest', num_before: 200, num_after: 0, apply_markdown: false }).then((res) => {
      const seen = new Map<string, { href: string; label: string; ts: number }>();
      for (const m of [...res.messages].reverse()) {
        const key = m.type === 'stream' ? `${m.stream_id}:${m.subject.toLowerCase()}` : `dm:${m.display_recipient.map((r: any) => r.id).join(',')}`;
        if (seen.has(key)) continue;
        if (m.type === 'stream') seen.set(key, { href: topicHash(m.stream_id, channelName(m.stream_id), m.subject), label: `${channelName(m.stream_id)} › ${m.subject}`, ts: m.timestamp });
        else {
          const ids = m.display_recipient.map((r: any) => r.id).filter((id: number) => id !== me.value.user_id);
          seen.set(key, { href: dmHash(ids.length ? ids : [me.value.user_id], ids.map(userName)), label: ids.map(userName).join(', ') || userName(me.value.user_id), ts: m.timestamp });
        }
      }
      setRows([...seen.values()]);
    });
  }, []);
  return (
    <section class="inbox" aria-label="Recent conversations">
      <h1>Recent conversations</h1>
      {!rows ? <p role="status">Loading…</p> : null}
      <ul>
        {(rows ?? []).map((r) => (
          <li key={r.href}>
            <a href={r.href}>
              <span class="name">{r.label}</span> <time class="muted">{new Date(r.ts * 1000).toLocaleString()}</time>
            </a>
          </li>
        ))}
      </ul>
    </section>
  );
}
