// Scheduled messages over HTTP: scheduling, listing, every edit rule, deleting, delivery at the
// scheduled time (exactly once, even with a second server process on the same database), failure.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestServer, type Client, type TestServer, openQueue, queuedEvents } from './helpers.js';

let t: TestServer;
let ann: Client;
let bob: Client;
let generalId: number;
before(async () => {
  t = await startTestServer();
  ann = await t.createUser({ name: 'Ann Scheduler' });
  bob = await t.createUser({ name: 'Bob Receiver' });
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'general' }], principals: [t.owner.userId, ann.userId, bob.userId] });
  generalId = (await ann.get('/get_stream_id', { stream: 'general' })).body.stream_id;
});
after(async () => {
  await t.close();
});

const inSeconds = (s: number) => Math.floor(Date.now() / 1000) + s;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));


test('schedule, list, and hear of it on other clients', async () => {
  const q = await openQueue(ann, ['scheduled_messages']);
  const res = await ann.post('/scheduled_messages', { type: 'stream', to: generalId, topic: 'later', content: 'see you **later**', scheduled_delivery_timestamp: inSeconds(3600) });
  assert.equal(res.status, 200);
  const id = res.body.scheduled_message_id;
  const list = await ann.get('/scheduled_messages');
  const mine = list.body.scheduled_messages.find((m: any) => m.scheduled_message_id === id);
  assert.deepEqual(
    { type: mine.type, to: mine.to, topic: mine.topic, content: mine.content, failed: mine.failed },
    { type: 'stream', to: generalId, topic: 'later', content: 'see you **later**', failed: false },
  );
  assert.equal(mine.rendered_content, '<p>see you <strong>later</strong></p>');
  const [add] = await queuedEvents(ann, q);
  assert.equal(add.type, 'scheduled_messages');
  assert.equal(add.op, 'add');
  assert.equal(add.scheduled_messages[0].scheduled_message_id, id);
  assert.deepEqual((await bob.get('/scheduled_messages')).body.scheduled_messages, [], 'private to the sender');
  const dm = await ann.post('/scheduled_messages', { type: 'direct', to: [bob.userId], content: 'dm later', scheduled_delivery_timestamp: inSeconds(3600) });
  assert.equal(dm.status, 200);
  const state = await ann.post('/register', { fetch_event_types: ['scheduled_messages'] });
  assert.equal(state.body.scheduled_messages.length, 2);
});

test('scheduling checks the message as a send would', async () => {
  const past = await ann.post('/scheduled_messages', { type: 'stream', to: generalId, topic: 't', content: 'x', scheduled_delivery_timestamp: inSeconds(-60) });
  assert.equal(past.status, 400);
  const noChannel = await ann.post('/scheduled_messages', { type: 'stream', to: 999999, topic: 't', content: 'x', scheduled_delivery_timestamp: inSeconds(60) });
  assert.equal(noChannel.body.code, 'STREAM_DOES_NOT_EXIST');
  assert.equal(noChannel.body.stream_id, 999999);
  const badUser = await ann.post('/scheduled_messages', { type: 'direct', to: [999999], content: 'x', scheduled_delivery_timestamp: inSeconds(60) });
  assert.equal(badUser.status, 400);
  assert.equal(badUser.body.msg, 'Invalid user ID 999999');
  const empty = await ann.post('/scheduled_messages', { type: 'stream', to: generalId, topic: 't', content: ' ', scheduled_delivery_timestamp: inSeconds(60) });
  assert.equal(empty.status, 400);
  const noTime = await ann.post('/scheduled_messages', { type: 'stream', to: generalId, topic: 't', content: 'x' });
  assert.equal(noTime.body.code, 'REQUEST_VARIABLE_MISSING');
});

test("`to` as Zulip's extract_stream_id and extract_direct_message_recipient_ids read it: one channel id, a list of user ids", async () => {
  const when = inSeconds(3600);
  const refused = async (params: Record<string, unknown>) => {
    const res = await ann.post('/scheduled_messages', { content: 'x', scheduled_delivery_timestamp: when, ...params });
    return [res.status, res.body.msg];
  };
  assert.deepEqual(await refused({ type: 'stream', to: [generalId], topic: 't' }), [400, 'Invalid data type for channel ID']);
  assert.deepEqual(await refused({ type: 'direct', to: bob.userId }), [400, 'Invalid data type for recipients']);
  // The same on an edit, with the scheduled message's own type when none is given.
  const dm = (await ann.post('/scheduled_messages', { type: 'direct', to: [bob.userId, bob.userId], content: 'x', scheduled_delivery_timestamp: when })).body.scheduled_message_id;
  const edit = await ann.patch(`/scheduled_messages/${dm}`, { to: bob.userId });
  assert.deepEqual([edit.status, edit.body.msg], [400, 'Invalid data type for recipients']);
  const toChannel = await ann.patch(`/scheduled_messages/${dm}`, { type: 'stream', to: [generalId], topic: 't' });
  assert.deepEqual([toChannel.status, toChannel.body.msg], [400, 'Invalid data type for channel ID']);
  const listed = (await ann.get('/scheduled_messages')).body.scheduled_messages.find((m: any) => m.scheduled_message_id === dm);
  assert.deepEqual(listed.to, [bob.userId]);
  assert.equal((await ann.delete(`/scheduled_messages/${dm}`)).status, 200);
});

