// Reminders: creating, listing, deleting, events, /register, and delivery by the Notification Bot.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openQueue, queuedEvents, startTestServer, type Client, type TestServer } from './helpers.js';

let t: TestServer;
let ann: Client;
let bob: Client;
let streamId: number;
const inSeconds = (s: number) => Math.floor(Date.now() / 1000) + s;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

before(async () => {
  t = await startTestServer();
  ann = await t.createUser({ name: 'Ann Forgetful' });
  bob = await t.createUser({ name: 'Bob Writer' });
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'notes' }], principals: [ann.userId, bob.userId] });
  streamId = (await ann.get('/get_stream_id', { stream: 'notes' })).body.stream_id;
});
after(async () => {
  await t.close();
});

test('creating a reminder: the reminder object, its event, GET /reminders and /register', async () => {
  const m = (await bob.post('/messages', { type: 'stream', to: 'notes', topic: 'deadline', content: 'Report due **Friday**' })).body.id;
  const q = await openQueue(ann, ['reminders']);
  const when = inSeconds(3600);
  const res = await ann.post('/reminders', { message_id: m, scheduled_delivery_timestamp: when, note: 'start early' });
  assert.equal(res.status, 200);
  assert.equal(typeof res.body.reminder_id, 'number');
  const [ev] = await queuedEvents(ann, q);
  assert.equal(ev.type, 'reminders');
  assert.equal(ev.op, 'add');
  const r = ev.reminders[0];
  assert.equal(r.reminder_id, res.body.reminder_id);
  assert.equal(r.type, 'private');
  assert.deepEqual(r.to, [ann.userId]);
  assert.equal(r.scheduled_delivery_timestamp, when);
  assert.equal(r.failed, false);
  assert.equal(r.reminder_target_message_id, m);
  assert.equal(
    r.content,
    `You requested a reminder for #**notes>deadline@${m}**. Note:\n > start early\n\n@_**Bob Writer|${bob.userId}** [said](${t.url}/#narrow/channel/${streamId}-notes/topic/deadline/near/${m}):\n\`\`\`quote\nReport due **Friday**\n\`\`\``,
  );
  assert.match(r.rendered_content, /<blockquote>\n<p>Report due <strong>Friday<\/strong><\/p>\n<\/blockquote>$/);
  assert.match(r.rendered_content, /class="message-link"/);
  const list = await ann.get('/reminders');
  assert.deepEqual(list.body.reminders, [r]);
  // /register lists them in the scheduled-message shape its API description gives them.
  const reg = await ann.post('/register', { fetch_event_types: ['reminders'] });
  assert.deepEqual(reg.body.reminders, [
    { scheduled_message_id: r.reminder_id, type: 'private', to: r.to, content: r.content, rendered_content: r.rendered_content, scheduled_delivery_timestamp: r.scheduled_delivery_timestamp, failed: false },
  ]);
  // Reminders are not scheduled messages, and other users do not see them.
  assert.deepEqual((await ann.get('/scheduled_messages')).body.scheduled_messages, []);
  assert.deepEqual((await bob.get('/reminders')).body.reminders, []);
});

