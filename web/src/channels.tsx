// The channel browser (Zulip's channel settings, #channels/…), loaded the first time it is opened:
// the channels one is subscribed to, those one is not, or all one can see (Zulip's three tabs),
// with description and subscriber count, narrowed by a filter box, each joined or left with its
// own button. A subscribed channel's own settings (#channels/<id>/<name>/personal: colour, mute)
// are channel_settings.tsx. The sidebar and the buttons follow the server's subscription events,
// so that a channel joined or left in another tab shows here too.
import { useEffect, useRef, useState } from 'preact/hooks';
import { allStreams, subs } from './state';
import { ChannelSettings, settingsHash, toggleSubscription } from './channel_settings';

// Zulip's tabs and their hashes (#channels/subscribed, #channels/notsubscribed, #channels/all).
const TABS = [
  ['subscribed', 'Subscribed'],
  ['notsubscribed', 'Not subscribed'],
  ['all', 'All channels'],
] as const;
const EMPTY = { subscribed: 'You are not subscribed to any channels.', notsubscribed: 'You are subscribed to every channel.', all: 'No channels here yet.' };

export default function Channels({ tab }: { tab: string }) {
  const id = /^(\d+)(\/|$)/.exec(tab);
  if (id) return <ChannelSettings id={Number(id[1])} />;
  return <Browser tab={TABS.some(([t]) => t === tab) ? tab : 'all'} />;
}

function Browser({ tab }: { tab: string }) {
  const [filter, setFilter] = useState('');
  const box = useRef<HTMLInputElement>(null);
  // Requests under way, by channel: a second click before the server's event has turned the
  // button round would otherwise ask again.
  const pending = useRef(new Set<number>());
  // The filter box takes the focus as the view opens, as Zulip's does; not on a touch screen,
  // where that would cover half the list with the keyboard.
  useEffect(() => void (matchMedia('(pointer: fine)').matches && box.current?.focus()), []);
  const q = filter.trim().toLowerCase();
  const joinedOnly = tab === 'subscribed' ? true : tab === 'notsubscribed' ? false : undefined;
  const list = [...allStreams.value.values()]
    .filter((s) => !s.is_archived && s.name.toLowerCase().includes(q) && (joinedOnly === undefined || subs.value.has(s.stream_id) === joinedOnly))
    .sort((a, b) => a.name.localeCompare(b.name));
  // The button keeps the focus while its label turns from Subscribe to Unsubscribe (the same
  // element), and the notice (a status region) says what happened or the server's reason.
  const toggle = async (id: number, name: string, joined: boolean) => {
    if (pending.current.has(id)) return;
    pending.current.add(id);
    await toggleSubscription(name, joined);
    pending.current.delete(id);
  };
  const label = TABS.find(([t]) => t === tab)![1];
  return (
    <section class="settings browser" aria-labelledby="browser-title">
      <h1 id="browser-title">{label}</h1>
      <nav class="tabs" aria-label="Channel lists">
        {TABS.map(([t, text]) => (
          <a key={t} href={`#channels/${t}`} aria-current={t === tab ? 'page' : undefined}>
            {text}
          </a>
        ))}
      </nav>
      <input ref={box} type="search" aria-label="Filter channels" placeholder="Filter channels" value={filter} onInput={(e) => setFilter(e.currentTarget.value)} />
      {list.length ? null : <p class="muted">{q ? 'No channels match this filter.' : EMPTY[tab as keyof typeof EMPTY]}</p>}
      <ul>
        {list.map((s) => {
          const sub = subs.value.get(s.stream_id);
          const n = s.subscriber_count;
          return (
            <li key={s.stream_id}>
              {sub ? <span class="swatch" style={{ background: sub.color }} aria-hidden="true" /> : null}
              <div>
                {/* By id alone, as Zulip reads it too: narrow.ts's channelHash here would split that
                    module into a chunk of its own, 0.4 KB more on the first view. */}
                <a href={`#narrow/channel/${s.stream_id}`}>{(s.invite_only ? '🔒 ' : '# ') + s.name}</a>
                {n === undefined ? null : <span class="muted"> · {n === 1 ? '1 subscriber' : `${n} subscribers`}</span>}
                {sub?.is_muted ? <span class="muted"> · muted</span> : null}
                {s.description ? <p class="muted">{s.description}</p> : null}
              </div>
              {sub ? (
                <a class="button" href={settingsHash(s.stream_id, s.name)} aria-label={`Settings for ${s.name}`}>
                  Settings
                </a>
              ) : null}
              <button type="button" class={sub ? '' : 'primary'} aria-label={sub ? `Unsubscribe from ${s.name}` : `Subscribe to ${s.name}`} onClick={() => void toggle(s.stream_id, s.name, !!sub)}>
                {sub ? 'Unsubscribe' : 'Subscribe'}
              </button>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
