// Keyboard shortcuts (Zulip's keys) and the dialog listing them.
import { useLayoutEffect, useRef } from 'preact/hooks';
import { composeApi } from './compose';
import { feedApi } from './feed';
import { channelTerm, dmTerm, topicTerm } from './narrow';
import { openProfile } from './profile';
import { navigate } from './routes';
import { feed, me, overlay, selectedId, sidebarOpen, subs, topicInHome, topicKey, topicsByStream, unreadCounts, view } from './state';

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

export function ShortcutsDialog() {
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
    // As Zulip's n: a muted topic is skipped, and so is a muted channel's topic unless it is
    // unmuted or followed there.
    if (!subs.value.has(streamId) || !topicInHome(streamId, topic)) continue;
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

export function onShortcutKey(e: KeyboardEvent): void {
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
