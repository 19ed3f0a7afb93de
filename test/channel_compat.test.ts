// The channel endpoints Zulip clients call besides the main ones: PATCH /users/me/subscriptions,
// legacy topic muting, subscription status, a user's channels, a channel's members,
// POST /channels/create, a channel's email address and a bot's API key.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openQueue, queuedEvents, startTestServer, type Client, type TestServer } from './helpers.js';

let t: TestServer;
let member: Client;
let other: Client;
let guest: Client;
let admin: Client;

before(async () => {
  t = await startTestServer();
  member = await t.createUser({ name: 'Mia Member' });
  other = await t.createUser({ name: 'Otto Other' });
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

const kinds = (events: any[]) => events.map((e) => `${e.type}/${e.op}`);

test('PATCH /users/me/subscriptions adds and deletes in one request, with both events', async () => {
  const keep = await create(t.owner, 'patch-keep');
  const leave = await create(t.owner, 'patch-leave');
  assert.equal((await member.post('/users/me/subscriptions', { subscriptions: [{ name: 'patch-leave' }] })).status, 200);
  const q = await openQueue(member, ['subscription', 'stream']);
  const res = await member.patch('/users/me/subscriptions', { add: [{ name: 'patch-keep', color: '#e79ab5' }, { name: 'patch-new' }], delete: ['patch-leave'] });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual(res.body.subscribed, { [String(member.userId)]: ['patch-keep', 'patch-new'] });
  assert.deepEqual(res.body.already_subscribed, {});
  assert.deepEqual(res.body.removed, ['patch-leave']);
  assert.deepEqual(res.body.not_removed, []);
  const evs = await queuedEvents(member, q);
  assert.deepEqual(kinds(evs), ['stream/create', 'subscription/add', 'subscription/remove']);
  const added = evs[1].subscriptions.find((s: any) => s.stream_id === keep);
  assert.equal(added.color, '#e79ab5');
  assert.deepEqual(evs[2].subscriptions.map((s: any) => s.stream_id), [leave]);

  const again = await member.patch('/users/me/subscriptions', { add: [{ name: 'patch-keep' }], delete: ['patch-leave'] });
  assert.deepEqual([again.body.subscribed, again.body.already_subscribed, again.body.removed, again.body.not_removed], [{}, { [String(member.userId)]: ['patch-keep'] }, [], ['patch-leave']]);
  const onlyDelete = await member.patch('/users/me/subscriptions', { delete: ['patch-keep'] });
  assert.deepEqual([onlyDelete.status, onlyDelete.body.removed, onlyDelete.body.subscribed], [200, ['patch-keep'], {}]);

  const nothing = await member.patch('/users/me/subscriptions', {});
  assert.deepEqual([nothing.status, nothing.body.msg], [400, 'Nothing to do. Specify at least one of "add" or "delete".']);
  assert.equal((await member.patch('/users/me/subscriptions', { add: 'nope' })).status, 400);
  assert.equal((await member.patch('/users/me/subscriptions', { add: [{ name: 'x', color: 'red' }] })).status, 400);
});

test('PATCH /users/me/subscriptions: a failing delete rolls the add back', async () => {
  const res = await member.patch('/users/me/subscriptions', { add: [{ name: 'never-made' }], delete: ['no-such-channel'] });
  assert.deepEqual([res.status, res.body.code, res.body.msg], [400, 'BAD_REQUEST', 'Channel(s) (no-such-channel) do not exist'], "remove_subscriptions_backend's list_to_streams");
  const id = await member.get('/get_stream_id', { stream: 'never-made' });
  assert.equal(id.status, 400, 'the channel was not created');
  const g = await guest.patch('/users/me/subscriptions', { add: [{ name: 'guest-try' }] });
  assert.deepEqual([g.status, g.body.msg], [400, 'Not allowed for guest users']);
});

test('legacy muted_topics: add mutes, remove resets, as user_topic events; Zulip errors', async () => {
  const id = await create(t.owner, 'mute-room');
  const q = await openQueue(t.owner, ['user_topic']);
  assert.equal((await t.owner.patch('/users/me/subscriptions/muted_topics', { stream_id: id, topic: 'noise', op: 'add' })).status, 200);
  let topics = (await t.owner.post('/register', { fetch_event_types: ['user_topic'] })).body.user_topics;
  assert.deepEqual(topics.map((x: any) => [x.stream_id, x.topic_name, x.visibility_policy]), [[id, 'noise', 1]]);
  assert.equal((await t.owner.patch('/users/me/subscriptions/muted_topics', { stream: 'mute-room', topic: 'noise', op: 'remove' })).status, 200);
  topics = (await t.owner.post('/register', { fetch_event_types: ['user_topic'] })).body.user_topics;
  assert.deepEqual(topics, []);
  const evs = await queuedEvents(t.owner, q);
  assert.deepEqual(evs.map((e: any) => [e.type, e.visibility_policy]), [['user_topic', 1], ['user_topic', 0]]);

  const both = await t.owner.patch('/users/me/subscriptions/muted_topics', { stream_id: id, stream: 'mute-room', topic: 'x', op: 'add' });
  assert.equal(both.body.msg, "Please choose one: 'stream' or 'stream_id'.");
  assert.equal((await t.owner.patch('/users/me/subscriptions/muted_topics', { topic: 'x', op: 'add' })).body.msg, "Please supply 'stream'.");
  assert.equal((await t.owner.patch('/users/me/subscriptions/muted_topics', { stream_id: 99999, topic: 'x', op: 'add' })).body.msg, 'Invalid channel ID');
  assert.equal((await t.owner.patch('/users/me/subscriptions/muted_topics', { stream: 'BOGUS', topic: 'x', op: 'remove' })).body.msg, 'Topic is not muted');
  assert.equal((await t.owner.patch('/users/me/subscriptions/muted_topics', { stream_id: id, topic: 'x', op: 'toggle' })).status, 400);
  assert.equal((await t.owner.patch('/users/me/subscriptions/muted_topics', { stream_id: id, op: 'add' })).body.code, 'REQUEST_VARIABLE_MISSING');
});

test('subscription status, a user\'s channels and a channel\'s members respect who may see what', async () => {
  const open = await create(t.owner, 'status-open');
  const secret = await create(t.owner, 'status-secret', { invite_only: true });
  assert.equal((await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'status-open' }], principals: [other.userId] })).status, 200);

  const yes = await member.get(`/users/${other.userId}/subscriptions/${open}`);
  assert.deepEqual([yes.status, yes.body.is_subscribed], [200, true]);
  assert.equal((await member.get(`/users/${member.userId}/subscriptions/${open}`)).body.is_subscribed, false);
  assert.equal((await member.get(`/users/${t.owner.userId}/subscriptions/${secret}`)).body.msg, 'Invalid channel ID');
  assert.equal((await admin.get(`/users/${t.owner.userId}/subscriptions/${secret}`)).body.is_subscribed, true);
  assert.equal((await member.get(`/users/999999/subscriptions/${open}`)).body.msg, 'No such user');
  assert.equal((await member.get(`/users/${other.userId}/subscriptions/999999`)).body.msg, 'Invalid channel ID');

  const mine = await member.get(`/users/${t.owner.userId}/channels`);
  assert.equal(mine.status, 200);
  assert.ok(mine.body.subscribed_channel_ids.includes(open));
  assert.ok(!mine.body.subscribed_channel_ids.includes(secret), 'a private channel the caller cannot see is left out');
  assert.ok((await admin.get(`/users/${t.owner.userId}/channels`)).body.subscribed_channel_ids.includes(secret));
  assert.equal((await member.get('/users/999999/channels')).body.msg, 'No such user');
  const leaving = await t.createUser({ name: 'Lee Leaving' });
  assert.equal((await t.owner.delete(`/users/${leaving.userId}`)).status, 200);
  assert.equal((await member.get(`/users/${leaving.userId}/channels`)).body.msg, 'User is deactivated');
  assert.equal((await member.get(`/users/${leaving.userId}/subscriptions/${open}`)).body.msg, 'User is deactivated');
  // A guest outside can_access_all_users_group asking about someone hidden from them: access_user_by_id's
  // 'Insufficient permission' (the id is in their /register as an "Unknown user"); access_user_common
  // reports a deactivated target as such before checking visibility.
  const hidden = await t.createUser({ name: 'Hal Hidden' });
  const groupIds = Object.fromEntries((await t.owner.get('/user_groups')).body.user_groups.map((g: any) => [g.name, g.id]));
  assert.equal((await t.owner.patch('/realm', { can_access_all_users_group: { new: groupIds['role:members'] } })).status, 200);
  for (const path of [`/users/${hidden.userId}/channels`, `/users/${hidden.userId}/subscriptions/${open}`]) {
    assert.deepEqual((await guest.get(path)).body, { result: 'error', msg: 'Insufficient permission', code: 'BAD_REQUEST' }, path);
  }
  for (const path of [`/users/${leaving.userId}/channels`, `/users/${leaving.userId}/subscriptions/${open}`]) {
    assert.deepEqual((await guest.get(path)).body, { result: 'error', msg: 'User is deactivated', code: 'BAD_REQUEST' }, path);
  }
  assert.equal((await guest.get('/users/999999/channels')).body.msg, 'No such user');
  assert.equal((await t.owner.patch('/realm', { can_access_all_users_group: { new: groupIds['role:everyone'] } })).status, 200);

  const members = await member.get(`/streams/${open}/members`);
  assert.deepEqual([members.status, members.body.subscribers], [200, [t.owner.userId, other.userId].sort((a, b) => a - b)]);
  assert.equal((await member.get(`/streams/${secret}/members`)).body.msg, 'Invalid channel ID');
  assert.equal((await guest.get(`/streams/${open}/members`)).body.msg, 'Invalid channel ID');
  assert.deepEqual((await admin.get(`/streams/${secret}/members`)).body.subscribers, [t.owner.userId]);
  assert.equal((await member.get('/streams/999999/members')).status, 400);
});

