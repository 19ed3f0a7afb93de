// Message retention: the job deletes messages past their channel's retention period, and only those.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type Client, type TestServer } from './helpers.js';
import { runRetention } from '../src/actions/retention.js';
import { backdateMessage } from './beyond_api.js';

let t: TestServer;
let member: Client;
before(async () => {
  t = await startTestServer();
  member = await t.createUser({ name: 'Rex Reader' });
});
after(async () => {
  await t.close();
});

/** Moves a message this many days back in time. */
const age = (messageId: number, days: number) => backdateMessage(t, messageId, days * 86400);

test('expired messages in a channel with a retention period are deleted, with events', async () => {
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'short-memory' }, { name: 'forever' }], principals: [t.owner.userId, member.userId] });
  const shortId = (await t.owner.get('/get_stream_id', { stream: 'short-memory' })).body.stream_id;
  assert.equal((await t.owner.patch(`/streams/${shortId}`, { message_retention_days: '7' })).status, 200);
  // The change is told in the channel's events topic (Zulip's retention notice), after the channel-created message.
  const notices = (await t.owner.get('/messages', { anchor: 'newest', num_before: 1, num_after: 0, narrow: JSON.stringify([{ operator: 'channel', operand: shortId }]) })).body.messages;
  assert.match(notices[0].content, /changed the <a href="\/help\/message-retention-policy">message retention period<\/a>/);
  const notice = notices[0].id;
  const old = await t.owner.post('/messages', { type: 'stream', to: 'short-memory', topic: 't', content: 'old' });
  const fresh = await t.owner.post('/messages', { type: 'stream', to: 'short-memory', topic: 't', content: 'fresh' });
  const keep = await t.owner.post('/messages', { type: 'stream', to: 'forever', topic: 't', content: 'kept' });
  // The channel's first message, the Notification Bot's channel-created one, has expired too.
  const created = (await t.owner.get(`/streams/${shortId}`)).body.stream.first_message_id;
  assert.equal((await t.owner.get(`/messages/${created}`)).body.message.subject, 'channel events');
  await age(created, 9);
  await age(old.body.id, 8);
  await age(keep.body.id, 800);
  const reg = await member.post('/register', { event_types: ['delete_message'], fetch_event_types: ['message'], client_capabilities: { bulk_message_deletion: true } });
  assert.equal(await runRetention(t.server.services), 2);
  assert.equal((await member.get(`/messages/${created}`)).status, 400);
  assert.equal((await member.get(`/messages/${old.body.id}`)).status, 400);
  assert.equal((await member.get(`/messages/${fresh.body.id}`)).status, 200);
  assert.equal((await member.get(`/messages/${keep.body.id}`)).status, 200, 'the organization keeps messages forever by default');
  const evs = (await member.get('/events', { queue_id: reg.body.queue_id, last_event_id: -1, dont_block: true })).body.events;
  // One event per topic.
  assert.deepEqual(evs.map((e: any) => [e.type, e.message_ids]), [['delete_message', [created]], ['delete_message', [old.body.id]]]);
  assert.equal((await member.get(`/messages/${notice}`)).status, 200, 'the retention notice is younger than the period');
  // The oldest message left: the retention notice, older than `fresh`.
  assert.equal((await t.owner.get(`/streams/${shortId}`)).body.stream.first_message_id, notice);
  assert.equal(await runRetention(t.server.services), 0, 'nothing left to delete');
});
