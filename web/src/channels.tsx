// The channel browser (Zulip's "All channels", #channels/all), loaded the first time it is opened:
// every channel one can see, with its description and subscriber count, narrowed by a filter box,
// each joined or left with its own button. Before it a channel one was not in could only be found
// by its name, and one could not leave a channel at all. The sidebar and the buttons follow the
// server's subscription events, so that a channel joined or left in another tab shows here too.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from './api';
import { allStreams, showToast, subs } from './state';

export default function Channels() {
  const [filter, setFilter] = useState('');
  const box = useRef<HTMLInputElement>(null);
  // Requests under way, by channel: a second click before the server's event has turned the
  // button round would otherwise ask again.
  const pending = useRef(new Set<number>());
  // The filter box takes the focus as the view opens, as Zulip's does; not on a touch screen,
  // where that would cover half the list with the keyboard.
  useEffect(() => void (matchMedia('(pointer: fine)').matches && box.current?.focus()), []);
  const q = filter.trim().toLowerCase();
  const list = [...allStreams.value.values()].filter((s) => !s.is_archived && s.name.toLowerCase().includes(q)).sort((a, b) => a.name.localeCompare(b.name));
  // The button keeps the focus while its label turns from Subscribe to Unsubscribe (the same
  // element), and the notice (a status region) says what happened or the server's reason.
  const toggle = async (id: number, name: string, joined: boolean) => {
    if (pending.current.has(id)) return;
    pending.current.add(id);
    try {
      if (joined) await api.del('/users/me/subscriptions', { subscriptions: [name] });
      else await api.post('/users/me/subscriptions', { subscriptions: [{ name }] });
      showToast(joined ? `Unsubscribed from #${name}.` : `Subscribed to #${name}.`);
    } catch (e) {
      showToast((e as Error).message);
    } finally {
      pending.current.delete(id);
    }
  };
  return (
    <section class="settings browser" aria-labelledby="browser-title">
      <h1 id="browser-title">All channels</h1>
      <input ref={box} type="search" aria-label="Filter channels" placeholder="Filter channels" value={filter} onInput={(e) => setFilter(e.currentTarget.value)} />
      {list.length ? null : <p class="muted">{q ? 'No channels match this filter.' : 'No channels here yet.'}</p>}
      <ul>
        {list.map((s) => {
          const joined = subs.value.has(s.stream_id);
          const n = s.subscriber_count;
          return (
            <li key={s.stream_id}>
              <div>
                {/* By id alone, as Zulip reads it too: narrow.ts's channelHash here would split that
                    module into a chunk of its own, 0.4 KB more on the first view. */}
                <a href={`#narrow/channel/${s.stream_id}`}>{(s.invite_only ? '🔒 ' : '# ') + s.name}</a>
                {n === undefined ? null : <span class="muted"> · {n === 1 ? '1 subscriber' : `${n} subscribers`}</span>}
                {s.description ? <p class="muted">{s.description}</p> : null}
              </div>
              <button type="button" class={joined ? '' : 'primary'} aria-label={joined ? `Unsubscribe from ${s.name}` : `Subscribe to ${s.name}`} onClick={() => void toggle(s.stream_id, s.name, joined)}>
                {joined ? 'Unsubscribe' : 'Subscribe'}
              </button>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
