// Talking to the server: /register and the /events long-poll (registering again after a queue
// expires or the server restarts), each event applied to the client's state.
import { api, ApiError } from './api';
import { notifyDesktop } from './desktop_notifications';
import { fetchTopics, loadView, MAX_LIVE, trimFeed } from './feed_loading';
import type { Term } from './narrow';
import { goTo } from './navigator';
import {
  allStreams, batch, ownArrived, realmSettings, drafts, type Draft, connection, dmConversations, dmKeyOf, feed, feedState, matchesTerms, me, Message, messageDmKey, topicPolicies,
  presence, ready, realm, replaceMessage, setUnread, subs, Subscription, topicKey, topicsByStream, typing, unread, UnreadInfo,
  unreadInfoOf, updateFeed, User, users, userSettings, view,
} from './state';

let queueId: string | null = null;
let lastEventId = -1;
let generation = 0; // bumps on logout so an old poll loop ends
let pollAbort: AbortController | null = null;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function stopClient(): void {
  generation++;
  pollAbort?.abort();
  if (queueId) void api.del('/events', { queue_id: queueId }).catch(() => {});
  queueId = null;
  ready.value = false;
}

export async function startClient(): Promise<void> {
  const gen = ++generation;
  await registerQueue(gen);
  void pollLoop(gen);
}

async function registerQueue(gen: number): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      const state = await api.post('/register', {
        apply_markdown: true,
        client_gravatar: true,
        slim_presence: true,
        include_subscribers: false,
        client_capabilities: { notification_settings_null: true, bulk_message_deletion: true, user_avatar_url_field_optional: true, empty_topic_name: true, user_settings_object: true, stream_typing_notifications: true, linkifier_url_template: true },
      });
      if (gen !== generation) return;
      applyRegister(state);
      void loadDmConversations(gen);
      return;
    } catch (e) {
      if (gen !== generation) return;
      if (e instanceof ApiError && e.status === 401) throw e;
      connection.value = 'reconnecting';
      await sleep(Math.min(5000, 500 * 2 ** attempt));
    }
  }
}

function applyRegister(s: any): void {
  queueId = s.queue_id;
  lastEventId = s.last_event_id;
  batch(() => {
    const isAdmin = !!s.is_admin;
    me.value = { user_id: s.user_id, email: s.email, full_name: s.full_name, role: s.role ?? (isAdmin ? 200 : 400), is_admin: isAdmin };
    realm.value = { name: s.realm_name ?? 'Confab', description: s.realm_description ?? '', emoji: s.realm_emoji ?? {} };
    const um = new Map<number, User>();
    for (const u of [...(s.realm_users ?? []), ...(s.cross_realm_bots ?? [])]) um.set(u.user_id, { ...u, is_active: u.is_active ?? true });
    for (const u of s.realm_non_active_users ?? []) um.set(u.user_id, { ...u, is_active: false });
    users.value = um;
    const sm = new Map<number, Subscription>();
    for (const sub of s.subscriptions ?? []) sm.set(sub.stream_id, { ...sub, is_muted: sub.is_muted ?? sub.in_home_view === false });
    subs.value = sm;
    const all = new Map<number, any>();
    for (const st of [...(s.streams ?? []), ...(s.subscriptions ?? [])]) all.set(st.stream_id, st);
    allStreams.value = all;
    userSettings.value = s.user_settings ?? {};
    drafts.value = new Map((s.drafts ?? []).map((d: Draft) => [d.id, d]));
    realmSettings.value = Object.fromEntries(Object.entries(s).filter(([k]) => k.startsWith('realm_')));
    const policies = new Map<string, number>();
    for (const t of s.user_topics ?? []) if (t.visibility_policy >= 1 && t.visibility_policy <= 3) policies.set(topicKey(t.stream_id, t.topic_name), t.visibility_policy);
    topicPolicies.value = policies;
    const un = new Map<number, UnreadInfo>();
    const mentions = new Set<number>(s.unread_msgs?.mentions ?? []);
    for (const st of s.unread_msgs?.streams ?? []) for (const id of st.unread_message_ids) un.set(id, { stream_id: st.stream_id, topic: st.topic, mentioned: mentions.has(id) });
    for (const pm of s.unread_msgs?.pms ?? []) for (const id of pm.unread_message_ids) un.set(id, { dm: dmKeyOf([pm.other_user_id ?? pm.sender_id]), mentioned: mentions.has(id) });
    for (const h of s.unread_msgs?.huddles ?? []) for (const id of h.unread_message_ids) un.set(id, { dm: dmKeyOf(String(h.user_ids_string).split(',').map(Number)), mentioned: mentions.has(id) });
    unread.value = un;
    const dms = new Map<string, number>();
    for (const c of s.recent_private_conversations ?? []) dms.set(dmKeyOf(c.user_ids), c.max_message_id);
    dmConversations.value = dms;
    const pres = new Map<number, { active: boolean; ts: number }>();
    for (const [id, p] of Object.entries<any>(s.presences ?? {})) pres.set(Number(id), { active: (p.active_timestamp ?? 0) > Date.now() / 1000 - 140, ts: p.active_timestamp ?? 0 });
    presence.value = pres;
    connection.value = 'connected';
    ready.value = true;
  });
}

