// The logged-in app: header with search, the sidebar, the open view (feed and compose, the inbox
// views, or the lazily loaded settings, administration and channel browser). Routes are in
// routes.ts, keyboard shortcuts in keyboard.tsx.
import { useEffect, useRef, useState } from 'preact/hooks';
import { effect, signal } from '@preact/signals';
import type { ComponentType } from 'preact';
// The order of these imports is the order of the modules in the bundle: this one (that of the
// code before app.tsx was split) compresses ~0.3 KB smaller than an alphabetical one.
import { api } from './api';
import { channelTerm, dmTerm, parseSearch, peopleOperand, termsToSearch, topicTerm, type View } from './narrow';
import { channelIdByName, channelName, composeOpen, connection, me, overlay, realm, showToast, sidebarOpen, subs, toast, unreadCounts, userEmail, userIdByEmail, userName, userSettings, view } from './state';
import { Feed, JumpToUnread } from './feed';
import { Compose, composeApi } from './compose';
import { Profile } from './profile';
import { appliedHash, applyHash, navigate } from './routes';
import { Sidebar } from './sidebar';
import { Inbox, RecentConversations } from './inbox';
import { onShortcutKey, ShortcutsDialog } from './keyboard';

// Theme: Zulip's color_scheme (1 automatic, 2 dark, 3 light).
effect(() => {
  const scheme = Number(userSettings.value.color_scheme ?? 1);
  document.documentElement.dataset.theme = scheme === 2 ? 'dark' : scheme === 3 ? 'light' : 'auto';
});

const lazyModules = signal<Record<string, ComponentType<{ tab: string }>>>({});
function loadLazy(name: 'settings' | 'admin' | 'channels'): void {
  if (lazyModules.value[name]) return;
  const p = name === 'settings' ? import('./settings') : name === 'admin' ? import('./admin') : import('./channels');
  void p.then((m) => (lazyModules.value = { ...lazyModules.value, [name]: m.default }));
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

export function App({ onLogout }: { onLogout: () => void }) {
  useEffect(() => {
    window.addEventListener('hashchange', applyHash);
    document.addEventListener('keydown', onShortcutKey);
    if (appliedHash !== location.hash || view.value.kind !== 'narrow') applyHash();
    // Presence: active while the page is open.
    const ping = () => void api.post('/users/me/presence', { status: document.visibilityState === 'visible' ? 'active' : 'idle', slim_presence: true }).catch(() => {});
    ping();
    const timer = setInterval(ping, 60_000);
    return () => {
      window.removeEventListener('hashchange', applyHash);
      document.removeEventListener('keydown', onShortcutKey);
      clearInterval(timer);
    };
  }, []);
  const v = view.value;
  const Lazy = v.kind === 'settings' || v.kind === 'admin' || v.kind === 'channels' ? (loadLazy(v.kind), lazyModules.value[v.kind]) : undefined;
  const title = viewTitle(v);
  useEffect(() => {
    const n = unreadCounts.value.total;
    document.title = `${n ? `(${n}) ` : ''}${title ? `${title} - ` : ''}${realm.value.name} - Confab`;
  }, [title, realm.value.name, unreadCounts.value.total]);
  const ch = channelTerm(v);
  const senderTerm = v.kind === 'narrow' && ch === undefined ? v.terms.find((t) => t.operator === 'sender' && !t.negated) : undefined;
  const sender = typeof senderTerm?.operand === 'number' ? senderTerm.operand : undefined;
  // Subscribe said nothing, and its button went away with the keyboard's focus: now a notice
  // says it is done (or why not), and the focus goes on to New topic beside it.
  const newTopic = useRef<HTMLButtonElement>(null);
  const subscribe = (id: number) =>
    void api.post('/users/me/subscriptions', { subscriptions: [{ name: channelName(id) }] }).then(
      () => (showToast(`Subscribed to #${channelName(id)}.`), newTopic.current?.focus()),
      (e: Error) => showToast(e.message),
    );
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
        {v.kind === 'recent' ? <RecentConversations /> : null}
        {'tab' in v ? Lazy ? <Lazy tab={v.tab} /> : <p role="status">Loading…</p> : null}
        {v.kind === 'narrow' ? (
          <>
            <div class="narrow-bar">
              {/* Cut with an ellipsis when it does not fit (a phone, a long name): the whole of it in
                  its tooltip, and in full on a tap. */}
              <h1 key={title} title={title} onClick={(e) => e.currentTarget.classList.toggle('full')}>
                {title}
              </h1>
              <JumpToUnread />
              {/* A sender's messages have no channel to start a topic in: a direct message to them instead. */}
              {sender !== undefined ? (
                <button type="button" aria-label="New direct message" onClick={() => composeApi.newDm([sender])}>
                  <span class="wide">New direct message</span>
                  <span class="narrow">Message</span>
                </button>
              ) : !v.search && dmTerm(v) === undefined ? (
                <button type="button" ref={newTopic} onClick={() => composeApi.newTopic()}>
                  New topic
                </button>
              ) : null}
              {ch !== undefined && subs.value.get(ch) === undefined ? (
                <button type="button" onClick={() => subscribe(ch)}>
                  Subscribe
                </button>
              ) : null}
            </div>
            <Feed />
          </>
        ) : null}
        {v.kind === 'narrow' || composeOpen.value ? <Compose /> : null}
      </main>
      {overlay.value === 'shortcuts' ? <ShortcutsDialog /> : null}
      {overlay.value === 'profile' ? <Profile /> : null}
    </div>
  );
}
