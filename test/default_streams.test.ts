// Default channels: POST/DELETE /default_streams (administrators only, Zulip's errors), the
// default_streams event and realm_default_streams, and new accounts joining the defaults.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client, openQueue, queuedEvents, startTestServer, type TestServer } from './helpers.js';
import { createAccountFromCli } from '../src/actions/cli.js';

let t: TestServer;
let member: Client;
let guest: Client;
let admin: Client;

before(async () => {
  t = await startTestServer();
  member = await t.createUser({ name: 'Mia Member' });
  guest = await t.createUser({ role: 'guest', name: 'Gus Guest' });
  admin = await t.createUser({ role: 'administrator', name: 'Ada Admin' });
});
after(async () => {
  await t.close();
});

async function create(c: Client, name: string, extra: Record<string, unknown> = {}): Promise<number> {
  const res = await c.post('/users/me/subscriptions', { subscriptions: [{ name }], ...extra } as any);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return (await c.get('/get_stream_id', { stream: name })).body.stream_id;
}

async function defaults(c: Client): Promise<number[]> {
  const res = await c.post('/register', { fetch_event_types: ['default_streams'] });
  assert.equal(res.status, 200);
  return res.body.realm_default_streams;
}

test('add and remove a default channel: events to non-guests, realm_default_streams', async () => {
  const id = await create(t.owner, 'welcome');
  const memberQ = await openQueue(member, ['default_streams']);
  const guestQ = await openQueue(guest, ['default_streams']);
  const add = await admin.post('/default_streams', { stream_id: id });
  assert.equal(add.status, 200);
  assert.deepEqual(add.body, { result: 'success', msg: '' });
  assert.deepEqual(await defaults(member), [id]);
  const evs = await queuedEvents(member, memberQ);
  assert.deepEqual(evs.map((e: any) => [e.type, e.default_streams]), [['default_streams', [id]]]);
  assert.deepEqual(await queuedEvents(guest, guestQ), [], 'guests are not told');
  assert.deepEqual(await defaults(guest), [], 'nor shown the set');
  // The same through PATCH /streams/{id}: non-guests hear of it.
  const viaPatchQ = await openQueue(guest, ['default_streams']);
  assert.equal((await t.owner.patch(`/streams/${id}`, { is_default_stream: false })).status, 200);
  assert.equal((await t.owner.patch(`/streams/${id}`, { is_default_stream: true })).status, 200);
  assert.deepEqual(await queuedEvents(guest, viaPatchQ), []);
  // Adding it again changes nothing and says nothing.
  const againQ = await openQueue(member, ['default_streams']);
  assert.equal((await admin.post('/default_streams', { stream_id: id })).status, 200);
  assert.deepEqual(await queuedEvents(member, againQ), []);
  const listed = await member.get('/streams', { include_default: true });
  assert.equal(listed.body.streams.find((s: any) => s.stream_id === id).is_default, true);

  const del = await t.owner.delete('/default_streams', { stream_id: id });
  assert.equal(del.status, 200);
  assert.deepEqual(await defaults(member), []);
  const after = await queuedEvents(member, againQ);
  assert.deepEqual(after.map((e: any) => [e.type, e.default_streams]), [['default_streams', []]]);
});

test('default channels: only administrators, only public channels, Zulip errors', async () => {
  const id = await create(t.owner, 'lobby');
  const denied = await member.post('/default_streams', { stream_id: id });
  assert.equal(denied.status, 400);
  assert.equal(denied.body.msg, 'Must be an organization administrator');
  assert.equal((await member.delete('/default_streams', { stream_id: id })).status, 400);
  assert.equal((await guest.post('/default_streams', { stream_id: id })).status, 400);

  const secret = await create(t.owner, 'secret-defaults', { invite_only: true });
  const priv = await t.owner.post('/default_streams', { stream_id: secret });
  assert.deepEqual([priv.status, priv.body.code, priv.body.msg], [400, 'BAD_REQUEST', 'Private channels cannot be made default.']);
  // An administrator who cannot read a private channel does not learn it exists.
  const hidden = await admin.post('/default_streams', { stream_id: secret });
  assert.deepEqual([hidden.status, hidden.body.msg], [400, 'Invalid channel ID']);
  const missing = await t.owner.post('/default_streams', { stream_id: 987654 });
  assert.deepEqual([missing.status, missing.body.msg], [400, 'Invalid channel ID']);
  assert.deepEqual([(await t.owner.delete('/default_streams', { stream_id: 987654 })).body.msg], ['Invalid channel ID']);
  const noArg = await t.owner.post('/default_streams', {});
  assert.deepEqual([noArg.status, noArg.body.code], [400, 'REQUEST_VARIABLE_MISSING']);
  assert.equal((await t.owner.post('/default_streams', { stream_id: 'abc' })).status, 400);
  // Other organizations' channels are unknown.
  const other = await t.createOrg('Elsewhere Defaults');
  assert.equal((await other.owner.post('/default_streams', { stream_id: id })).body.msg, 'Invalid channel ID');
});

