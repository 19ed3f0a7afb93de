// Deleting a topic: administrators only, every message (any case of the name), batches,
// delete_message events, visibility policies reset, protected history respected.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openQueue, queuedEvents, sendToChannel, startTestServer, type Client, type TestServer } from './helpers.js';
import { deleteTopic } from '../src/actions/topic_delete.js';

let t: TestServer;
let admin: Client;
let ann: Client;
let bob: Client;
let streamId: number;
before(async () => {
  t = await startTestServer();
  admin = await t.createUser({ role: 'administrator', name: 'Ada Admin' });
  ann = await t.createUser({ name: 'Ann Member' });
  bob = await t.createUser({ name: 'Bob Member' });
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'cleanup' }], principals: [admin.userId, ann.userId, bob.userId] });
  streamId = (await ann.get('/get_stream_id', { stream: 'cleanup' })).body.stream_id;
});
after(async () => {
  await t.close();
});

test('an administrator deletes every message of the topic; readers get delete_message; other topics stay', async () => {
  const ids = [await sendToChannel(ann, 'cleanup', 'doomed', 'a'), await sendToChannel(bob, 'cleanup', 'DOOMED', 'b'), await sendToChannel(ann, 'cleanup', 'doomed', 'c')];
  const kept = await sendToChannel(ann, 'cleanup', 'kept', 'stays');
  assert.equal((await ann.post('/user_topics', { stream_id: streamId, topic: 'doomed', visibility_policy: 3 })).status, 200);
  const q = await openQueue(bob, ['delete_message']);
  const qa = await openQueue(ann, ['user_topic']);
  const qs = await openQueue(bob, ['stream']);
  const res = await admin.post(`/streams/${streamId}/delete_topic`, { topic_name: 'Doomed' });
  assert.equal(res.status, 200);
  assert.equal(res.body.complete, true);
  const evs = await queuedEvents(bob, q);
  assert.equal(evs.length, 1);
  assert.deepEqual(evs[0].message_ids, ids);
  assert.equal(evs[0].message_type, 'stream');
  assert.equal(evs[0].stream_id, streamId);
  for (const id of ids) assert.equal((await bob.get(`/messages/${id}`)).status, 400);
  assert.equal((await bob.get(`/messages/${kept}`)).status, 200);
  const topics = (await bob.get(`/users/me/${streamId}/topics`)).body.topics.map((x: any) => x.name);
  assert.deepEqual(topics, ['kept', 'channel events']);
  // The channel's oldest message, the Notification Bot's channel-created one, stays; when its topic
  // goes too, the oldest message left is the first.
  assert.deepEqual(await queuedEvents(bob, qs), []);
  assert.equal((await admin.post(`/streams/${streamId}/delete_topic`, { topic_name: 'channel events' })).status, 200);
  const streamEvents = await queuedEvents(bob, qs);
  assert.deepEqual(
    streamEvents.map((e: any) => [e.op, e.stream_id, e.property, e.value]),
    [['update', streamId, 'first_message_id', kept]],
  );
  const [ut] = await queuedEvents(ann, qa);
  assert.equal(ut.type, 'user_topic');
  assert.equal(ut.visibility_policy, 0);
  const reg = await ann.post('/register', { fetch_event_types: ['user_topic'] });
  assert.deepEqual(reg.body.user_topics.map((u: any) => u.topic_name), ['kept'], 'the deleted topic has no policy left');
  // Deleting a topic with nothing in it still succeeds.
  const again = await admin.post(`/streams/${streamId}/delete_topic`, { topic_name: 'doomed' });
  assert.deepEqual([again.status, again.body.complete], [200, true]);
});