test('POST /channels/create: exactly the subscribers given, events, 409 for a name in use', async () => {
  const q = await openQueue(other, ['stream', 'subscription']);
  const res = await member.post('/channels/create', { name: 'made-here', subscribers: [other.userId], description: 'Line one\nline two', invite_only: true });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const id = res.body.id;
  assert.equal(typeof id, 'number');
  const evs = await queuedEvents(other, q);
  assert.deepEqual(kinds(evs), ['stream/create', 'subscription/add']);
  assert.equal(evs[0].streams[0].description, 'Line one line two');
  assert.equal(evs[0].streams[0].invite_only, true);
  assert.deepEqual((await other.get(`/streams/${id}/members`)).body.subscribers, [other.userId]);
  assert.equal((await member.get(`/users/${member.userId}/subscriptions/${id}`)).body.is_subscribed, false, 'the creator (its administrator) did not join');

  const empty = await member.post('/channels/create', { name: 'nobody-here', subscribers: [] });
  assert.equal(empty.status, 200);
  assert.deepEqual((await member.get(`/streams/${empty.body.id}/members`)).body.subscribers, []);

  const clash = await admin.post('/channels/create', { name: 'MADE-HERE', subscribers: [] });
  assert.deepEqual([clash.status, clash.body.code, clash.body.msg], [409, 'CHANNEL_ALREADY_EXISTS', "Channel 'made-here' already exists"]);
  assert.equal((await member.post('/channels/create', { name: 'x-chan' })).body.code, 'REQUEST_VARIABLE_MISSING');
  assert.equal((await member.post('/channels/create', { name: 'x-chan', subscribers: [999999] })).body.msg, 'No such user');
  assert.equal((await member.post('/channels/create', { name: '  ', subscribers: [] })).body.msg, "Channel name can't be empty.");
  assert.equal((await guest.post('/channels/create', { name: 'guest-chan', subscribers: [] })).status, 400);
  assert.equal((await member.post('/channels/create', { name: 'def-chan', subscribers: [], is_default_stream: true })).status, 400);
});

