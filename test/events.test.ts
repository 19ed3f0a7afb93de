// Event queues over HTTP: registering, polling, heartbeats, deleting, expiry.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './helpers.js';

let t: TestServer;
before(async () => {
  t = await startTestServer({ heartbeatSeconds: 1, queueIdleSeconds: 2 });
});
after(async () => {
  await t.close();
});

test('register returns a queue and the versions', async () => {
  const res = await t.owner.post('/register', { fetch_event_types: ['message'] });
  assert.equal(res.status, 200);
  assert.equal(typeof res.body.queue_id, 'string');
  assert.equal(res.body.last_event_id, -1);
  assert.equal(res.body.zulip_feature_level, 494);
  assert.equal(typeof res.body.zulip_version, 'string');
  assert.equal(res.body.max_message_id, -1, 'Zulip reports -1 before the first message');
  // Only the asked-for sections are present.
  assert.equal(res.body.realm_users, undefined);
  assert.equal(res.body.subscriptions, undefined);
});

test('register validates its JSON parameters', async () => {
  const bad = await t.owner.post('/register', { event_types: '{"not":"a list"}' });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.code, 'BAD_REQUEST');
  const notJson = await t.owner.post('/register', { fetch_event_types: '[message' });
  assert.equal(notJson.status, 400);
  assert.match(notJson.body.msg, /fetch_event_types/);
  const badNarrow = await t.owner.post('/register', { narrow: [['nonsense', 'x']] });
  assert.equal(badNarrow.status, 400);
});

test('unknown parameters are listed as ignored', async () => {
  const res = await t.owner.post('/register', { fetch_event_types: ['message'], frobnicate: 'yes' });
  assert.equal(res.status, 200);
  assert.deepEqual(res.body.ignored_parameters_unsupported, ['frobnicate']);
});

test('dont_block returns at once with no events', async () => {
  const reg = await t.owner.post('/register', { fetch_event_types: ['message'] });
  const res = await t.owner.get('/events', { queue_id: reg.body.queue_id, last_event_id: -1, dont_block: true });
  assert.equal(res.status, 200);
  assert.deepEqual(res.body.events, []);
});

test('an idle long-poll is answered with a heartbeat, acknowledged by last_event_id', async () => {
  const reg = await t.owner.post('/register', { fetch_event_types: ['message'] });
  const started = Date.now();
  const first = await t.owner.get('/events', { queue_id: reg.body.queue_id, last_event_id: -1 });
  assert.ok(Date.now() - started >= 900, 'the poll waited for the heartbeat interval');
  assert.equal(first.status, 200);
  assert.equal(first.body.events.length, 1);
  assert.equal(first.body.events[0].type, 'heartbeat');
  const id = first.body.events[0].id;
  assert.equal(id, 0);
  // Acknowledging the heartbeat drops it; the next poll waits for a fresh one.
  const second = await t.owner.get('/events', { queue_id: reg.body.queue_id, last_event_id: id });
  assert.equal(second.body.events.length, 1);
  assert.equal(second.body.events[0].id, id + 1);
});

test('a queue belongs to its user: others get BAD_EVENT_QUEUE_ID', async () => {
  const other = await t.createUser();
  const reg = await t.owner.post('/register', { fetch_event_types: ['message'] });
  const res = await other.get('/events', { queue_id: reg.body.queue_id, dont_block: true });
  assert.equal(res.status, 400);
  assert.equal(res.body.code, 'BAD_EVENT_QUEUE_ID');
  assert.equal(res.body.queue_id, reg.body.queue_id);
  const del = await other.delete('/events', { queue_id: reg.body.queue_id });
  assert.equal(del.body.code, 'BAD_EVENT_QUEUE_ID');
});

