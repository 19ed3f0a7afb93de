// The legacy settings form for clients without the user_settings_object capability, as Zulip
// served it before feature level 439: top-level settings in /register and update_display_settings /
// update_global_notifications events beside user_settings events. The register request is
// zulip-terminal 0.7.0's, which reads twenty_four_hour_time and pm_content_in_desktop_notifications
// from the top level and crashes without them.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client, queuedEvents, startTestServer, type TestServer } from './helpers.js';

let t: TestServer;
let user: Client;

// zulip-terminal 0.7.0's register (zulipterminal/model.py, _register_desired_events).
const TERMINAL_EVENT_TYPES = [
  'message', 'update_message', 'reaction', 'subscription', 'typing', 'update_message_flags',
  'update_global_notifications', 'update_display_settings', 'user_settings', 'realm_emoji', 'realm_user',
];
const TERMINAL_FETCH_EVENT_TYPES = [
  'realm', 'presence', 'subscription', 'message', 'starred_messages', 'update_message_flags', 'muted_topics',
  'realm_user', 'realm_user_groups', 'update_global_notifications', 'update_display_settings', 'user_settings',
  'realm_emoji', 'zulip_version',
];

before(async () => {
  t = await startTestServer();
  user = await t.createUser({ name: 'Terry Terminal' });
});
after(async () => {
  await t.close();
});

test("zulip-terminal 0.7.0's register: the settings it reads are at the top level, and user_settings too", async () => {
  assert.equal((await user.patch('/settings', { twenty_four_hour_time: true })).status, 200);
  const res = await new Client(t.url, user.email, user.apiKey, user.userId, 'ZulipTerminal/0.7.0 Linux').post('/register', {
    event_types: TERMINAL_EVENT_TYPES,
    fetch_event_types: TERMINAL_FETCH_EVENT_TYPES,
    apply_markdown: true,
    client_gravatar: true,
    include_subscribers: true,
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const s = res.body;
  assert.equal(s.twenty_four_hour_time, true);
  assert.equal(s.pm_content_in_desktop_notifications, true);
  for (const key of ['left_side_userlist', 'emojiset', 'color_scheme', 'default_language', 'enter_sends', 'enable_desktop_notifications', 'enable_sounds', 'notification_sound', 'presence_enabled', 'wildcard_mentions_notify']) {
    assert.ok(key in s, `${key} at the top level`);
  }
  assert.ok(Array.isArray(s.emojiset_choices));
  assert.ok(Array.isArray(s.available_notification_sounds));
  assert.equal(typeof s.timezone, 'string');
  assert.equal(s.user_settings.twenty_four_hour_time, true, 'user_settings is there as well, as Zulip sent both');
  assert.equal(typeof s.user_settings.send_private_typing_notifications, 'boolean');
  // The rest of what the client reads at start.
  for (const key of ['realm_users', 'cross_realm_bots', 'realm_user_groups', 'realm_emoji', 'subscriptions', 'unread_msgs', 'presences', 'muted_topics', 'starred_messages', 'zulip_version', 'zulip_feature_level', 'max_message_length', 'max_topic_length', 'max_stream_name_length']) {
    assert.ok(key in s, `${key} present`);
  }

  // A setting change: the user_settings event and the legacy one, each in the client's queue.
  await user.patch('/settings', { twenty_four_hour_time: false, pm_content_in_desktop_notifications: false, left_side_userlist: true });
  const events = await queuedEvents(user, s.queue_id);
  const email = (await user.get('/users/me')).body.email;
  assert.deepEqual(
    events.filter((e) => e.type === 'update_display_settings').map((e) => [e.user, e.setting_name, e.setting]),
    [
      [email, 'twenty_four_hour_time', false],
      [email, 'left_side_userlist', true],
    ],
  );
  assert.deepEqual(events.filter((e) => e.type === 'update_global_notifications').map((e) => [e.user, e.notification_name, e.setting]), [[email, 'pm_content_in_desktop_notifications', false]]);
  assert.equal(events.filter((e) => e.type === 'user_settings').length, 3);
});

test('clients with user_settings_object get neither the top-level copies nor the legacy events', async () => {
  const res = await user.post('/register', {
    fetch_event_types: ['update_display_settings', 'update_global_notifications', 'user_settings'],
    client_capabilities: { user_settings_object: true },
  });
  assert.equal(res.status, 200);
  assert.equal('twenty_four_hour_time' in res.body, false);
  assert.equal('enable_desktop_notifications' in res.body, false);
  assert.equal(typeof res.body.user_settings.twenty_four_hour_time, 'boolean');
  const everything = await user.post('/register', { fetch_event_types: ['message'] });
  await user.patch('/settings', { emojiset: 'twitter', enable_sounds: false });
  const modern = await queuedEvents(user, res.body.queue_id);
  assert.deepEqual(modern.map((e) => e.type).sort(), ['user_settings', 'user_settings']);
  // Without the capability and with every event type (no event_types), the legacy ones come too.
  const legacy = await queuedEvents(user, everything.body.queue_id);
  assert.deepEqual(legacy.map((e) => e.type).sort(), ['update_display_settings', 'update_global_notifications', 'user_settings', 'user_settings']);
  assert.equal('twenty_four_hour_time' in everything.body, false, 'top-level copies only for clients that ask for the legacy types');
});

test('the time zone and the away flag have their legacy events too', async () => {
  const reg = await user.post('/register', { event_types: ['update_display_settings', 'update_global_notifications'] });
  await user.patch('/settings', { timezone: 'Europe/Paris' });
  await user.post('/users/me/status', { away: true });
  const evs = await queuedEvents(user, reg.body.queue_id);
  assert.deepEqual(evs.map((e) => [e.type, e.setting_name ?? e.notification_name, e.setting]), [
    ['update_display_settings', 'timezone', 'Europe/Paris'],
    ['update_global_notifications', 'presence_enabled', false],
  ]);
});

test('muted_topics: the legacy list in /register and its event, for clients that do not ask for user_topic', async () => {
  await user.post('/users/me/subscriptions', { subscriptions: [{ name: 'noisy' }] });
  const streamId = (await user.get('/get_stream_id', { stream: 'noisy' })).body.stream_id;
  const old = await user.post('/register', { event_types: ['muted_topics'], fetch_event_types: ['muted_topics'] });
  const modern = await user.post('/register', { event_types: ['muted_topics', 'user_topic'], fetch_event_types: ['muted_topics', 'user_topic'] });
  assert.deepEqual(old.body.muted_topics, []);
  assert.equal('muted_topics' in modern.body, false, 'left out when user_topic is asked for by name');
  assert.equal((await user.post('/user_topics', { stream_id: streamId, topic: 'chatter', visibility_policy: 1 })).status, 200);
  const evs = await queuedEvents(user, old.body.queue_id);
  assert.equal(evs.length, 1);
  assert.equal(evs[0].type, 'muted_topics');
  assert.deepEqual(evs[0].muted_topics.map((m: unknown[]) => [m[0], m[1], typeof m[2]]), [['noisy', 'chatter', 'number']]);
  assert.deepEqual((await queuedEvents(user, modern.body.queue_id)).map((e) => e.type), ['user_topic']);
  const again = await user.post('/register', { fetch_event_types: ['muted_topics'] });
  assert.deepEqual(again.body.muted_topics.map((m: unknown[]) => m.slice(0, 2)), [['noisy', 'chatter']]);
});