// The direct conversations of the sidebar: /register's recent_private_conversations when the
// server fills it, and the newest direct messages too (Confab's list is empty today).
async function loadDmConversations(gen: number): Promise<void> {
  try {
    const res = await api.get('/messages', { narrow: [{ operator: 'is', operand: 'dm' }], anchor: 'newest', num_before: 200, num_after: 0, apply_markdown: false, client_gravatar: true });
    if (gen !== generation) return;
    const next = new Map(dmConversations.value);
    for (const m of res.messages as Message[]) {
      const key = messageDmKey(m);
      if ((next.get(key) ?? 0) < m.id) next.set(key, m.id);
    }
    dmConversations.value = next;
  } catch {
    /* the sidebar keeps what /register gave */
  }
}

async function pollLoop(gen: number): Promise<void> {
  let failures = 0;
  while (gen === generation) {
    try {
      pollAbort = new AbortController();
      const res = await api.get('/events', { queue_id: queueId!, last_event_id: lastEventId }, pollAbort.signal);
      if (gen !== generation) return;
      failures = 0;
      if (connection.value !== 'connected') connection.value = 'connected';
      for (const ev of res.events) {
        lastEventId = Math.max(lastEventId, ev.id);
        try {
          handleEvent(ev);
        } catch (e) {
          console.error('event', ev, e);
        }
      }
    } catch (e) {
      if (gen !== generation) return;
      if (e instanceof ApiError && e.code === 'BAD_EVENT_QUEUE_ID') {
        // The queue is gone (expired, or the server restarted): register again and catch up.
        connection.value = 'reconnecting';
        await registerQueue(gen);
        if (gen !== generation) return;
        void loadView(view.value, true);
        continue;
      }
      if (e instanceof ApiError && e.status === 401) return;
      failures++;
      connection.value = 'reconnecting';
      await sleep(Math.min(5000, 300 * 2 ** failures));
    }
  }
}

function currentTerms(): Term[] | null {
  const v = view.value;
  if (v.kind !== 'narrow' || v.search) return null;
  return v.terms;
}

/** A channel or topic muted or unmuted: the combined feed (in:home) gains or loses its messages. */
function reloadCombinedFeed(): void {
  if (currentTerms()?.length === 0) void loadView(view.value, true);
}

