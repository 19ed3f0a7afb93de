// Routes: the open view follows the address's hash (Zulip's URL hashes), and an address without one
// opens the user's home view.
import { effect } from '@preact/signals';
import { loadView } from './feed_loading';
import { parseHash, viewHash, type View } from './narrow';
import { setNavigator } from './navigator';
import { allStreams, channelIdByName, channelName, selectedId, sidebarOpen, userIdByEmail, userName, users, userSettings, view } from './state';

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

// The hash last applied (App applies it again on mount when the address has changed since).
export let appliedHash: string | null = null;
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
