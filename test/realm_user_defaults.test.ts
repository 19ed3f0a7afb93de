// PATCH /realm/user_settings_defaults: administrators set the settings new accounts start with;
// realm_user_settings_defaults in /register and its events.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client, openQueue, queuedEvents, startTestServer, type TestServer } from './helpers.js';

let t: TestServer;
let member: Client;
let admin: Client;

before(async () => {
  t = await startTestServer();
  member = await t.createUser({ name: 'Mia Member' });
  admin = await t.createUser({ role: 'administrator', name: 'Ada Admin' });
});
after(async () => {
  await t.close();
});

async function defaults(c: Client) {
  const res = await c.post('/register', { fetch_event_types: ['realm_user_settings_defaults'] });
  assert.equal(res.status, 200);
  return res.body.realm_user_settings_defaults;
}

test('administrators change the defaults; everyone hears of each change', async () => {
  const before = await defaults(member);
  assert.equal(before.left_side_userlist, false);
  assert.equal(before.emojiset, 'google');
  assert.ok(Array.isArray(before.available_notification_sounds));
  const q = await openQueue(member, ['realm_user_settings_defaults']);
  const res = await admin.patch('/realm/user_settings_defaults', { left_side_userlist: true, emojiset: 'text', web_font_size_px: 18, timezone: 'Europe/Paris' });
  assert.equal(res.status, 200);
  assert.deepEqual(res.body.ignored_parameters_unsupported, ['timezone']);
  const evs = await queuedEvents(member, q);
  assert.deepEqual(
    evs.map((e: any) => [e.type, e.op, e.property, e.value]).sort(),
    [
      ['realm_user_settings_defaults', 'update', 'emojiset', 'text'],
      ['realm_user_settings_defaults', 'update', 'left_side_userlist', true],
      ['realm_user_settings_defaults', 'update', 'web_font_size_px', 18],
    ],
  );
  const after = await defaults(member);
  assert.deepEqual([after.left_side_userlist, after.emojiset, after.web_font_size_px], [true, 'text', 18]);

  const q2 = await openQueue(member, ['realm_user_settings_defaults']);
  assert.equal((await t.owner.patch('/realm/user_settings_defaults', { emojiset: 'text' })).status, 200);
  assert.deepEqual(await queuedEvents(member, q2), [], 'an unchanged value says nothing');
  // Existing users keep their own settings.
  const mine = (await member.post('/register', { fetch_event_types: ['user_settings'] })).body.user_settings;
  assert.equal(mine.left_side_userlist, false);
});

test('new accounts start from the defaults', async () => {
  assert.equal((await admin.patch('/realm/user_settings_defaults', { enter_sends: true, email_address_visibility: 2 })).status, 200);
  const fresh = await t.createUser({ name: 'Nia New' });
  const settings = (await fresh.post('/register', { fetch_event_types: ['user_settings'] })).body.user_settings;
  assert.deepEqual([settings.enter_sends, settings.left_side_userlist, settings.emojiset, settings.email_address_visibility], [true, true, 'text', 2]);
  const made = await t.owner.post('/users', { email: 'api-made@example.com', password: 'api-made-pw', full_name: 'Api Made' });
  assert.equal(made.status, 200);
  const key = await t.owner.post('/fetch_api_key', { username: 'api-made@example.com', password: 'api-made-pw' });
  const apiMade = new Client(t.url, 'api-made@example.com', key.body.api_key, made.body.user_id);
  assert.equal((await apiMade.post('/register', { fetch_event_types: ['user_settings'] })).body.user_settings.enter_sends, true);
});

test('only administrators; values checked like personal settings', async () => {
  const denied = await member.patch('/realm/user_settings_defaults', { enter_sends: false });
  assert.deepEqual([denied.status, denied.body.msg], [400, 'Must be an organization administrator']);
  assert.deepEqual((await admin.patch('/realm/user_settings_defaults', { emojiset: 'comic' })).body.msg, 'Invalid emojiset');
  assert.equal((await admin.patch('/realm/user_settings_defaults', { web_font_size_px: 99 })).status, 400);
  assert.equal((await admin.patch('/realm/user_settings_defaults', { enter_sends: 'maybe' })).status, 400);
  assert.equal((await admin.patch('/realm/user_settings_defaults', { color_scheme: 'dark' })).status, 400);
  const none = await admin.patch('/realm/user_settings_defaults', {});
  assert.equal(none.status, 200);
});
