// Channels and subscriptions over HTTP: creating, subscribing others, listing, access rules,
// and the stream/subscription events.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openQueue, queuedEvents, startTestServer, type Client, type TestServer } from './helpers.js';

let t: TestServer;
let member: Client;
let other: Client;
let guest: Client;
before(async () => {
  t = await startTestServer();
  member = await t.createUser({ name: 'Mia Member' });
  other = await t.createUser({ name: 'Otto Other' });
  guest = await t.createUser({ role: 'guest', name: 'Gus Guest' });
});
after(async () => {
  await t.close();
});



test('creating a channel subscribes the caller and tells everyone who can see it', async () => {
  const watcher = await openQueue(other, ['stream', 'subscription'], ['subscription']);
  const mine = await openQueue(member, ['stream', 'subscription'], ['subscription']);
  const res = await member.post('/users/me/subscriptions', { subscriptions: [{ name: 'design', description: 'All **things** design' }] });
  assert.equal(res.status, 200);
  assert.deepEqual(res.body.subscribed, { [String(member.userId)]: ['design'] });
  assert.deepEqual(res.body.already_subscribed, {});

  const seen = await queuedEvents(other, watcher);
  const create = seen.find((e) => e.type === 'stream' && e.op === 'create');
  assert.ok(create, 'stream create event');
  assert.equal(create.streams[0].name, 'design');
  assert.equal(create.streams[0].rendered_description, '<p>All <strong>things</strong> design</p>');

  const own = await queuedEvents(member, mine);
  const add = own.find((e) => e.type === 'subscription' && e.op === 'add');
  assert.ok(add, 'subscription add event');
  assert.equal(add.subscriptions[0].name, 'design');
  assert.deepEqual(add.subscriptions[0].subscribers, [member.userId]);
  assert.equal(typeof add.subscriptions[0].color, 'string');

  const again = await member.post('/users/me/subscriptions', { subscriptions: [{ name: 'Design' }] });
  assert.deepEqual(again.body.already_subscribed, { [String(member.userId)]: ['design'] });
});

test('subscribing others sends peer_add to those already there', async () => {
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'peers' }] });
  const q = await openQueue(t.owner, ['stream', 'subscription'], ['subscription']);
  const res = await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'peers' }], principals: [member.userId, other.email] });
  assert.equal(res.status, 200);
  assert.deepEqual(Object.keys(res.body.subscribed).sort(), [String(member.userId), String(other.userId)].sort());
  const events = await queuedEvents(t.owner, q);
  const peer = events.find((e) => e.type === 'subscription' && e.op === 'peer_add');
  assert.ok(peer);
  assert.deepEqual(peer.user_ids.sort(), [member.userId, other.userId].sort());
});

test('channel creation validates names and descriptions', async () => {
  const empty = await member.post('/users/me/subscriptions', { subscriptions: [{ name: '   ' }] });
  assert.equal(empty.status, 400);
  assert.equal(empty.body.code, 'BAD_REQUEST');
  const long = await member.post('/users/me/subscriptions', { subscriptions: [{ name: 'x'.repeat(61) }] });
  assert.equal(long.status, 400);
  const ctrl = await member.post('/users/me/subscriptions', { subscriptions: [{ name: 'bad\u0001name' }] });
  assert.equal(ctrl.status, 400);
  const desc = await member.post('/users/me/subscriptions', { subscriptions: [{ name: 'ok', description: 'd'.repeat(1025) }] });
  assert.equal(desc.status, 400);
  const notList = await member.post('/users/me/subscriptions', { subscriptions: '{"name":"x"}' });
  assert.equal(notList.status, 400);
  const missing = await member.post('/users/me/subscriptions', {});
  assert.equal(missing.body.code, 'REQUEST_VARIABLE_MISSING');
  assert.equal(missing.body.var_name, 'subscriptions');
  const badPrincipal = await member.post('/users/me/subscriptions', { subscriptions: [{ name: 'design' }], principals: [999999] });
  assert.equal(badPrincipal.status, 400);
  const publicNoHistory = await member.post('/users/me/subscriptions', { subscriptions: [{ name: 'nohist' }], history_public_to_subscribers: false });
  assert.equal(publicNoHistory.status, 400);
});

test('guests cannot create channels or subscribe others', async () => {
  const res = await guest.post('/users/me/subscriptions', { subscriptions: [{ name: 'guest-made' }] });
  assert.equal(res.status, 400);
  assert.equal(res.body.result, 'error');
  const list = await t.owner.get('/streams');
  assert.ok(!list.body.streams.some((s: any) => s.name === 'guest-made'));
});

