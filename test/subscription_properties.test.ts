// Subscription settings and marking channels, topics and everything as read.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openQueue, queuedEvents, sendToChannel, startTestServer, type Client, type TestServer } from './helpers.js';

let t: TestServer;
let ann: Client;
let roomId: number;
before(async () => {
  t = await startTestServer();
  ann = await t.createUser({ name: 'Ann Settings' });
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'room' }, { name: 'other-room' }], principals: [t.owner.userId, ann.userId] });
  roomId = (await ann.get('/get_stream_id', { stream: 'room' })).body.stream_id;
});
after(async () => {
  await t.close();
});

test('subscription properties: color, muting (both spellings), pinning, notifications, with events', async () => {
  const q = await openQueue(ann, ['subscription']);
  const res = await ann.post('/users/me/subscriptions/properties', {
    subscription_data: [
      { stream_id: roomId, property: 'color', value: '#ff0000' },
      { stream_id: roomId, property: 'pin_to_top', value: true },
      { stream_id: roomId, property: 'in_home_view', value: false },
      { stream_id: roomId, property: 'push_notifications', value: true },
    ],
  });
  assert.equal(res.status, 200);
  const sub = (await ann.get('/users/me/subscriptions')).body.subscriptions.find((s: any) => s.stream_id === roomId);
  assert.deepEqual([sub.color, sub.pin_to_top, sub.is_muted, sub.in_home_view, sub.push_notifications], ['#ff0000', true, true, false, true]);
  const evs = await queuedEvents(ann, q);
  assert.deepEqual(evs.map((e: any) => [e.property, e.value]), [['color', '#ff0000'], ['pin_to_top', true], ['in_home_view', false], ['is_muted', true], ['push_notifications', true]]);
  const bad = [
    { stream_id: roomId, property: 'color', value: 'red' },
    { stream_id: roomId, property: 'is_muted', value: 'yes' },
    { stream_id: roomId, property: 'font', value: 'bold' },
    { stream_id: 999999, property: 'color', value: '#000000' },
  ];
  for (const change of bad) assert.equal((await ann.post('/users/me/subscriptions/properties', { subscription_data: [change] })).status, 400, JSON.stringify(change));
});

test("subscription properties as Zulip's update_subscription_properties_backend: values first, then the channel, then the subscription", async () => {
  const send = (change: Record<string, unknown>) => ann.post('/users/me/subscriptions/properties', { subscription_data: [change] });
  // check_color takes three to six hex digits.
  assert.equal((await send({ stream_id: roomId, property: 'color', value: '#abc' })).status, 200);
  assert.equal((await ann.get('/users/me/subscriptions')).body.subscriptions.find((s: any) => s.stream_id === roomId).color, '#abc');
  // The property is checked before the channel.
  assert.equal((await send({ stream_id: 999999, property: 'font', value: 'bold' })).body.msg, 'Unknown subscription property: font');
  // A missing channel, or a private one the user may not read, is access_stream_by_id's 'Invalid channel ID'.
  assert.equal((await send({ stream_id: 999999, property: 'pin_to_top', value: true })).body.msg, 'Invalid channel ID');
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'owner-secret' }], invite_only: true });
  const secret = (await t.owner.get('/get_stream_id', { stream: 'owner-secret' })).body.stream_id;
  assert.equal((await send({ stream_id: secret, property: 'pin_to_top', value: true })).body.msg, 'Invalid channel ID');
  // A public channel the user is not in is theirs to join, but has no subscription to change.
  assert.equal((await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'owner-public', color: '#f0f' }] })).status, 200, 'subscribing takes check_color too');
  const open = (await t.owner.get('/get_stream_id', { stream: 'owner-public' })).body.stream_id;
  assert.equal((await send({ stream_id: open, property: 'pin_to_top', value: true })).body.msg, `Not subscribed to channel ID ${open}`);
});

test('mark a topic, a channel, then everything as read', async () => {
  // unread_msgs.count leaves out muted channels: start from an unmuted one.
  await ann.post('/users/me/subscriptions/properties', { subscription_data: [{ stream_id: roomId, property: 'is_muted', value: false }] });
  await sendToChannel(t.owner, 'room', 'a', 'unread');
  await sendToChannel(t.owner, 'room', 'b', 'unread');
  await sendToChannel(t.owner, 'other-room', 'c', 'unread');
  await t.owner.post('/messages', { type: 'direct', to: [ann.userId], content: 'dm' });
  const unread = async () => (await ann.post('/register', { fetch_event_types: ['message', 'update_message_flags'] })).body.unread_msgs.count;
  // And each channel's channel-created message, from when the owner subscribed Ann to it.
  assert.equal(await unread(), 6);
  const q = await openQueue(ann, ['update_message_flags']);
  assert.equal((await ann.post('/mark_topic_as_read', { stream_id: roomId, topic_name: 'A' })).status, 200);
  assert.equal(await unread(), 5);
  assert.equal((await ann.post('/mark_stream_as_read', { stream_id: roomId })).status, 200);
  assert.equal(await unread(), 3);
  const all = await ann.post('/mark_all_as_read');
  assert.equal(all.status, 200);
  assert.equal(all.body.complete, true);
  assert.equal(await unread(), 0);
  const evs = await queuedEvents(ann, q);
  // do_mark_all_as_read: no message ids, `all` instead; sent even when nothing is left unread.
  assert.deepEqual(evs.map((e: any) => [e.messages.length, e.all]), [[1, false], [2, false], [0, true]]);
  const q2 = await openQueue(ann, ['update_message_flags']);
  assert.equal((await ann.post('/mark_all_as_read')).status, 200);
  assert.deepEqual((await queuedEvents(ann, q2)).map((e: any) => [e.op, e.flag, e.messages, e.all]), [['add', 'read', [], true]]);
  assert.equal((await ann.post('/mark_stream_as_read', { stream_id: 999999 })).status, 400);
  assert.equal((await ann.post('/mark_topic_as_read', { stream_id: roomId })).body.code, 'REQUEST_VARIABLE_MISSING');
});