test('edit rules: to with a new type, topic for a channel, unknown ids', async () => {
  const created = await ann.post('/scheduled_messages', { type: 'direct', to: [bob.userId], content: 'v1', scheduled_delivery_timestamp: inSeconds(3600) });
  const id = created.body.scheduled_message_id;
  const q = await openQueue(ann, ['scheduled_messages']);
  const noTo = await ann.patch(`/scheduled_messages/${id}`, { type: 'stream', topic: 'x' });
  assert.equal(noTo.status, 400);
  const noTopic = await ann.patch(`/scheduled_messages/${id}`, { type: 'channel', to: generalId });
  assert.equal(noTopic.status, 400);
  // As in Zulip, these hold whether or not the type changes, and before the message is looked up.
  const sameTypeNoTopic = await ann.patch(`/scheduled_messages/${id}`, { type: 'direct', to: [bob.userId], content: 'v1' });
  assert.equal(sameTypeNoTopic.status, 200, 'a direct message needs no topic');
  for (const [edit, msg] of [
    [{ type: 'direct' }, 'Recipient required when updating type of scheduled message.'],
    [{ type: 'stream', to: generalId }, 'Topic required when updating scheduled message type to channel.'],
  ] as const) {
    for (const target of [id, 999999]) {
      const res = await ann.patch(`/scheduled_messages/${target}`, edit);
      assert.deepEqual([res.status, res.body.msg], [400, msg], `${JSON.stringify(edit)} on ${target}`);
    }
  }
  const ok = await ann.patch(`/scheduled_messages/${id}`, { type: 'channel', to: generalId, topic: 'moved', content: 'v2' });
  assert.equal(ok.status, 200);
  const contentOnly = await ann.patch(`/scheduled_messages/${id}`, { content: 'v3' });
  assert.equal(contentOnly.status, 200);
  const badChannel = await ann.patch(`/scheduled_messages/${id}`, { to: 999999 });
  assert.equal(badChannel.body.code, 'STREAM_DOES_NOT_EXIST');
  assert.equal(badChannel.body.stream_id, 999999);
  const past = await ann.patch(`/scheduled_messages/${id}`, { scheduled_delivery_timestamp: inSeconds(-5) });
  assert.equal(past.status, 400);
  const list = (await ann.get('/scheduled_messages')).body.scheduled_messages.find((m: any) => m.scheduled_message_id === id);
  assert.deepEqual([list.type, list.to, list.topic, list.content], ['stream', generalId, 'moved', 'v3']);
  const evs = await queuedEvents(ann, q);
  assert.deepEqual(evs.map((e) => e.op), ['update', 'update', 'update']);
  const unknown = await ann.patch('/scheduled_messages/999999', { content: 'x' });
  assert.equal(unknown.status, 404);
  assert.equal(unknown.body.code, 'BAD_REQUEST');
  // An edit naming no field: Zulip's refusal, and nothing changes or is announced.
  const nothing = await ann.patch(`/scheduled_messages/${id}`, {});
  assert.deepEqual([nothing.status, nothing.body], [400, { result: 'error', code: 'BAD_REQUEST', msg: 'Nothing to change' }]);
  assert.equal((await queuedEvents(ann, q)).length, 3);
  const notMine = await bob.patch(`/scheduled_messages/${id}`, { content: 'x' });
  assert.equal(notMine.status, 404);
  const del = await ann.delete(`/scheduled_messages/${id}`);
  assert.equal(del.status, 200);
  const again = await ann.delete(`/scheduled_messages/${id}`);
  assert.equal(again.status, 404);
});