function handleEvent(ev: any): void {
  switch (ev.type) {
    case 'message': {
      const m: Message = { ...ev.message, flags: ev.flags ?? [] };
      if (!m.reactions) m.reactions = [];
      if (!m.flags.includes('read') && m.sender_id !== me.value.user_id) setUnread((u) => u.set(m.id, unreadInfoOf(m)));
      if (m.type === 'private') {
        const key = messageDmKey(m);
        dmConversations.value = new Map(dmConversations.value).set(key, m.id);
      } else if (m.stream_id !== undefined) {
        const list = topicsByStream.value.get(m.stream_id);
        if (list) {
          const rest = list.filter((t) => t.name.toLowerCase() !== m.subject.toLowerCase());
          topicsByStream.value = new Map(topicsByStream.value).set(m.stream_id, [{ name: m.subject, max_id: m.id }, ...rest]);
        }
      }
      notifyDesktop(m);
      // The sender stopped typing once the message arrives.
      clearTyping(m.sender_id);
      const terms = currentTerms();
      if (terms && feedState.value.foundNewest && matchesTerms(m, terms) && !feed.value.some((x) => x.id === m.id)) {
        updateFeed((f) => [...f, m]);
        trimFeed('older', MAX_LIVE);
        if (m.sender_id === me.value.user_id) ownArrived.value = m.id;
      }
      break;
    }
    case 'update_message': {
      const ids: number[] = ev.message_ids ?? [ev.message_id];
      if (ev.rendered_content !== undefined && ev.message_id !== undefined) {
        replaceMessage(ev.message_id, (m) => ({ ...m, content: ev.rendered_content, match_content: undefined, last_edit_timestamp: ev.edit_timestamp, is_me_message: ev.is_me_message ?? m.is_me_message }));
      }
      const newTopic: string | undefined = ev.subject ?? ev.topic;
      const newStream: number | undefined = ev.new_stream_id;
      if (newTopic !== undefined || newStream !== undefined) {
        const idSet = new Set(ids);
        const terms = currentTerms();
        updateFeed((f) =>
          f
            .map((m) => (idSet.has(m.id) && m.type === 'stream' ? { ...m, subject: newTopic ?? m.subject, stream_id: newStream ?? m.stream_id } : m))
            .filter((m) => !idSet.has(m.id) || !terms || matchesTerms(m, terms)),
        );
        setUnread((u) => {
          for (const id of ids) {
            const info = u.get(id);
            if (info && info.stream_id !== undefined) u.set(id, { ...info, topic: newTopic ?? info.topic, stream_id: newStream ?? info.stream_id });
          }
        });
        const affected = [ev.stream_id, newStream].filter((x): x is number => typeof x === 'number');
        for (const sid of affected) if (topicsByStream.value.has(sid)) void fetchTopics(sid);
        // A view of the old topic follows the messages to their new place, as Zulip's does.
        const v = view.value;
        if (v.kind === 'narrow' && ev.propagate_mode !== 'change_one' && ev.orig_subject !== undefined && terms) {
          const ch = v.terms.find((t) => t.operator === 'channel');
          const tp = v.terms.find((t) => t.operator === 'topic');
          if (ch?.operand === ev.stream_id && tp && String(tp.operand).toLowerCase() === String(ev.orig_subject).toLowerCase() && feed.value.length === 0) {
            const next: Term[] = [{ operator: 'channel', operand: newStream ?? ev.stream_id }, { operator: 'topic', operand: newTopic ?? tp.operand }];
            goTo({ kind: 'narrow', terms: next });
          }
        }
      }
      break;
    }
    case 'delete_message': {
      const ids = new Set<number>(ev.message_ids ?? [ev.message_id]);
      updateFeed((f) => f.filter((m) => !ids.has(m.id)));
      setUnread((u) => {
        for (const id of ids) u.delete(id);
      });
      break;
    }
    case 'reaction': {
      replaceMessage(ev.message_id, (m) => {
        const same = (r: { emoji_code: string; reaction_type: string; user_id: number }) =>
          r.emoji_code === ev.emoji_code && r.reaction_type === ev.reaction_type && r.user_id === ev.user_id;
        const reactions = ev.op === 'add' ? [...m.reactions.filter((r) => !same(r)), { emoji_name: ev.emoji_name, emoji_code: ev.emoji_code, reaction_type: ev.reaction_type, user_id: ev.user_id }] : m.reactions.filter((r) => !same(r));
        return { ...m, reactions };
      });
      break;
    }
    case 'update_message_flags': {
      const op = ev.op ?? ev.operation;
      const ids: number[] = ev.messages ?? [];
      const idSet = new Set(ids);
      if (ev.flag === 'read') {
        if (op === 'add') {
          if (ev.all) unread.value = new Map();
          else setUnread((u) => ids.forEach((id) => u.delete(id)));
        } else {
          const details = ev.message_details ?? {};
          setUnread((u) => {
            for (const id of ids) {
              const d = details[id];
              const known = feed.value.find((m) => m.id === id);
              if (known) u.set(id, unreadInfoOf(known));
              else if (d) u.set(id, d.type === 'stream' ? { stream_id: d.stream_id, topic: d.topic, mentioned: !!d.mentioned } : { dm: dmKeyOf(d.user_ids ?? []), mentioned: !!d.mentioned });
            }
          });
        }
      }
      updateFeed((f) =>
        f.map((m) => {
          if (!ev.all && !idSet.has(m.id)) return m;
          const has = m.flags.includes(ev.flag);
          if (op === 'add' && !has) return { ...m, flags: [...m.flags, ev.flag] };
          if (op === 'remove' && has) return { ...m, flags: m.flags.filter((x) => x !== ev.flag) };
          return m;
        }),
      );
      break;
    }
    case 'subscription': {
      const next = new Map(subs.value);
      if (ev.op === 'add') for (const s of ev.subscriptions) next.set(s.stream_id, { ...s, is_muted: s.is_muted ?? s.in_home_view === false });
      else if (ev.op === 'remove') for (const s of ev.subscriptions) next.delete(s.stream_id);
      else if (ev.op === 'update') {
        const cur = next.get(ev.stream_id);
        if (cur) {
          const prop = ev.property === 'in_home_view' ? 'is_muted' : ev.property;
          const value = ev.property === 'in_home_view' ? !ev.value : ev.value;
          next.set(ev.stream_id, { ...cur, [prop]: value });
          if (prop === 'is_muted') reloadCombinedFeed();
        }
      }
      subs.value = next;
      // The channel browser's subscriber counts: one's own joining brings the channel's whole
      // count, leaving or another's joining and leaving (peer_*) move it by the people named.
      const all = new Map(allStreams.value);
      const move = (id: number, by: number) => {
        const st = all.get(id);
        if (st?.subscriber_count !== undefined) all.set(id, { ...st, subscriber_count: st.subscriber_count + by });
      };
      if (ev.op === 'add') for (const s of ev.subscriptions) all.set(s.stream_id, s);
      else if (ev.op === 'remove') for (const s of ev.subscriptions) move(s.stream_id, -1);
      else if (ev.op === 'peer_add' || ev.op === 'peer_remove') for (const id of ev.stream_ids) move(id, (ev.op === 'peer_add' ? 1 : -1) * ev.user_ids.length);
      if (ev.op !== 'update') allStreams.value = all;
      break;
    }
    case 'stream': {
      const all = new Map(allStreams.value);
      const sm = new Map(subs.value);
      if (ev.op === 'create') for (const s of ev.streams) all.set(s.stream_id, s);
      else if (ev.op === 'delete') {
        for (const s of ev.streams ?? []) {
          const id = s.stream_id ?? s;
          all.delete(id);
          sm.delete(id);
        }
      } else if (ev.op === 'update') {
        const cur = all.get(ev.stream_id);
        if (cur) all.set(ev.stream_id, { ...cur, [ev.property]: ev.value });
        const sub = sm.get(ev.stream_id);
        if (sub) sm.set(ev.stream_id, { ...sub, [ev.property]: ev.value });
      }
      allStreams.value = all;
      subs.value = sm;
      break;
    }
    case 'realm_user': {
      const next = new Map(users.value);
      if (ev.op === 'add') next.set(ev.person.user_id, { ...ev.person, is_active: ev.person.is_active ?? true });
      else if (ev.op === 'remove') {
        const cur = next.get(ev.person.user_id);
        if (cur) next.set(cur.user_id, { ...cur, is_active: false });
      } else if (ev.op === 'update') {
        const cur = next.get(ev.person.user_id);
        if (cur) next.set(cur.user_id, { ...cur, ...ev.person });
        if (ev.person.user_id === me.value.user_id && ev.person.full_name) me.value = { ...me.value, full_name: ev.person.full_name };
        if (ev.person.user_id === me.value.user_id && ev.person.role !== undefined) me.value = { ...me.value, role: ev.person.role, is_admin: ev.person.role <= 200 };
      }
      users.value = next;
      break;
    }
    case 'drafts': {
      const next = new Map(drafts.value);
      if (ev.op === 'add') for (const d of ev.drafts) next.set(d.id, d);
      else if (ev.op === 'update') next.set(ev.draft.id, ev.draft);
      else if (ev.op === 'remove') next.delete(ev.draft_id);
      drafts.value = next;
      break;
    }
    case 'realm_emoji':
      realm.value = { ...realm.value, emoji: ev.realm_emoji };
      break;
    case 'realm':
      if (ev.op === 'update') realmSettings.value = { ...realmSettings.value, [`realm_${ev.property}`]: ev.value };
      if (ev.op === 'update_dict') realmSettings.value = { ...realmSettings.value, ...Object.fromEntries(Object.entries(ev.data ?? {}).map(([k, v]) => [`realm_${k}`, v])) };
      if (ev.op === 'update' && ev.property === 'name') realm.value = { ...realm.value, name: ev.value };
      if (ev.op === 'update' && ev.property === 'description') realm.value = { ...realm.value, description: ev.value };
      if (ev.op === 'update_dict') {
        if (ev.data?.name !== undefined) realm.value = { ...realm.value, name: ev.data.name };
        if (ev.data?.description !== undefined) realm.value = { ...realm.value, description: ev.data.description };
      }
      break;
    case 'user_settings':
    case 'update_display_settings':
      if (ev.property) userSettings.value = { ...userSettings.value, [ev.property]: ev.value };
      break;
    case 'user_topic': {
      const key = topicKey(ev.stream_id, ev.topic_name);
      // Policy 0 (INHERIT) removes the topic's entry, as Zulip's user_topics.set_user_topic does.
      const policies = new Map(topicPolicies.value);
      if (ev.visibility_policy >= 1 && ev.visibility_policy <= 3) policies.set(key, ev.visibility_policy);
      else policies.delete(key);
      topicPolicies.value = policies;
      reloadCombinedFeed();
      break;
    }
    case 'typing': {
      if (ev.sender?.user_id === me.value.user_id) break;
      const key = ev.message_type === 'stream' ? topicKey(ev.stream_id, ev.topic ?? '') : dmKeyOf([...(ev.recipients ?? []).map((r: any) => r.user_id), ev.sender.user_id]);
      const next = new Map(typing.value);
      const set = new Set(next.get(key) ?? []);
      if (ev.op === 'start') set.add(ev.sender.user_id);
      else set.delete(ev.sender.user_id);
      next.set(key, set);
      typing.value = next;
      if (ev.op === 'start') {
        const uid = ev.sender.user_id;
        setTimeout(() => {
          const cur = typing.value.get(key);
          if (cur?.has(uid)) {
            const n = new Map(typing.value);
            const s2 = new Set(cur);
            s2.delete(uid);
            n.set(key, s2);
            typing.value = n;
          }
        }, 15000);
      }
      break;
    }
    case 'presence': {
      const next = new Map(presence.value);
      const ts = ev.presence ? Math.max(0, ...Object.values<any>(ev.presence).map((p) => p.timestamp ?? 0)) : Date.now() / 1000;
      next.set(ev.user_id, { active: true, ts });
      presence.value = next;
      break;
    }
    default:
      break;
  }
}

function clearTyping(userId: number): void {
  let changed = false;
  const next = new Map(typing.value);
  for (const [k, s] of next) {
    if (s.has(userId)) {
      const s2 = new Set(s);
      s2.delete(userId);
      next.set(k, s2);
      changed = true;
    }
  }
  if (changed) typing.value = next;
}
