// The system bots as Zulip keeps them: Notification Bot, Welcome Bot and Email Gateway live in the
// internal organization every organization shares; /register lists them in cross_realm_bots (not
// in realm_users), and their messages arrive without any realm_user event.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openQueue, queuedEvents, startTestServer, type TestServer } from './helpers.js';

let t: TestServer;

before(async () => {
  t = await startTestServer();
});
after(async () => {
  await t.close();
});

test('cross_realm_bots: the shared system bots, by name, with is_system_bot; never in realm_users', async () => {
  const reg = (await t.owner.post('/register', { fetch_event_types: ['realm_user'] })).body;
  const bots = reg.cross_realm_bots;
  assert.deepEqual(bots.map((b: any) => [b.full_name, b.email, b.is_bot, b.is_system_bot]), [
    ['Email Gateway', 'emailgateway@zulip.com', true, true],
    ['Notification Bot', 'notification-bot@zulip.com', true, true],
    ['Welcome Bot', 'welcome-bot@zulip.com', true, true],
  ]);
  for (const b of bots) {
    assert.equal(typeof b.user_id, 'number');
    assert.equal(typeof b.date_joined, 'string');
    assert.ok('avatar_url' in b && 'bot_type' in b && 'bot_owner_id' in b && 'role' in b);
  }
  const ids = new Set(bots.map((b: any) => b.user_id));
  assert.ok(!reg.realm_users.some((u: any) => ids.has(u.user_id)));
  assert.ok(!reg.realm_non_active_users.some((u: any) => ids.has(u.user_id)));
  assert.ok(!(await t.owner.get('/users')).body.members.some((u: any) => ids.has(u.user_id)));
  // Another organization sees the very same bots.
  const other = await t.createOrg('Second Org');
  const theirs = (await other.owner.post('/register', { fetch_event_types: ['realm_user'] })).body.cross_realm_bots;
  assert.deepEqual(theirs.map((b: any) => b.user_id), bots.map((b: any) => b.user_id));
});

test("the Notification Bot posts in two organizations as the same user, with no realm_user event", async () => {
  const reg = (await t.owner.post('/register', { fetch_event_types: ['realm_user'] })).body;
  const botId = reg.cross_realm_bots.find((b: any) => b.email === 'notification-bot@zulip.com').user_id;
  const other = await t.createOrg('Third Org');
  for (const owner of [t.owner, other.owner]) {
    await owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'moves' }] });
    const id = (await owner.post('/messages', { type: 'stream', to: 'moves', topic: 'before', content: 'hello' })).body.id;
    const q = await openQueue(owner, ['realm_user', 'message']);
    const moved = await owner.patch(`/messages/${id}`, { topic: 'after', propagate_mode: 'change_all' });
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
    const evs = await queuedEvents(owner, q);
    assert.equal(evs.filter((e) => e.type === 'realm_user').length, 0);
    const notices = evs.filter((e) => e.type === 'message' && e.message.sender_id === botId);
    assert.ok(notices.length >= 1, 'the breadcrumb comes from the shared bot');
    const fetched = (await owner.get(`/messages/${notices[0].message.id}`)).body.message;
    assert.deepEqual([fetched.sender_id, fetched.sender_full_name, fetched.sender_email], [botId, 'Notification Bot', 'notification-bot@zulip.com']);
  }
});

test('a direct message from the Welcome Bot shows the bot among its recipients', async () => {
  const admin = await t.createUser({ role: 'administrator', name: 'Wendy Welcome' });
  const res = await admin.post('/realm/test_welcome_bot_custom_message', { welcome_message_custom_text: 'Hello there' });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const m = (await admin.get(`/messages/${res.body.message_id}`)).body.message;
  assert.equal(m.sender_full_name, 'Welcome Bot');
  assert.deepEqual(m.display_recipient.map((r: any) => r.full_name).sort(), ['Welcome Bot', 'Wendy Welcome']);
  const page = (await admin.get('/messages', { anchor: 'newest', num_before: 5, num_after: 0, narrow: [{ operator: 'is', operand: 'dm' }] })).body.messages;
  assert.equal(page.at(-1).sender_email, 'welcome-bot@zulip.com');
});

test('a reply to a system bot: by id or address, the bot among the recipients', async () => {
  const member = await t.createUser({ name: 'Rita Replier' });
  const bots = (await member.post('/register', { fetch_event_types: ['realm_user'] })).body.cross_realm_bots;
  const welcome = bots.find((b: any) => b.email === 'welcome-bot@zulip.com');
  const byId = await member.post('/messages', { type: 'direct', to: [welcome.user_id], content: 'thanks!' });
  assert.equal(byId.status, 200, JSON.stringify(byId.body));
  const m = (await member.get(`/messages/${byId.body.id}`)).body.message;
  assert.deepEqual(m.display_recipient.map((r: any) => r.id).sort((a: number, b: number) => a - b), [welcome.user_id, member.userId].sort((a, b) => a - b));
  const byEmail = await member.post('/messages', { type: 'direct', to: ['notification-bot@zulip.com'], content: 'hello bot' });
  assert.equal(byEmail.status, 200, JSON.stringify(byEmail.body));
});

test('GET /users/{id} and /users/{email} find the system bots', async () => {
  const bots = (await t.owner.post('/register', { fetch_event_types: ['realm_user'] })).body.cross_realm_bots;
  const notification = bots.find((b: any) => b.email === 'notification-bot@zulip.com');
  const byId = await t.owner.get(`/users/${notification.user_id}`);
  assert.equal(byId.status, 200, JSON.stringify(byId.body));
  assert.deepEqual([byId.body.user.full_name, byId.body.user.is_bot], ['Notification Bot', true]);
  const byEmail = await t.owner.get('/users/welcome-bot@zulip.com');
  assert.equal(byEmail.body.user.full_name, 'Welcome Bot');
  assert.equal((await t.owner.get('/users/99999999')).status, 400);
});