test('delivery at the scheduled time: the message is sent once and leaves the list', async () => {
  const q = await openQueue(ann, ['scheduled_messages', 'message']);
  const res = await ann.post('/scheduled_messages', { type: 'stream', to: generalId, topic: 'timed', content: 'right on time', scheduled_delivery_timestamp: inSeconds(2) });
  assert.equal(res.status, 200);
  let sent: any[] = [];
  for (let i = 0; i < 40 && sent.length === 0; i++) {
    await sleep(250);
    sent = (await bob.get('/messages', { anchor: 'newest', num_before: 5, num_after: 0, narrow: [{ operator: 'topic', operand: 'timed' }] })).body.messages;
  }
  assert.equal(sent.length, 1);
  assert.equal(sent[0].sender_id, ann.userId);
  const list = (await ann.get('/scheduled_messages')).body.scheduled_messages;
  assert.ok(!list.some((m: any) => m.scheduled_message_id === res.body.scheduled_message_id));
  const evs = await queuedEvents(ann, q);
  assert.ok(evs.some((e) => e.type === 'scheduled_messages' && e.op === 'remove' && e.scheduled_message_id === res.body.scheduled_message_id));
  assert.ok(evs.some((e) => e.type === 'message' && e.message.id === sent[0].id));
  // edit_scheduled_message: a message already sent is found, and refused; the new time is checked first.
  const late = await ann.patch(`/scheduled_messages/${res.body.scheduled_message_id}`, { content: 'too late' });
  assert.deepEqual([late.status, late.body.msg], [400, 'Scheduled message was already sent']);
  const past = await ann.patch('/scheduled_messages/999999', { scheduled_delivery_timestamp: inSeconds(-60) });
  assert.deepEqual([past.status, past.body.msg], [400, 'Scheduled delivery time must be in the future.']);
  // delete_scheduled_message: access_scheduled_message finds it even once sent, and deletes it.
  const q2 = await openQueue(ann, ['scheduled_messages']);
  const gone = await ann.delete(`/scheduled_messages/${res.body.scheduled_message_id}`);
  assert.deepEqual([gone.status, gone.body.result], [200, 'success']);
  assert.deepEqual((await queuedEvents(ann, q2)).map((e) => [e.op, e.scheduled_message_id]), [['remove', res.body.scheduled_message_id]]);
  assert.equal((await ann.delete(`/scheduled_messages/${res.body.scheduled_message_id}`)).status, 404);
  assert.equal((await bob.get('/messages', { anchor: 'newest', num_before: 5, num_after: 0, narrow: [{ operator: 'topic', operand: 'timed' }] })).body.messages.length, 1, 'the sent message stays');
});

test('a message that can no longer be sent is marked failed; an edit must move its time', async () => {
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'closing' }], principals: [ann.userId] });
  const closingId = (await ann.get('/get_stream_id', { stream: 'closing' })).body.stream_id;
  const res = await ann.post('/scheduled_messages', { type: 'stream', to: closingId, topic: 't', content: 'too late', scheduled_delivery_timestamp: inSeconds(2) });
  const id = res.body.scheduled_message_id;
  // The channel is archived before the time comes.
  assert.equal((await t.owner.delete(`/streams/${closingId}`)).status, 200);
  let entry: any;
  for (let i = 0; i < 40; i++) {
    await sleep(250);
    entry = (await ann.get('/scheduled_messages')).body.scheduled_messages.find((m: any) => m.scheduled_message_id === id);
    if (entry?.failed) break;
  }
  assert.equal(entry.failed, true);
  const noTime = await ann.patch(`/scheduled_messages/${id}`, { to: generalId });
  assert.deepEqual([noTime.status, noTime.body.msg], [400, 'Scheduled delivery time must be in the future.'], "Zulip's text");
  const moved = await ann.patch(`/scheduled_messages/${id}`, { to: generalId, scheduled_delivery_timestamp: inSeconds(3600) });
  assert.equal(moved.status, 200);
  entry = (await ann.get('/scheduled_messages')).body.scheduled_messages.find((m: any) => m.scheduled_message_id === id);
  assert.equal(entry.failed, false);
});

test('two server processes on one database deliver each message exactly once', async () => {
  const url = t.databaseUrl;
  const bin = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'confab.js');
  const second: ChildProcess = spawn(process.execPath, [bin, 'serve'], {
    env: { ...process.env, CONFAB_DATABASE_URL: url, CONFAB_PORT: '0', CONFAB_HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    await new Promise<void>((resolve, reject) => {
      let out = '';
      second.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('listening')) resolve();
      });
      second.on('exit', (code) => reject(new Error(`second server exited ${code}: ${out}`)));
    });
    const due = inSeconds(2);
    const ids: number[] = [];
    for (let i = 0; i < 10; i++) {
      const r = await ann.post('/scheduled_messages', { type: 'stream', to: generalId, topic: 'race', content: `race ${i}`, scheduled_delivery_timestamp: due });
      ids.push(r.body.scheduled_message_id);
    }
    let sent: any[] = [];
    for (let i = 0; i < 40; i++) {
      await sleep(300);
      sent = (await bob.get('/messages', { anchor: 'newest', num_before: 50, num_after: 0, narrow: [{ operator: 'topic', operand: 'race' }] })).body.messages;
      const pending = (await ann.get('/scheduled_messages')).body.scheduled_messages.filter((m: any) => ids.includes(m.scheduled_message_id));
      if (pending.length === 0 && sent.length >= 10) break;
    }
    await sleep(1500);
    sent = (await bob.get('/messages', { anchor: 'newest', num_before: 50, num_after: 0, narrow: [{ operator: 'topic', operand: 'race' }] })).body.messages;
    assert.deepEqual(sent.map((m: any) => m.content).sort(), ids.map((_, i) => `<p>race ${i}</p>`).sort());
  } finally {
    const exited = new Promise((r) => second.once('exit', r));
    second.kill('SIGTERM');
    await exited;
  }
});

