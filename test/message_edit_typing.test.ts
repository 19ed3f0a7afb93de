// Message-edit typing notifications: who may send them, who receives them, the event's shape.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openQueue, queuedEvents, startTestServer, type Client, type TestServer } from './helpers.js';
import { backdateMessage } from './beyond_api.js';

let t: TestServer;
let ann: Client;
let bob: Client;
let cat: Client;
let streamId: number;
before(async () => {
  t = await startTestServer();
  ann = await t.createUser({ name: 'Ann Typist' });
  bob = await t.createUser({ name: 'Bob Watcher' });
  cat = await t.createUser({ name: 'Cat Outsider' });
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'edit-typing' }], principals: [ann.userId, bob.userId] });
  streamId = (await ann.get('/get_stream_id', { stream: 'edit-typing' })).body.stream_id;
});
after(async () => {
  await t.close();
});

test('channel message: typing_edit_message start/stop to the subscribers, with the channel and topic', async () => {
  const m = await ann.post('/messages', { type: 'stream', to: 'edit-typing', topic: 'plans', content: 'draft' });
  const qb = await openQueue(bob, ['typing_edit_message']);
  const qc = await openQueue(cat, ['typing_edit_message']);
  assert.equal((await ann.post(`/messages/${m.body.id}/typing`, { op: 'start' })).status, 200);
  assert.equal((await ann.post(`/messages/${m.body.id}/typing`, { op: 'stop' })).status, 200);
  const evs = await queuedEvents(bob, qb);
  assert.deepEqual(
    evs.map(({ id: _id, ...e }: any) => e),
    [
      { type: 'typing_edit_message', op: 'start', sender_id: ann.userId, message_id: m.body.id, recipient: { type: 'channel', channel_id: streamId, topic: 'plans' } },
      { type: 'typing_edit_message', op: 'stop', sender_id: ann.userId, message_id: m.body.id, recipient: { type: 'channel', channel_id: streamId, topic: 'plans' } },
    ],
  );
  assert.deepEqual(await queuedEvents(cat, qc), [], 'non-subscribers are not told');
});

test('direct message: every participant is listed and told', async () => {
  const m = await ann.post('/messages', { type: 'direct', to: [bob.userId], content: 'hi' });
  const qb = await openQueue(bob, ['typing_edit_message']);
  const qc = await openQueue(cat, ['typing_edit_message']);
  assert.equal((await ann.post(`/messages/${m.body.id}/typing`, { op: 'start' })).status, 200);
  const [ev] = await queuedEvents(bob, qb);
  assert.equal(ev.type, 'typing_edit_message');
  assert.deepEqual(ev.recipient, { type: 'direct', user_ids: [ann.userId, bob.userId].sort((a, b) => a - b) });
  assert.equal(ev.message_id, m.body.id);
  assert.deepEqual(await queuedEvents(cat, qc), []);
});

test('only someone who could edit the content may send it; bad input is refused', async () => {
  const m = await ann.post('/messages', { type: 'stream', to: 'edit-typing', topic: 'plans', content: 'mine' });
  const notMine = await bob.post(`/messages/${m.body.id}/typing`, { op: 'start' });
  assert.equal(notMine.status, 400);
  assert.equal(notMine.body.msg, "You don't have permission to edit this message");
  const bad = await ann.post(`/messages/${m.body.id}/typing`, { op: 'begin' });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.result, 'error');
  const missing = await ann.post(`/messages/${m.body.id}/typing`, {});
  assert.equal(missing.status, 400);
  assert.equal(missing.body.code, 'REQUEST_VARIABLE_MISSING');
  const gone = await ann.post('/messages/99999999/typing', { op: 'start' });
  assert.equal(gone.status, 400);
  assert.equal(gone.body.msg, 'Invalid message(s)');
  // A private channel's message is as missing as a nonexistent one to an outsider.
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'edit-typing-secret' }], invite_only: true });
  const secret = await t.owner.post('/messages', { type: 'stream', to: 'edit-typing-secret', topic: 'x', content: 'hidden' });
  const hidden = await cat.post(`/messages/${secret.body.id}/typing`, { op: 'start' });
  assert.equal(hidden.status, 400);
  assert.equal(hidden.body.msg, 'Invalid message(s)');
});

test('receivers who turned typing notifications off are skipped; senders who did are refused', async () => {
  const m = await ann.post('/messages', { type: 'stream', to: 'edit-typing', topic: 'quiet', content: 'x' });
  assert.equal((await bob.patch('/settings', { receives_typing_notifications: false })).status, 200);
  const qb = await openQueue(bob, ['typing_edit_message']);
  assert.equal((await ann.post(`/messages/${m.body.id}/typing`, { op: 'start' })).status, 200);
  assert.deepEqual(await queuedEvents(bob, qb), []);
  assert.equal((await bob.patch('/settings', { receives_typing_notifications: true })).status, 200);
  assert.equal((await ann.patch('/settings', { send_stream_typing_notifications: false })).status, 200);
  const off = await ann.post(`/messages/${m.body.id}/typing`, { op: 'start' });
  assert.equal(off.status, 400);
  assert.equal(off.body.msg, 'User has disabled typing notifications for channel messages');
  assert.equal((await ann.patch('/settings', { send_stream_typing_notifications: true })).status, 200);
});

test('the edit rules apply: editing turned off, and the time limit (edits get a grace period, typing does not)', async () => {
  const m = await ann.post('/messages', { type: 'stream', to: 'edit-typing', topic: 'limits', content: 'x' });
  await backdateMessage(t, m.body.id, 70);
  assert.equal((await t.owner.patch('/realm', { message_content_edit_limit_seconds: 60 })).status, 200);
  const late = await ann.post(`/messages/${m.body.id}/typing`, { op: 'start' });
  assert.deepEqual([late.status, late.body.msg], [400, 'The time limit for editing this message has passed']);
  assert.equal((await ann.patch(`/messages/${m.body.id}`, { content: 'within the grace period' })).status, 200);
  assert.equal((await t.owner.patch('/realm', { allow_message_editing: false })).status, 200);
  const off = await ann.post(`/messages/${m.body.id}/typing`, { op: 'start' });
  assert.deepEqual([off.status, off.body.msg], [400, 'Your organization has turned off message editing']);
  const edit = await ann.patch(`/messages/${m.body.id}`, { content: 'nope' });
  assert.deepEqual([edit.status, edit.body.msg], [400, 'Your organization has turned off message editing']);
  assert.equal((await t.owner.patch('/realm', { allow_message_editing: true, message_content_edit_limit_seconds: 'unlimited' })).status, 200);
});
