// Personal settings, loaded the first time they are opened: profile, display, notifications, and
// one's API key with a zuliprc file for bots and terminal clients.
import { useEffect, useMemo, useState } from 'preact/hooks';
import { api, currentSession } from './api';
import { me, showToast, userSettings } from './state';

function Toggle({ name, label }: { name: string; label: string }) {
  const on = !!userSettings.value[name];
  return (
    <label class="check">
      <input type="checkbox" checked={on} onChange={(e) => void save({ [name]: e.currentTarget.checked })} /> {label}
    </label>
  );
}

async function save(params: Record<string, unknown>): Promise<void> {
  try {
    await api.patch('/settings', params);
    userSettings.value = { ...userSettings.value, ...params };
    showToast('Saved');
  } catch (e) {
    showToast(e instanceof Error ? e.message : String(e));
  }
}

const TABS = [
  ['profile', 'Profile'],
  ['display', 'Display'],
  ['notifications', 'Notifications'],
  ['account', 'API key'],
];

export default function Settings({ tab: asked }: { tab: string }) {
  // An address naming no tab of ours opens the first, not an empty page.
  const tab = TABS.some(([id]) => id === asked) ? asked : 'profile';
  const [name, setName] = useState(me.value.full_name);
  const [showKey, setShowKey] = useState(false);
  const s = currentSession();
  // The zuliprc's object URL is made once per visit to the tab and released when leaving it; not
  // text/plain, for which Chromium saves it as "zuliprc.txt".
  const href = useMemo(() => {
    if (tab !== 'account') return '';
    const zuliprc = `[api]\nemail=${s?.email ?? ''}\nkey=${s?.apiKey ?? ''}\nsite=${location.origin}\n`;
    return URL.createObjectURL(new Blob([zuliprc], { type: 'application/octet-stream' }));
  }, [tab, s?.email, s?.apiKey]);
  useEffect(() => () => void (href && URL.revokeObjectURL(href)), [href]);
  return (
    <section class="settings" aria-label="Settings">
      <h1>Settings</h1>
      <nav class="tabs" aria-label="Settings sections">
        {TABS.map(([id, label]) => (
          <a key={id} href={`#settings/${id}`} aria-current={tab === id ? 'page' : undefined}>
            {label}
          </a>
        ))}
      </nav>
      {tab === 'profile' ? (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void save({ full_name: name });
          }}
        >
          <label for="set-name">Full name</label>
          <input id="set-name" value={name} onInput={(e) => setName(e.currentTarget.value)} />
          <button type="submit" class="primary">
            Save name
          </button>
        </form>
      ) : null}
      {tab === 'display' ? (
        <div>
          <fieldset>
            <legend>Theme</legend>
            {[
              [1, 'System'],
              [3, 'Light'],
              [2, 'Dark'],
            ].map(([v, label]) => (
              <label class="check" key={v}>
                <input type="radio" name="theme" checked={Number(userSettings.value.color_scheme ?? 1) === v} onChange={() => void save({ color_scheme: v })} /> {label}
              </label>
            ))}
          </fieldset>
          <label for="set-home">Home view</label>
          <select id="set-home" value={String(userSettings.value.web_home_view ?? 'inbox').replace('recent_topics', 'recent')} onChange={(e) => void save({ web_home_view: e.currentTarget.value })}>
            <option value="inbox">Inbox</option>
            <option value="recent">Recent conversations</option>
            <option value="all_messages">Combined feed</option>
          </select>
          <Toggle name="enter_sends" label="Enter sends the message" />
          <Toggle name="twenty_four_hour_time" label="24-hour time" />
        </div>
      ) : null}
      {tab === 'notifications' ? (
        <div>
          <Toggle name="enable_desktop_notifications" label="Desktop notifications for direct messages and mentions" />
          <Toggle name="enable_sounds" label="Sounds" />
          <Toggle name="enable_stream_desktop_notifications" label="Desktop notifications for channel messages" />
          <Toggle name="enable_offline_email_notifications" label="Email when I am away" />
          <button
            type="button"
            onClick={() => {
              if ('Notification' in window) void Notification.requestPermission();
            }}
          >
            Allow browser notifications
          </button>
        </div>
      ) : null}
      {tab === 'account' ? (
        <div>
          <p>Your API key lets bots and terminal clients act as you.</p>
          {showKey ? <code class="key">{s?.apiKey}</code> : null}
          <div class="row">
            <button type="button" onClick={() => setShowKey(!showKey)}>
              {showKey ? 'Hide API key' : 'Show API key'}
            </button>
            <a class="button" href={href} download="zuliprc">
              Download zuliprc
            </a>
          </div>
        </div>
      ) : null}
    </section>
  );
}
