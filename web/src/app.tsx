// The logged-in app: header with search, the sidebar, the open view (feed and compose, or the lazily
// loaded settings and administration), routes from Zulip's URL hashes, and keyboard shortcuts.
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { effect, signal } from '@preact/signals';
import type { ComponentType } from 'preact';
import { api } from './api';
import { fetchTopics, loadView } from './feed_loading';
import { setNavigator } from './navigator';
import { channelHash, dmHash, parseHash, peopleOperand, parseSearch, termsToSearch, topicHash, viewHash, type Term, type View } from './narrow';
import {
  allStreams, channelIdByName, channelName, composeOpen, connection, dmConversations, feed, me, mutedTopics, overlay, presence, realm, selectedId, sidebarOpen,
  subs, toast, topicKey, topicsByStream, unreadCounts, userEmail, userIdByEmail, userName, users, userSettings, view,
} from './state';
import { Feed, feedApi, JumpToUnread } from './feed';
import { Compose, composeApi } from './compose';
import { openProfile, Profile } from './profile';
import { MarkAllRead } from './markread';

export function navigate(v: View): void {
  const hash = viewHash(v, channelName, userName);
  sidebarOpen.value = false;
  if (location.hash === hash) {
    view.value = v;
    void loadView(v);
  } else {
    location.hash = hash;
  }
}
setNavigator(navigate);

