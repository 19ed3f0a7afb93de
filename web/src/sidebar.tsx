// The sidebar: the views, the subscribed channels (with the open channel's topics), direct
// conversations and people, with unread counts. On a phone it is a drawer.
import { composeApi } from './compose';
import { channelHash, channelTerm, dmHash, dmTerm, encodeHash, topicHash, topicTerm, type Term } from './narrow';
import { dmConversations, me, presence, sidebarOpen, subs, TOPIC_MUTED, topicInHome, topicKey, topicPolicy, topicsByStream, unreadCounts, userName, users, view } from './state';
import { UnreadCount } from './unread_count';

export function Sidebar() {
  const v = view.value;
  const counts = unreadCounts.value;
  const openChannel = channelTerm(v);
  const openTopic = topicTerm(v)?.toLowerCase();
  const openDm = dmTerm(v)?.join(',');
  const isView = (terms: Term[]) => v.kind === 'narrow' && !v.search && JSON.stringify(v.terms) === JSON.stringify(terms);
  // Muted channels after the others, as Zulip's stream_list_sort puts them.
  const sortedSubs = [...subs.value.values()].filter((s) => !s.is_archived).sort((a, b) => Number(a.is_muted) - Number(b.is_muted) || a.name.localeCompare(b.name));
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
            Inbox <UnreadCount n={counts.total} />
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
            Mentions <UnreadCount n={counts.mentions} />
          </a>
        </li>
        <li>
          <a href="#narrow/is/starred" aria-current={isView([{ operator: 'is', operand: 'starred' }]) ? 'page' : undefined}>
            Starred
          </a>
        </li>
      </ul>
      <div class="head">
        <h2>Channels</h2>
        <a href="#channels/all" aria-current={v.kind === 'channels' ? 'page' : undefined}>
          Browse channels
        </a>
      </div>
      <ul class="channels">
        {sortedSubs.map((s) => (
          <li key={s.stream_id} class={s.is_muted ? 'muted' : ''}>
            <div class="chan">
              <a href={channelHash(s.stream_id, s.name)} aria-current={openChannel === s.stream_id && openTopic === undefined ? 'page' : undefined}>
                <span class="swatch" style={{ background: s.color }} aria-hidden="true" />
                <span class="name">{s.invite_only ? '🔒 ' : '# '}{s.name}</span>
                {s.is_muted ? <span class="sr-only"> (muted)</span> : null}
                <UnreadCount n={counts.streams.get(s.stream_id)} />
              </a>
              {/* Zulip's channel menu (⋮): its colour and mute are in its settings (channel_settings.tsx). */}
              <button type="button" class="chan-menu" aria-label={`Settings for #${s.name}`} onClick={() => (location.hash = `#channels/${s.stream_id}/${encodeHash(s.name)}/personal`)}>
                ⋮
              </button>
            </div>
            {openChannel === s.stream_id && topics.length > 0 && (
              <ul class="topics" aria-label={`Topics in ${s.name}`}>
                {topics.slice(0, 30).map((t) => {
                  const key = topicKey(s.stream_id, t.name);
                  const resolved = t.name.startsWith('✔ ');
                  const muted = topicPolicy(s.stream_id, t.name) === TOPIC_MUTED;
                  // As Zulip's left sidebar: a muted topic is faded, count and all; in a muted
                  // channel, so is the count of each topic not unmuted or followed there.
                  return (
                    <li key={t.name} class={muted ? 'muted' : ''}>
                      <a href={topicHash(s.stream_id, s.name, t.name)} aria-current={openTopic === t.name.toLowerCase() ? 'page' : undefined} class={resolved ? 'resolved' : ''}>
                        <span class="name">{t.name || '(no topic)'}</span>
                        {muted ? <span class="sr-only"> (muted)</span> : null}
                        <UnreadCount n={counts.topics.get(key)} faded={!muted && !topicInHome(s.stream_id, t.name)} />
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
                <UnreadCount n={unreadCounts.value.dms.get(key)} />
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