test('channel email address: Zulip format with the server host, stable token, sender choices', async () => {
  const id = await create(t.owner, 'Mail Room');
  assert.equal((await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'Mail Room' }], principals: [member.userId] })).status, 200);
  const host = new URL(t.url).hostname;
  const res = await member.get(`/streams/${id}/email_address`);
  assert.equal(res.status, 200);
  const m = /^mail-room\.([0-9a-f]{32})\.show-sender@(.+)$/.exec(res.body.email);
  assert.ok(m, res.body.email);
  assert.equal(m![2], host);
  assert.equal((await member.get(`/streams/${id}/email_address`)).body.email, res.body.email, 'the token is kept');
  const self = await member.get(`/streams/${id}/email_address`, { sender_id: member.userId });
  assert.notEqual(self.body.email, res.body.email, 'another sender, another token');
  const bot = await member.post('/bots', { full_name: 'Mail Bot', short_name: 'mailer' });
  assert.equal((await member.get(`/streams/${id}/email_address`, { sender_id: bot.body.user_id })).status, 200);
  assert.equal((await other.get(`/streams/${id}/email_address`, { sender_id: bot.body.user_id })).body.msg, 'Insufficient permission');
  assert.equal((await member.get(`/streams/${id}/email_address`, { sender_id: other.userId })).body.msg, 'No such bot');
  const secret = await create(t.owner, 'mail-secret', { invite_only: true });
  assert.equal((await member.get(`/streams/${secret}/email_address`)).body.msg, 'Invalid channel ID');
  const unicode = await create(t.owner, 'Café ☕');
  const odd = (await t.owner.get(`/streams/${unicode}/email_address`)).body.email;
  assert.match(odd, /^[0-9a-f]{32}\.show-sender@/, 'a name that loses letters is left out');
});

test('bot API key: the owner and administrators only', async () => {
  const bot = await member.post('/bots', { full_name: 'Key Bot', short_name: 'keybot' });
  assert.equal(bot.status, 200);
  const mine = await member.get(`/bots/${bot.body.user_id}/api_key`);
  assert.deepEqual([mine.status, mine.body.api_key], [200, bot.body.api_key]);
  assert.equal((await admin.get(`/bots/${bot.body.user_id}/api_key`)).body.api_key, bot.body.api_key);
  assert.deepEqual([(await other.get(`/bots/${bot.body.user_id}/api_key`)).body.msg], ['Insufficient permission']);
  const notBot = await admin.get(`/bots/${other.userId}/api_key`);
  assert.deepEqual([notBot.status, notBot.body.msg], [400, 'No such bot']);
  assert.equal((await admin.get('/bots/999999/api_key')).body.msg, 'No such bot');
});