test('members may not; bad channels and missing names are refused', async () => {
  await sendToChannel(ann, 'cleanup', 'precious', 'x');
  const denied = await ann.post(`/streams/${streamId}/delete_topic`, { topic_name: 'precious' });
  assert.equal(denied.status, 400);
  assert.equal(denied.body.msg, 'Must be an organization administrator');
  assert.equal(denied.body.code, 'UNAUTHORIZED_PRINCIPAL');
  const missing = await admin.post('/streams/999999/delete_topic', { topic_name: 'precious' });
  assert.equal(missing.status, 400);
  assert.equal(missing.body.msg, 'Invalid channel ID');
  const noName = await admin.post(`/streams/${streamId}/delete_topic`, {});
  assert.equal(noName.status, 400);
  assert.equal(noName.body.code, 'REQUEST_VARIABLE_MISSING');
  // A private channel the administrator is not in looks missing.
  await ann.post('/users/me/subscriptions', { subscriptions: [{ name: 'cleanup-private' }], invite_only: true });
  const priv = (await ann.get('/get_stream_id', { stream: 'cleanup-private' })).body.stream_id;
  await sendToChannel(ann, 'cleanup-private', 'secret', 'x');
  const hidden = await admin.post(`/streams/${priv}/delete_topic`, { topic_name: 'secret' });
  assert.equal(hidden.status, 400);
  assert.equal(hidden.body.msg, 'Invalid channel ID');
  assert.deepEqual((await ann.get(`/users/me/${priv}/topics`)).body.topics.map((x: any) => x.name), ['secret', 'channel events']);
  // Nor can topics of an archived channel be deleted.
  assert.equal((await t.owner.delete(`/streams/${priv}`)).status, 200);
  await ann.post('/users/me/subscriptions', { subscriptions: [{ name: 'cleanup-archived' }], principals: [admin.userId] });
  const archived = (await ann.get('/get_stream_id', { stream: 'cleanup-archived' })).body.stream_id;
  await sendToChannel(ann, 'cleanup-archived', 'old', 'x');
  assert.equal((await t.owner.delete(`/streams/${archived}`)).status, 200);
  const gone = await admin.post(`/streams/${archived}/delete_topic`, { topic_name: 'old' });
  assert.deepEqual([gone.status, gone.body.msg], [400, 'Invalid channel ID']);
});

test('"general chat" names the empty topic', async () => {
  const m = await sendToChannel(ann, 'cleanup', '', 'no topic');
  const res = await admin.post(`/streams/${streamId}/delete_topic`, { topic_name: 'general chat' });
  assert.equal(res.status, 200);
  assert.equal((await ann.get(`/messages/${m}`)).status, 400);
});

test('protected history: only the messages the administrator received are deleted', async () => {
  await ann.post('/users/me/subscriptions', { subscriptions: [{ name: 'cleanup-protected' }], invite_only: true, history_public_to_subscribers: false, principals: [ann.userId] });
  const early = await sendToChannel(ann, 'cleanup-protected', 'mixed', 'before the admin joined');
  await ann.post('/users/me/subscriptions', { subscriptions: [{ name: 'cleanup-protected' }], principals: [admin.userId] });
  const late = await sendToChannel(ann, 'cleanup-protected', 'mixed', 'after');
  const id = (await ann.get('/get_stream_id', { stream: 'cleanup-protected' })).body.stream_id;
  const res = await admin.post(`/streams/${id}/delete_topic`, { topic_name: 'mixed' });
  assert.equal(res.status, 200);
  assert.equal((await ann.get(`/messages/${late}`)).status, 400);
  assert.equal((await ann.get(`/messages/${early}`)).status, 200);
});

test('a request that runs out of time reports complete: false; repeating it finishes', async () => {
  for (let i = 0; i < 5; i++) await sendToChannel(ann, 'cleanup', 'big', `m${i}`);
  const services = t.server.services;
  const realm = (await services.cache.realm(t.realmId))!;
  const adminUser = (await services.cache.user(t.realmId, admin.userId))!;
  assert.deepEqual(await deleteTopic(services, adminUser, realm, streamId, 'big', { budgetMs: 0, batchSize: 2 }), { complete: false });
  const left = (await ann.get('/messages', { anchor: 'newest', num_before: 10, num_after: 0, narrow: [{ operator: 'channel', operand: streamId }, { operator: 'topic', operand: 'big' }] })).body.messages;
  assert.deepEqual(left.map((m: any) => m.content), ['<p>m0</p>', '<p>m1</p>', '<p>m2</p>'], 'the newest go first');
  const res = await admin.post(`/streams/${streamId}/delete_topic`, { topic_name: 'big' });
  assert.deepEqual([res.status, res.body.complete], [200, true]);
});

test("a topic's deletion is told as Zulip's do_delete_messages tells it: subscribers who joined later, and the administrator", async () => {
  const late = await t.createUser({ name: 'Lee Latecomer' });
  const ids = [await sendToChannel(ann, 'cleanup', 'bygone', 'x'), await sendToChannel(ann, 'cleanup', 'bygone', 'y')];
  assert.equal((await late.post('/users/me/subscriptions', { subscriptions: [{ name: 'cleanup' }] })).status, 200);
  const ql = await openQueue(late, ['delete_message']);
  const qo = await openQueue(t.owner, ['delete_message']);
  assert.equal((await t.owner.post(`/streams/${streamId}/delete_topic`, { topic_name: 'bygone' })).status, 200);
  for (const [c, q] of [[late, ql], [t.owner, qo]] as const) {
    const evs = await queuedEvents(c, q);
    assert.deepEqual(evs.map((e: any) => e.message_ids), [ids], 'told once, of both');
  }
});