test('DELETE /events removes the queue; a second delete fails', async () => {
  const reg = await t.owner.post('/register', { fetch_event_types: ['message'] });
  const del = await t.owner.delete('/events', { queue_id: reg.body.queue_id });
  assert.equal(del.status, 200);
  assert.equal(del.body.result, 'success');
  const again = await t.owner.delete('/events', { queue_id: reg.body.queue_id });
  assert.equal(again.status, 400);
  assert.equal(again.body.code, 'BAD_EVENT_QUEUE_ID');
  assert.equal(again.body.queue_id, reg.body.queue_id);
  const poll = await t.owner.get('/events', { queue_id: reg.body.queue_id, dont_block: true });
  assert.equal(poll.body.code, 'BAD_EVENT_QUEUE_ID');
});

test('missing queue_id is REQUEST_VARIABLE_MISSING', async () => {
  const res = await t.owner.get('/events');
  assert.equal(res.status, 400);
  assert.equal(res.body.code, 'REQUEST_VARIABLE_MISSING');
  assert.equal(res.body.var_name, 'queue_id');
});

test('a queue nobody polls expires', async () => {
  const reg = await t.owner.post('/register', { fetch_event_types: ['message'] });
  await new Promise((r) => setTimeout(r, 3500));
  const res = await t.owner.get('/events', { queue_id: reg.body.queue_id, dont_block: true });
  assert.equal(res.status, 400);
  assert.equal(res.body.code, 'BAD_EVENT_QUEUE_ID');
});

test('a newer poll on the same queue releases the parked one', async () => {
  const reg = await t.owner.post('/register', { fetch_event_types: ['message'] });
  const parked = t.owner.get('/events', { queue_id: reg.body.queue_id, last_event_id: -1 });
  await new Promise((r) => setTimeout(r, 100));
  const second = t.owner.get('/events', { queue_id: reg.body.queue_id, last_event_id: -1 });
  const first = await parked;
  assert.equal(first.status, 200);
  assert.deepEqual(first.body.events, []);
  const next = await second;
  assert.equal(next.body.events[0].type, 'heartbeat');
});

test('a parked long-poll wakes when a message arrives, with event types filtered', async () => {
  const reader = await t.createUser({ name: 'Long Poller' });
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'wakeup' }], principals: [t.owner.userId, reader.userId] });
  // Made now: a channel's creation brings a message into it.
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'wakeup-2' }] });
  const reg = await reader.post('/register', { event_types: ['message'], fetch_event_types: ['message'], apply_markdown: true });
  const started = Date.now();
  const parked = reader.get('/events', { queue_id: reg.body.queue_id, last_event_id: -1 });
  await new Promise((r) => setTimeout(r, 100));
  // A subscription change is not a message: the queue was registered for messages only.
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'wakeup-2' }], principals: [reader.userId], send_new_subscription_messages: false });
  const sent = await t.owner.post('/messages', { type: 'stream', to: 'wakeup', topic: 'now', content: 'wake up' });
  const res = await parked;
  assert.ok(Date.now() - started < 900, 'answered before the heartbeat');
  assert.equal(res.body.events.length, 1);
  assert.equal(res.body.events[0].type, 'message');
  assert.equal(res.body.events[0].message.id, sent.body.id);
  assert.equal(res.body.events[0].message.content, '<p>wake up</p>');
});

test('a queue registered with a narrow receives only matching messages', async () => {
  const reader = await t.createUser({ name: 'Narrow Reader' });
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'narrow-a' }, { name: 'narrow-b' }], principals: [t.owner.userId, reader.userId] });
  const reg = await reader.post('/register', { event_types: ['message'], fetch_event_types: ['message'], narrow: [['stream', 'narrow-a']] });
  assert.equal(reg.status, 200);
  await t.owner.post('/messages', { type: 'stream', to: 'narrow-b', topic: 't', content: 'not this' });
  const wanted = await t.owner.post('/messages', { type: 'stream', to: 'narrow-a', topic: 't', content: 'this one' });
  const res = await reader.get('/events', { queue_id: reg.body.queue_id, last_event_id: -1, dont_block: true });
  assert.deepEqual(res.body.events.map((e: any) => e.message.id), [wanted.body.id]);
});
