// A subscribed channel's own settings (Zulip's channel settings, "Personal" section, opened at
// #channels/<id>/<name>/personal from the channel browser or the sidebar's button beside the
// channel): its colour and whether it is muted, saved with POST /users/me/subscriptions/properties.
// The sidebar follows the server's subscription update events: the swatch takes the colour, and a
// muted channel is dimmed, listed after the others and left out of the unread counts (state.ts).
import { api } from './api';
import { allStreams, showToast, subs } from './state';

/** Zulip's hash of a channel's settings: the name written as narrow hashes write it (. for %). */
export function settingsHash(id: number, name: string): string {
  return `#channels/${id}/${encodeURIComponent(name).replace(/\./g, '%2E').replace(/%/g, '.')}/personal`;
}

/** Joins or leaves a channel, saying so (or the server's reason) in the page's notice. */
export async function toggleSubscription(name: string, joined: boolean): Promise<void> {
  try {
    if (joined) await api.del('/users/me/subscriptions', { subscriptions: [name] });
    else await api.post('/users/me/subscriptions', { subscriptions: [{ name }] });
    showToast(joined ? `Unsubscribed from #${name}.` : `Subscribed to #${name}.`);
  } catch (e) {
    showToast((e as Error).message);
  }
}

async function setProperty(id: number, property: 'color' | 'is_muted', value: string | boolean, done: string): Promise<void> {
  try {
    await api.post('/users/me/subscriptions/properties', { subscription_data: [{ stream_id: id, property, value }] });
    showToast(done);
  } catch (e) {
    showToast((e as Error).message);
  }
}

export function ChannelSettings({ id }: { id: number }) {
  const sub = subs.value.get(id);
  const name = sub?.name ?? allStreams.value.get(id)?.name;
  if (name === undefined) {
    return (
      <section class="settings" aria-labelledby="channel-title">
        <h1 id="channel-title">Channel settings</h1>
        <p class="muted">This channel does not exist, or you cannot see it.</p>
        <a href="#channels/all">All channels</a>
      </section>
    );
  }
  return (
    <section class="settings" aria-labelledby="channel-title">
      <h1 id="channel-title" class="row">
        {sub ? <span class="swatch" style={{ background: sub.color }} aria-hidden="true" /> : null}
        {`#${name}`}
      </h1>
      <nav class="tabs" aria-label="Channel lists">
        <a href="#channels/subscribed">Subscribed</a>
        <a href={`#narrow/channel/${id}`}>Go to #{name}</a>
      </nav>
      {sub ? (
        <fieldset>
          <legend>Personal settings</legend>
          <label>
            Channel color <input type="color" value={sub.color} onChange={(e) => void setProperty(id, 'color', e.currentTarget.value, `#${name}'s color changed.`)} />
          </label>
          <label class="check">
            <input type="checkbox" checked={sub.is_muted} onChange={(e) => void setProperty(id, 'is_muted', e.currentTarget.checked, e.currentTarget.checked ? `#${name} muted.` : `#${name} unmuted.`)} /> Mute channel
          </label>
          <p class="muted">A muted channel is dimmed in the sidebar, and its unread messages are not counted.</p>
        </fieldset>
      ) : (
        <p class="muted">You are not subscribed to this channel.</p>
      )}
      <button type="button" class={sub ? '' : 'primary'} onClick={() => void toggleSubscription(name, !!sub)}>
        {sub ? 'Unsubscribe' : 'Subscribe'}
      </button>
    </section>
  );
}