test('reminders about direct messages; refusals', async () => {
  const dm = (await bob.post('/messages', { type: 'direct', to: [ann.userId], content: 'call me' })).body.id;
  const res = await ann.post('/reminders', { message_id: dm, scheduled_delivery_timestamp: inSeconds(600) });
  assert.equal(res.status, 200);
  const r = (await ann.get('/reminders')).body.reminders.find((x: any) => x.reminder_id === res.body.reminder_id);
  assert.match(r.content, /^You requested a reminder for the following direct message\.\n\n@_\*\*Bob Writer\|\d+\*\* \[said\]\(.*\/#narrow\/dm\/\d+-user\/near\/\d+\):\n```quote\ncall me\n```$/);
  const past = await ann.post('/reminders', { message_id: dm, scheduled_delivery_timestamp: inSeconds(-10) });
  assert.deepEqual([past.status, past.body.msg], [400, 'Scheduled delivery time must be in the future.']);
  const missing = await ann.post('/reminders', { message_id: 99999999, scheduled_delivery_timestamp: inSeconds(60) });
  assert.deepEqual([missing.status, missing.body.msg], [400, 'Invalid message(s)']);
  // Someone else's direct message is as missing as a nonexistent one.
  const carl = await t.createUser({ name: 'Carl Outside' });
  const hidden = await carl.post('/reminders', { message_id: dm, scheduled_delivery_timestamp: inSeconds(60) });
  assert.deepEqual([hidden.status, hidden.body.msg], [400, 'Invalid message(s)']);
  const long = await ann.post('/reminders', { message_id: dm, scheduled_delivery_timestamp: inSeconds(60), note: 'x'.repeat(1001) });
  assert.deepEqual([long.status, long.body.msg], [400, 'Maximum reminder note length: 1000 characters']);
  const noTime = await ann.post('/reminders', { message_id: dm });
  assert.deepEqual([noTime.status, noTime.body.code], [400, 'REQUEST_VARIABLE_MISSING']);
  const badId = await ann.post('/reminders', { message_id: 'abc', scheduled_delivery_timestamp: inSeconds(60) });
  assert.equal(badId.status, 400);
});

test('deleting a reminder: only one\'s own; the remove event', async () => {
  const m = (await bob.post('/messages', { type: 'stream', to: 'notes', topic: 'later', content: 'x' })).body.id;
  const id = (await ann.post('/reminders', { message_id: m, scheduled_delivery_timestamp: inSeconds(3600) })).body.reminder_id;
  const notMine = await bob.delete(`/reminders/${id}`);
  assert.deepEqual([notMine.status, notMine.body.msg], [404, 'Reminder does not exist']);
  const q = await openQueue(ann, ['reminders']);
  assert.equal((await ann.delete(`/reminders/${id}`)).status, 200);
  assert.deepEqual((await queuedEvents(ann, q)).map(({ id: _i, ...e }: any) => e), [{ type: 'reminders', op: 'remove', reminder_id: id }]);
  assert.equal((await ann.delete(`/reminders/${id}`)).status, 404);
  assert.equal((await ann.delete('/reminders/abc')).status, 404);
  // Nor is a reminder a scheduled message.
  const other = (await ann.post('/reminders', { message_id: m, scheduled_delivery_timestamp: inSeconds(3600) })).body.reminder_id;
  assert.equal((await ann.delete(`/scheduled_messages/${other}`)).status, 404);
  assert.equal((await ann.patch(`/scheduled_messages/${other}`, { content: 'changed' })).status, 404);
  assert.equal((await ann.delete(`/reminders/${other}`)).status, 200);
  // A scheduled message's id is not a reminder's.
  const sched = (await ann.post('/scheduled_messages', { type: 'stream', to: streamId, topic: 't', content: 'later', scheduled_delivery_timestamp: inSeconds(3600) })).body.scheduled_message_id;
  assert.equal((await ann.delete(`/reminders/${sched}`)).status, 404);
  assert.equal((await ann.delete(`/scheduled_messages/${sched}`)).status, 200);
});

test('delivery: a direct message from the Notification Bot, unread, and the reminder leaves the list', async () => {
  const m = (await bob.post('/messages', { type: 'stream', to: 'notes', topic: 'soon', content: 'ping me' })).body.id;
  const q = await openQueue(ann, ['reminders', 'message']);
  const id = (await ann.post('/reminders', { message_id: m, scheduled_delivery_timestamp: inSeconds(2) })).body.reminder_id;
  let got: any;
  for (let i = 0; i < 40 && !got; i++) {
    await sleep(250);
    got = (await queuedEvents(ann, q)).find((e: any) => e.type === 'message');
  }
  assert.ok(got, 'the reminder was delivered');
  assert.equal(got.message.sender_email, 'notification-bot@zulip.com');
  assert.equal(got.message.type, 'private');
  assert.deepEqual(got.message.display_recipient.map((r: any) => r.id).sort(), [ann.userId, got.message.sender_id].sort());
  assert.deepEqual(got.flags, []);
  assert.match(got.message.content, /ping me/);
  const evs = await queuedEvents(ann, q);
  assert.ok(evs.some((e: any) => e.type === 'reminders' && e.op === 'remove' && e.reminder_id === id));
  assert.ok(!(await ann.get('/reminders')).body.reminders.some((r: any) => r.reminder_id === id));
  // access_reminder finds a delivered reminder too, so deleting it succeeds (once).
  assert.equal((await ann.delete(`/reminders/${id}`)).status, 200);
  assert.equal((await ann.delete(`/reminders/${id}`)).status, 404);
});

test("a reminder about a Notification Bot message (the channel's channel-created one) names the bot", async () => {
  const created = (await ann.get(`/streams/${streamId}`)).body.stream.first_message_id;
  const notice = (await ann.get(`/messages/${created}`)).body.message;
  assert.equal(notice.sender_email, 'notification-bot@zulip.com');
  const res = await ann.post('/reminders', { message_id: created, scheduled_delivery_timestamp: inSeconds(3600) });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const r = (await ann.get('/reminders')).body.reminders.find((x: any) => x.reminder_id === res.body.reminder_id);
  assert.ok(r.content.includes(`@_**Notification Bot|${notice.sender_id}** [said]`), r.content);
  assert.match(r.rendered_content, new RegExp(`<span class="user-mention silent" data-user-id="${notice.sender_id}">Notification Bot</span>`));
});