test('a new account joins the default channels; others see peer_add; bots do not join', async () => {
  const id = await create(t.owner, 'everyone-here');
  assert.equal((await t.owner.post('/default_streams', { stream_id: id })).status, 200);
  for (let i = 0; i < 25; i++) {
    assert.equal((await t.owner.post('/messages', { type: 'stream', to: id, topic: 'history', content: `message ${i}` })).status, 200);
  }
  const memberQ = await openQueue(member, ['subscription', 'realm_user']);
  const made = await t.owner.post('/users', { email: 'newbie@example.com', password: 'newbie-password', full_name: 'Nell Newbie' });
  assert.equal(made.status, 200, JSON.stringify(made.body));
  const newId = made.body.user_id;
  const evs = await queuedEvents(member, memberQ);
  assert.deepEqual(evs.map((e: any) => `${e.type}/${e.op}`), ['realm_user/add', 'subscription/peer_add']);
  assert.deepEqual([evs[1].stream_ids, evs[1].user_ids], [[id], [newId]]);
  const subs = await t.owner.get('/users/me/subscriptions', { include_subscribers: true });
  assert.ok(subs.body.subscriptions.find((s: any) => s.stream_id === id).subscribers.includes(newId));
  // The new user starts with the channel and its recent history, the newest 20 messages unread.
  const key = await t.owner.post('/fetch_api_key', { username: 'newbie@example.com', password: 'newbie-password' });
  assert.equal(key.status, 200);
  const newbie = new Client(t.url, 'newbie@example.com', key.body.api_key, newId);
  const state = await newbie.post('/register', { fetch_event_types: ['subscription', 'message', 'update_message_flags'] });
  assert.deepEqual(state.body.subscriptions.map((s: any) => s.stream_id), [id]);
  assert.equal(state.body.unread_msgs.count, 20);
  const history = await newbie.get('/messages', { anchor: 'newest', num_before: 50, num_after: 0, narrow: [{ operator: 'channel', operand: id }] });
  // The 25 sent, after the Notification Bot's channel-created message.
  assert.equal(history.body.messages.length, 26);
  assert.equal(history.body.messages[0].subject, 'channel events');
  assert.ok(history.body.messages[0].flags.includes('read') && !history.body.messages[25].flags.includes('read'));

  const bot = await member.post('/bots', { full_name: 'Helper Bot', short_name: 'helper' });
  assert.equal(bot.status, 200);
  const after = await t.owner.get('/users/me/subscriptions', { include_subscribers: true });
  assert.ok(!after.body.subscriptions.find((s: any) => s.stream_id === id).subscribers.includes(bot.body.user_id));
});

test('create-user (the command line) also joins the default channels', async () => {
  const id = await create(t.owner, 'cli-default');
  assert.equal((await t.owner.post('/default_streams', { stream_id: id })).status, 200);
  const made = await createAccountFromCli(t.server.services.database, { email: 'cli-made@example.com', password: 'cli-password', fullName: 'Cli Made', role: 'member', realmId: t.realmId });
  t.server.services.cache.invalidateUsers(t.realmId);
  const subs = await t.owner.get('/users/me/subscriptions', { include_subscribers: true });
  assert.ok(subs.body.subscriptions.find((s: any) => s.stream_id === id).subscribers.includes(made.user_id));
});