// The view an address without a hash opens: the user's web_home_view, remembered in the browser so
// the view can load beside /register instead of after it.
const HOME_VIEW_KEY = 'confab.home_view';
function homeView(): View {
  const pref = String(userSettings.value.web_home_view ?? localStorage.getItem(HOME_VIEW_KEY) ?? 'inbox');
  if (pref === 'all_messages') return { kind: 'narrow', terms: [] };
  if (pref === 'recent' || pref === 'recent_topics') return { kind: 'recent' };
  return { kind: 'inbox' };
}
const isHome = () => location.hash.replace(/^#/, '') === '';

let appliedHash: string | null = null;
/** The view of the address's hash; also called at login, so messages load beside /register. */
export function applyHash(): void {
  appliedHash = location.hash;
  const v = isHome() ? homeView() : parseHash(location.hash, channelIdByName, userIdByEmail);
  view.value = v;
  selectedId.value = null;
  sidebarOpen.value = false;
  if (v.kind === 'narrow') void loadView(v);
}

// The home view setting arrived (from /register or a change made elsewhere): remember it, and show
// it if the address has no hash and another view was guessed.
effect(() => {
  const pref = userSettings.value.web_home_view;
  if (pref === undefined) return;
  localStorage.setItem(HOME_VIEW_KEY, String(pref));
  if (appliedHash === null || !isHome()) return;
  const home = homeView();
  const now = view.peek();
  if (home.kind !== now.kind || (now.kind === 'narrow' && now.terms.length > 0)) applyHash();
});

// A link naming its channel or people instead of their ids (#narrow/channel/general,
// #narrow/dm/zoe@example.com), opened as the page loads, is read before the organization's data
// arrives: read it again once it has, so that the view is the conversation itself (its title,
// compose addressed to it), not a search for the name.
effect(() => {
  if (allStreams.value.size === 0 || users.value.size === 0) return;
  const v = view.peek();
  if (v.kind !== 'narrow' || appliedHash !== location.hash) return;
  const named = v.terms.some((t) => typeof t.operand === 'string' && ['channel', 'dm', 'sender', 'dm-including'].includes(t.operator));
  if (named && JSON.stringify(parseHash(location.hash, channelIdByName, userIdByEmail)) !== JSON.stringify(v)) applyHash();
});

// Theme: Zulip's color_scheme (1 automatic, 2 dark, 3 light).
effect(() => {
  const scheme = Number(userSettings.value.color_scheme ?? 1);
  document.documentElement.dataset.theme = scheme === 2 ? 'dark' : scheme === 3 ? 'light' : 'auto';
});

const lazyModules = signal<Record<string, ComponentType<{ tab: string }>>>({});
function loadLazy(name: 'settings' | 'admin'): void {
  if (lazyModules.value[name]) return;
  const p = name === 'settings' ? import('./settings') : import('./admin');
  void p.then((m) => (lazyModules.value = { ...lazyModules.value, [name]: m.default }));
}

function channelTerm(v: View): number | undefined {
  if (v.kind !== 'narrow') return undefined;
  const t = v.terms.find((x) => x.operator === 'channel' && !x.negated);
  return typeof t?.operand === 'number' ? t.operand : undefined;
}
function topicTerm(v: View): string | undefined {
  if (v.kind !== 'narrow') return undefined;
  const t = v.terms.find((x) => x.operator === 'topic' && !x.negated);
  return t ? String(t.operand) : undefined;
}
function dmTerm(v: View): number[] | undefined {
  if (v.kind !== 'narrow') return undefined;
  const t = v.terms.find((x) => x.operator === 'dm' && !x.negated);
  return Array.isArray(t?.operand) ? t.operand : undefined;
}

function Count({ n, label }: { n: number | undefined; label?: string }) {
  if (!n) return null;
  return (
    <span class="count" aria-label={`${n} unread${label ? ` ${label}` : ''}`}>
      {n}
    </span>
  );
}

function Sidebar() {
  const v = view.value;
  const counts = unreadCounts.value;
  const openChannel = channelTerm(v);
  const openTopic = topicTerm(v)?.toLowerCase();
  const openDm = dmTerm(v)?.join(',');
  const isView = (terms: Term[]) => v.kind === 'narrow' && !v.search && JSON.stringify(v.terms) === JSON.stringify(terms);
  const sortedSubs = [...subs.value.values()].filter((s) => !s.is_archived).sort((a, b) => a.name.localeCompare(b.name));
  const dms = [...dmConversations.value.entries()].sort((a, b) => b[1] - a[1]).slice(0, 20);
  const topics = openChannel !== undefined ? (topicsByStream.value.get(openChannel) ?? []) : [];
  // Someone with a conversation listed above is not listed again under People: one link per
  // person in the sidebar, so that a link found by the person's name is theirs alone.
  const listed = new Set(dms.filter(([key]) => key !== '' && !key.includes(',')).map(([key]) => Number(key)));
  const people = [...users.value.values()]
    .filter((u) => u.is_active && !u.is_bot && u.user_id !== me.value.user_id && !listed.has(u.user_id))
    .sort((a, b) => a.full_name.localeCompare(b.full_name))
    .slice(0, 50);
  return (
    // On a phone the drawer closes on any link or button taken in it, also the link to the view
    // already open (no hash change then, so applyHash does not run) and "New direct message".
    <nav class={`sidebar${sidebarOpen.value ? ' open' : ''}`} aria-label="Conversations" onClick={(e) => (e.target as HTMLElement).closest('a[href], button') && (sidebarOpen.value = false)}>
      <ul class="views">
        <li>
          <a href="#inbox" aria-current={v.kind === 'inbox' ? 'page' : undefined}>
            Inbox <Count n={counts.total} />
          </a>
        </li>
        <li>
          <a href="#recent" aria-current={v.kind === 'recent' ? 'page' : undefined}>
            Recent conversations
          </a>
        </li>
        <li>
          <a href="#feed" aria-current={isView([]) ? 'page' : undefined}>
            Combined feed
          </a>
        </li>
        <li>
          <a href="#narrow/is/mentioned" aria-current={isView([{ operator: 'is', operand: 'mentioned' }]) ? 'page' : undefined}>
            Mentions <Count n={counts.mentions} />
          </a>
        </li>
        <li>
          <a href="#narrow/is/starred" aria-current={isView([{ operator: 'is', operand: 'starred' }]) ? 'page' : undefined}>
            Starred
          </a>
        </li>
      </ul>
      <h2>Channels</h2>
      <ul class="channels">
        {sortedSubs.map((s) => (
          <li key={s.stream_id} class={s.is_muted ? 'muted' : ''}>
            <a href={channelHash(s.stream_id, s.name)} aria-current={openChannel === s.stream_id && openTopic === undefined ? 'page' : undefined}>
              <span class="swatch" style={{ background: s.color }} aria-hidden="true" />
              <span class="name">{s.invite_only ? '🔒 ' : '# '}{s.name}</span>
              {s.is_muted ? <span class="sr-only"> (muted)</span> : null}
              <Count n={counts.streams.get(s.stream_id)} />
            </a>
            {openChannel === s.stream_id && topics.length > 0 && (
              <ul class="topics" aria-label={`Topics in ${s.name}`}>
                {topics.slice(0, 30).map((t) => {
                  const key = topicKey(s.stream_id, t.name);
                  const resolved = t.name.startsWith('✔ ');
                  return (
                    <li key={t.name} class={mutedTopics.value.has(key) ? 'muted' : ''}>
                      <a href={topicHash(s.stream_id, s.name, t.name)} aria-current={openTopic === t.name.toLowerCase() ? 'page' : undefined} class={resolved ? 'resolved' : ''}>
                        <span class="name">{t.name || '(no topic)'}</span>
                        {mutedTopics.value.has(key) ? <span class="sr-only"> (muted)</span> : null}
                        <Count n={counts.topics.get(key)} />
                      </a>
                    </li>
                  );
                })}
              </ul>
            )}
          </li>
        ))}
      </ul>
      <h2>Direct messages</h2>
      <ul class="dms">
        {dms.map(([key]) => {
          const ids = key ? key.split(',').map(Number) : [me.value.user_id];
          const names = ids.map(userName);
          const active = ids.length === 1 && presence.value.get(ids[0]!)?.active;
          return (
            <li key={key}>
              <a href={dmHash(key ? ids : [me.value.user_id], names)} aria-current={openDm === ids.join(',') ? 'page' : undefined}>
                <span class={`presence${active ? ' active' : ''}`} aria-hidden="true" />
                <span class="name">{names.join(', ')}</span>
                <Count n={unreadCounts.value.dms.get(key)} />
              </a>
            </li>
          );
        })}
      </ul>
      <button type="button" class="link" onClick={() => composeApi.newDm([])}>
        New direct message
      </button>
      {people.length ? (
        <>
          <h2>People</h2>
          <ul class="people">
            {people.map((u) => (
              <li key={u.user_id}>
                <a href={dmHash([u.user_id], [u.full_name])} title={u.email}>
                  <span class={`presence${presence.value.get(u.user_id)?.active ? ' active' : ''}`} aria-hidden="true" />
                  <span class="name">{u.full_name}</span>
                </a>
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </nav>
  );
}

function SearchBox() {
  const v = view.value;
  const current = v.kind === 'narrow' && v.terms.length ? termsToSearch(v.terms, channelName, userEmail) : '';
  const [text, setText] = useState(current);
  useEffect(() => setText(current), [current]);
  const submit = (e: Event) => {
    e.preventDefault();
    const q = text.trim();
    if (!q) return navigate({ kind: 'narrow', terms: [] });
    const terms = parseSearch(q).map((t) => {
      if (t.operator === 'channel' && typeof t.operand === 'string') return { ...t, operand: channelIdByName(t.operand) ?? t.operand };
      // People by id, as the sidebar's links name them: the view is then the same conversation
      // (its title, and compose addressed to it), not a search for an address.
      if ((t.operator === 'dm' || t.operator === 'sender' || t.operator === 'dm-including') && typeof t.operand === 'string') {
        const operand = peopleOperand(t.operator, t.operand, userIdByEmail);
        if (operand !== undefined) return { ...t, operand };
      }
      return t;
    });
    const search = terms.filter((t) => t.operator === 'search').map((t) => String(t.operand)).join(' ');
    navigate({ kind: 'narrow', terms, search: search || undefined });
    (document.activeElement as HTMLElement | null)?.blur();
  };
  return (
    <form role="search" class="search" onSubmit={submit}>
      <input id="search" type="search" aria-label="Search" placeholder="Search" value={text} onInput={(e) => setText(e.currentTarget.value)} />
    </form>
  );
}

function Inbox() {
  const counts = unreadCounts.value;
  const rows: Array<{ href: string; label: string; n: number }> = [];
  for (const [key, n] of counts.topics) {
    const [sid, topic] = key.split('\u0000') as [string, string];
    const streamId = Number(sid);
    if (!subs.value.has(streamId)) continue;
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
              <span class="name">{r.label}</span> <Count n={r.n} />
            </a>
          </li>
        ))}
      </ul>
    </section>
  );
}

function Recent() {
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

function viewTitle(v: View): string {
  if (v.kind !== 'narrow') return '';
  if (v.search) return `Search results`;
  const ch = channelTerm(v);
  const tp = topicTerm(v);
  const dm = dmTerm(v);
  if (ch !== undefined) return tp !== undefined ? `#${channelName(ch)} › ${tp}` : `#${channelName(ch)}`;
  if (dm) return `Direct messages with ${dm.map(userName).join(', ')}`;
  if (v.terms.length === 0) return 'Combined feed';
  const is = v.terms.find((t) => t.operator === 'is');
  if (is?.operand === 'mentioned') return 'Mentions';
  if (is?.operand === 'starred') return 'Starred messages';
  if (is?.operand === 'dm') return 'Direct messages';
  const sender = v.terms.find((t) => t.operator === 'sender' && !t.negated);
  if (v.terms.length === 1 && typeof sender?.operand === 'number') return `Messages sent by ${userName(sender.operand)}`;
  return termsToSearch(v.terms, channelName, userEmail);
}

const SHORTCUTS: Array<[string, string]> = [
  ['c', 'New topic in the open channel'],
  ['x', 'New direct message'],
  ['r / Enter', 'Reply to the selected message'],
  ['j / ↓', 'Next message'],
  ['k / ↑', 'Previous message'],
  ['u', "The selected message's sender"],
  ['n', 'Next unread topic'],
  ['/', 'Search'],
  ['Esc', 'Close, cancel, leave a field'],
  ['?', 'This list'],
];

function Shortcuts() {
  // Where the focus was when the list opened (read at the first render, before anything moved
  // it): it goes back there once the list closes.
  const before = useRef(document.activeElement as HTMLElement | null);
  useLayoutEffect(() => {
    document.getElementById('shortcuts-close')?.focus();
    return () => before.current?.focus?.();
  }, []);
  return (
    <div class="overlay" role="dialog" aria-modal="true" aria-labelledby="shortcuts-title">
      <div class="dialog">
        <h2 id="shortcuts-title">Keyboard shortcuts</h2>
        <table>
          <tbody>
            {SHORTCUTS.map(([k, d]) => (
              <tr key={k}>
                <td>
                  <kbd>{k}</kbd>
                </td>
                <td>{d}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <button id="shortcuts-close" type="button" onClick={() => (overlay.value = '')}>
          Close
        </button>
      </div>
    </div>
  );
}

function nextUnreadTopic(): void {
  const counts = unreadCounts.value;
  const v = view.value;
  const cur = channelTerm(v) !== undefined && topicTerm(v) !== undefined ? topicKey(channelTerm(v)!, topicTerm(v)!) : '';
  for (const key of counts.topics.keys()) {
    if (key === cur) continue;
    const [sid, topic] = key.split('\u0000') as [string, string];
    const streamId = Number(sid);
    const sub = subs.value.get(streamId);
    if (!sub || sub.is_muted || mutedTopics.value.has(key)) continue;
    const real = (topicsByStream.value.get(streamId) ?? []).find((t) => t.name.toLowerCase() === topic)?.name ?? topic;
    navigate({ kind: 'narrow', terms: [{ operator: 'channel', operand: streamId }, { operator: 'topic', operand: real }] });
    return;
  }
  for (const key of counts.dms.keys()) {
    const ids = key ? key.split(',').map(Number) : [me.value.user_id];
    navigate({ kind: 'narrow', terms: [{ operator: 'dm', operand: ids }] });
    return;
  }
}

function onKey(e: KeyboardEvent): void {
  // The shortcuts dialog is modal: Tab stays on its only control, wherever the key was pressed.
  if (overlay.value === 'shortcuts' && e.key === 'Tab') {
    e.preventDefault();
    document.getElementById('shortcuts-close')?.focus();
    return;
  }
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  const t = e.target as HTMLElement;
  const typing = t.closest('input, textarea, select, [contenteditable="true"]');
  if (e.key === 'Escape') {
    if (overlay.value) overlay.value = '';
    else if (sidebarOpen.value) sidebarOpen.value = false;
    else if (typing) (t as HTMLElement).blur();
    else composeApi.close();
    return;
  }
  if (typing || overlay.value) return;
  const msgs = feed.value;
  const idx = selectedId.value === null ? -1 : msgs.findIndex((m) => m.id === selectedId.value);
  switch (e.key) {
    case 'c':
      e.preventDefault();
      composeApi.newTopic();
      break;
    case 'x':
      e.preventDefault();
      composeApi.newDm(dmTerm(view.value) ?? []);
      break;
    case 'r': {
      const m = msgs[idx] ?? msgs[msgs.length - 1];
      if (m) {
        e.preventDefault();
        composeApi.replyTo(m);
      }
      break;
    }
    case 'u': {
      // Zulip's u: the selected message's sender's card.
      const m = msgs[idx];
      if (m) {
        e.preventDefault();
        openProfile(m.sender_id);
      }
      break;
    }
    case 'Enter': {
      // Zulip's Enter on the selected message: a reply, as r. Only from the message itself (or
      // from nowhere): Enter on a button or link inside it does what that control does.
      const m = msgs[idx];
      if (m && (t === document.body || t.matches('article'))) {
        e.preventDefault();
        composeApi.replyTo(m);
      }
      break;
    }
    case 'j':
    case 'ArrowDown':
    case 'k':
    case 'ArrowUp': {
      if (!msgs.length) return;
      e.preventDefault();
      const down = e.key === 'j' || e.key === 'ArrowDown';
      const next = idx < 0 ? msgs.length - 1 : Math.max(0, Math.min(msgs.length - 1, idx + (down ? 1 : -1)));
      selectedId.value = msgs[next]!.id;
      // The feed is virtualized: the message may not be in the page until scrolled to.
      feedApi.reveal(msgs[next]!.id);
      break;
    }
    case 'Home':
    case 'End': {
      // Zulip's Home/End: the first or last loaded message (Home then loads older history).
      if (!msgs.length) return;
      e.preventDefault();
      const m = e.key === 'Home' ? msgs[0]! : msgs[msgs.length - 1]!;
      selectedId.value = m.id;
      feedApi.reveal(m.id, e.key === 'Home' ? 'start' : 'end');
      break;
    }
    case 'n':
      e.preventDefault();
      nextUnreadTopic();
      break;
    case '/':
      e.preventDefault();
      document.getElementById('search')?.focus();
      break;
    case '?':
      e.preventDefault();
      overlay.value = 'shortcuts';
      break;
  }
}

export function App({ onLogout }: { onLogout: () => void }) {
  useEffect(() => {
    window.addEventListener('hashchange', applyHash);
    document.addEventListener('keydown', onKey);
    if (appliedHash !== location.hash || view.value.kind !== 'narrow') applyHash();
    // Presence: active while the page is open.
    const ping = () => void api.post('/users/me/presence', { status: document.visibilityState === 'visible' ? 'active' : 'idle', slim_presence: true }).catch(() => {});
    ping();
    const timer = setInterval(ping, 60_000);
    return () => {
      window.removeEventListener('hashchange', applyHash);
      document.removeEventListener('keydown', onKey);
      clearInterval(timer);
    };
  }, []);
  const v = view.value;
  if (v.kind === 'settings') loadLazy('settings');
  if (v.kind === 'admin') loadLazy('admin');
  const Lazy = v.kind === 'settings' ? lazyModules.value.settings : v.kind === 'admin' ? lazyModules.value.admin : undefined;
  const title = viewTitle(v);
  useEffect(() => {
    const n = unreadCounts.value.total;
    document.title = `${n ? `(${n}) ` : ''}${title ? `${title} - ` : ''}${realm.value.name} - Confab`;
  }, [title, realm.value.name, unreadCounts.value.total]);
  const ch = channelTerm(v);
  return (
    <div class="app">
      <header class="top">
        <button type="button" class="menu" aria-label="Show conversations" aria-expanded={sidebarOpen.value} onClick={() => (sidebarOpen.value = !sidebarOpen.value)}>
          ☰
        </button>
        <a class="realm" href="#feed">
          {realm.value.name}
        </a>
        <SearchBox />
        <nav class="account" aria-label="Account">
          <a href="#settings/profile">Settings</a>
          {me.value.is_admin ? <a href="#organization/users">Administration</a> : null}
          <button type="button" class="link" onClick={onLogout}>
            Log out
          </button>
        </nav>
      </header>
      {connection.value === 'reconnecting' ? (
        <div class="banner" role="status">
          Reconnecting…
        </div>
      ) : null}
      <Sidebar />
      {/* On a phone, a tap beside the open drawer closes it. */}
      {sidebarOpen.value ? <div class="backdrop" aria-hidden="true" onClick={() => (sidebarOpen.value = false)} /> : null}
      <main class="main" id="main">
        {toast.value ? (
          <div class="toast" role="status">
            {toast.value}
          </div>
        ) : null}
        {v.kind === 'inbox' ? <Inbox /> : null}
        {v.kind === 'recent' ? <Recent /> : null}
        {v.kind === 'settings' || v.kind === 'admin' ? Lazy ? <Lazy tab={v.tab} /> : <p role="status">Loading…</p> : null}
        {v.kind === 'narrow' ? (
          <>
            <div class="narrow-bar">
              <h1>{title}</h1>
              <JumpToUnread />
              {!v.search && dmTerm(v) === undefined ? (
                <button type="button" onClick={() => composeApi.newTopic()}>
                  New topic
                </button>
              ) : null}
              {ch !== undefined && subs.value.get(ch) === undefined ? (
                <button type="button" onClick={() => void api.post('/users/me/subscriptions', { subscriptions: [{ name: channelName(ch) }] })}>
                  Subscribe
                </button>
              ) : null}
            </div>
            <Feed />
          </>
        ) : null}
        {v.kind === 'narrow' || composeOpen.value ? <Compose /> : null}
      </main>
      {overlay.value === 'shortcuts' ? <Shortcuts /> : null}
      {overlay.value === 'profile' ? <Profile /> : null}
    </div>
  );
}