test('a private channel is invisible to outsiders: the same error as a missing one', async () => {
  const created = await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'secret' }], invite_only: true });
  assert.equal(created.status, 200);
  const id = (await t.owner.get('/get_stream_id', { stream: 'secret' })).body.stream_id;
  assert.equal(typeof id, 'number');

  const byId = await member.get(`/streams/${id}`);
  const missingId = await member.get('/streams/999999');
  assert.equal(byId.status, 400);
  assert.deepEqual(byId.body, missingId.body);

  const byName = await member.get('/get_stream_id', { stream: 'secret' });
  const missingName = await member.get('/get_stream_id', { stream: 'nonexistent' });
  assert.equal(byName.status, 400);
  assert.equal(byName.body.msg, "Invalid channel name 'secret'");
  assert.equal(missingName.body.msg, "Invalid channel name 'nonexistent'");

  const list = await member.get('/streams');
  assert.ok(!list.body.streams.some((s: any) => s.name === 'secret'));

  const join = await member.post('/users/me/subscriptions', { subscriptions: [{ name: 'secret' }] });
  assert.equal(join.status, 400);
  assert.equal(join.body.msg, 'Unable to access channel (secret).');
  const soft = await member.post('/users/me/subscriptions', { subscriptions: [{ name: 'secret' }], authorization_errors_fatal: false });
  assert.equal(soft.status, 200);
  assert.deepEqual(soft.body.unauthorized, ['secret']);
  assert.deepEqual(soft.body.subscribed, {});
});

test('GET /streams/{id} and GET /users/me/subscriptions show what the caller may see', async () => {
  const id = (await member.get('/get_stream_id', { stream: 'design' })).body.stream_id;
  const one = await other.get(`/streams/${id}`);
  assert.equal(one.status, 200);
  assert.equal(one.body.stream.name, 'design');
  assert.equal(one.body.stream.subscriber_count, 1);
  assert.equal(one.body.stream.invite_only, false);
  assert.equal(typeof one.body.stream.can_send_message_group, 'number');
  assert.deepEqual(one.body.stream.can_administer_channel_group, { direct_members: [member.userId], direct_subgroups: [] });

  const subs = await member.get('/users/me/subscriptions', { include_subscribers: true });
  assert.equal(subs.status, 200);
  const design = subs.body.subscriptions.find((s: any) => s.name === 'design');
  assert.ok(design);
  assert.deepEqual(design.subscribers, [member.userId]);
  const noSubs = await member.get('/users/me/subscriptions');
  assert.equal(noSubs.body.subscriptions.find((s: any) => s.name === 'design').subscribers, undefined);

  const bad = await member.get('/streams/abc');
  assert.equal(bad.status, 400);
});

test('GET /streams filters: subscribed only, include_all for administrators only', async () => {
  const onlySubscribed = await member.get('/streams', { include_public: false });
  assert.ok(onlySubscribed.body.streams.every((s: any) => ['design', 'peers'].includes(s.name)));
  const all = await t.owner.get('/streams', { include_all: true });
  assert.equal(all.status, 200);
  assert.ok(all.body.streams.some((s: any) => s.name === 'secret'));
  const denied = await member.get('/streams', { include_all: true });
  assert.equal(denied.status, 400);
  const guestView = await guest.get('/streams');
  assert.deepEqual(guestView.body.streams, []);
});

test('channels of another organization do not exist for this one', async () => {
  const org = await t.createOrg('Elsewhere');
  await org.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'their-channel' }] });
  const theirId = (await org.owner.get('/get_stream_id', { stream: 'their-channel' })).body.stream_id;
  const res = await member.get(`/streams/${theirId}`);
  assert.equal(res.status, 400);
  const byName = await member.get('/get_stream_id', { stream: 'their-channel' });
  assert.equal(byName.status, 400);
  // Subscribing by that name creates a channel of our own organization instead.
  const mine = await member.post('/users/me/subscriptions', { subscriptions: [{ name: 'their-channel' }] });
  assert.equal(mine.status, 200);
  const ourId = (await member.get('/get_stream_id', { stream: 'their-channel' })).body.stream_id;
  assert.notEqual(ourId, theirId);
});

test('members cannot subscribe others to a channel when the organization forbids it', async () => {
  const restrict = await t.owner.patch('/realm', { can_add_subscribers_group: { new: (await t.owner.get('/user_groups')).body.user_groups.find((g: any) => g.name === 'role:administrators').id } });
  assert.equal(restrict.status, 200);
  const res = await member.post('/users/me/subscriptions', { subscriptions: [{ name: 'design' }], principals: [other.userId] });
  assert.equal(res.status, 400);
  const ownerAdds = await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'design' }], principals: [other.userId] });
  assert.equal(ownerAdds.status, 200);
  assert.deepEqual(ownerAdds.body.subscribed, { [String(other.userId)]: ['design'] });
});