test("marking as read: a channel one cannot read is an invalid channel, a topic one never received is Zulip's 'No such topic'", async () => {
  const bob = await t.createUser({ name: 'Bob Outsider' });
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'hidden' }], principals: [t.owner.userId], invite_only: true });
  const hiddenId = (await t.owner.get('/get_stream_id', { stream: 'hidden' })).body.stream_id;
  await sendToChannel(t.owner, 'hidden', 'plans', 'secret');
  for (const [path, params] of [['/mark_stream_as_read', { stream_id: hiddenId }], ['/mark_topic_as_read', { stream_id: hiddenId, topic_name: 'plans' }]] as const) {
    const res = await bob.post(path, params);
    assert.deepEqual([res.status, res.body.msg], [400, 'Invalid channel ID'], path);
  }
  const none = await ann.post('/mark_topic_as_read', { stream_id: roomId, topic_name: 'never discussed' });
  assert.deepEqual([none.status, none.body.code, none.body.msg], [400, 'BAD_REQUEST', "No such topic 'never discussed'"]);
  // A public channel's topic bob never received: its messages are no rows of his.
  await sendToChannel(t.owner, 'room', 'public talk', 'hello');
  const notReceived = await bob.post('/mark_topic_as_read', { stream_id: roomId, topic_name: 'public talk' });
  assert.equal(notReceived.body.msg, "No such topic 'public talk'");
  assert.equal((await bob.post('/mark_stream_as_read', { stream_id: roomId })).status, 200, 'a public channel is readable');
  // "general chat" names the empty topic.
  const empty = await sendToChannel(t.owner, 'room', '', 'in the empty topic');
  assert.equal((await ann.post('/mark_topic_as_read', { stream_id: roomId, topic_name: 'general chat' })).status, 200);
  assert.ok((await ann.get(`/messages/${empty}`)).body.message.flags.includes('read'));
});

test("PATCH /users/me/subscriptions/{stream_id}, Zulip's update_subscriptions_property: one change, value a JSON boolean or text", async () => {
  const otherId = (await ann.get('/get_stream_id', { stream: 'other-room' })).body.stream_id;
  const q = await openQueue(ann, ['subscription']);
  assert.equal((await ann.patch(`/users/me/subscriptions/${otherId}`, { property: 'pin_to_top', value: 'true' })).status, 200);
  assert.equal((await ann.patch(`/users/me/subscriptions/${otherId}`, { property: 'color', value: '#c2c2c2' })).status, 200);
  assert.equal((await ann.patch(`/users/me/subscriptions/${otherId}`, { property: 'in_home_view', value: 'true' })).status, 200);
  const sub = (await ann.get('/users/me/subscriptions')).body.subscriptions.find((s: any) => s.stream_id === otherId);
  assert.deepEqual([sub.pin_to_top, sub.color, sub.is_muted], [true, '#c2c2c2', false]);
  assert.deepEqual(
    (await queuedEvents(ann, q)).map((e: any) => [e.property, e.value]),
    [['pin_to_top', true], ['color', '#c2c2c2'], ['in_home_view', true], ['is_muted', false]],
  );
  const refused = async (params: Record<string, string>, id = otherId) => {
    const res = await ann.patch(`/users/me/subscriptions/${id}`, params);
    return [res.status, res.body.msg];
  };
  assert.deepEqual(await refused({ property: 'is_muted', value: 'yes' }), [400, 'is_muted is not a boolean']);
  assert.deepEqual(await refused({ property: 'color', value: 'true' }), [400, 'color is not a valid hex color code']);
  assert.deepEqual(await refused({ property: 'font', value: 'bold' }), [400, 'Unknown subscription property: font']);
  assert.deepEqual(await refused({ property: 'pin_to_top', value: 'true' }, 999999), [400, 'Invalid channel ID']);
  assert.equal((await ann.patch(`/users/me/subscriptions/${otherId}`, { value: 'true' })).body.code, 'REQUEST_VARIABLE_MISSING');
});
