// Messages from a muted system bot arrive read, as from any muted sender: Zulip's do_send_messages
// marks the read flag for the sender's get_muting_users on internal sends too (the Notification
// Bot's channel notices and direct messages, reminders, the Welcome Bot's messages). Their other
// flags (alert words) stay, they count in no unread count, and they notify nobody
// (UserMessageNotificationsData's sender_is_muted): no missed-message email.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, openQueue, queuedEvents, messagesIn, channelId, NOTIFICATION_BOT, type TestServer, type Client } from './helpers.js';
import { startSmtpServer, type TestSmtpServer } from './smtp_server.js';

let t: TestServer;
let smtp: TestSmtpServer;
/** Muted the Notification Bot. */
let muter: Client;
/** Did not: the same messages reach them unread. */
let other: Client;
let botId: number;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

before(async () => {
  smtp = await startSmtpServer();
  t = await startTestServer({ smtpUrl: smtp.url, missedMessageEmailDelaySeconds: 1 });
  muter = await t.createUser({ name: 'Mona Muter', email: 'mona@example.com' });
  other = await t.createUser({ name: 'Otis Other', email: 'otis@example.com' });
  botId = (await muter.get(`/users/${encodeURIComponent(NOTIFICATION_BOT)}`)).body.user.user_id;
  const res = await muter.post(`/users/me/muted_users/${botId}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
});

after(async () => {
  await t.close();
  await smtp.close();
});

async function subscribe(names: string[], principals: Client[], extra: Record<string, unknown> = {}): Promise<void> {
  const res = await t.owner.post('/users/me/subscriptions', { subscriptions: names.map((name) => ({ name })), principals: principals.map((c) => c.userId), ...extra });
  assert.equal(res.status, 200, JSON.stringify(res.body));
}

/** The message events of a queue, with their flags. */
async function messageEvents(c: Client, queue: string): Promise<any[]> {
  return messagesIn(await queuedEvents(c, queue));
}

/** A message's flags as `c` fetches it. */
async function flagsOf(c: Client, id: number): Promise<string[]> {
  const res = await c.get(`/messages/${id}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.message.flags;
}

/** Every unread message id in `c`'s /register unread_msgs, and its count. */
async function unreadIds(c: Client): Promise<{ ids: Set<number>; count: number }> {
  const u = (await c.post('/register', { fetch_event_types: ['message', 'update_message_flags'] })).body.unread_msgs;
  const ids = new Set<number>();
  for (const list of [u.streams, u.pms, u.huddles]) for (const e of list) for (const id of e.unread_message_ids) ids.add(id);
  return { ids, count: u.count };
}

test("a channel rename's notice reaches a subscriber who muted the Notification Bot read, alert-word flag kept, and unread for the others", async () => {
  await subscribe(['meadow'], [t.owner, muter, other], { send_new_subscription_messages: false });
  const id = await channelId(t.owner, 'meadow');
  assert.equal((await muter.post('/users/me/alert_words', { alert_words: ['zebra'] })).status, 200);
  const qm = await openQueue(muter, ['message']);
  const qo = await openQueue(other, ['message']);
  const before = await unreadIds(muter);
  const res = await t.owner.patch(`/streams/${id}`, { new_name: 'zebra field' });
  assert.equal(res.status, 200, JSON.stringify(res.body));

  const [notice] = await messageEvents(muter, qm);
  assert.ok(notice, 'the notice reached the muter');
  assert.equal(notice.sender_id, botId);
  assert.equal(notice.subject, 'channel events');
  assert.deepEqual(notice.flags.sort(), ['has_alert_word', 'read']);
  assert.deepEqual((await flagsOf(muter, notice.id)).sort(), ['has_alert_word', 'read']);
  const after = await unreadIds(muter);
  assert.ok(!after.ids.has(notice.id));
  assert.equal(after.count, before.count, 'counts in no unread count');

  const [theirs] = await messageEvents(other, qo);
  assert.equal(theirs.id, notice.id);
  assert.deepEqual(theirs.flags, [], 'unread for a subscriber who did not mute the bot');
  assert.ok((await unreadIds(other)).ids.has(notice.id));
});

test('the direct message about being subscribed by someone else arrives read, counts nowhere, and mails nobody', async () => {
  await subscribe(['orchard'], [t.owner], { send_new_subscription_messages: false });
  const qm = await openQueue(muter, ['message']);
  const qo = await openQueue(other, ['message']);
  const before = await unreadIds(muter);
  await subscribe(['orchard'], [muter, other]);

  const [dm] = (await messageEvents(muter, qm)).filter((m) => m.type === 'private');
  assert.ok(dm, 'the Notification Bot wrote to the muter');
  assert.equal(dm.sender_id, botId);
  assert.deepEqual(dm.flags, ['read']);
  assert.deepEqual(await flagsOf(muter, dm.id), ['read']);
  const after = await unreadIds(muter);
  assert.ok(!after.ids.has(dm.id));
  assert.equal(after.count, before.count);

  const [theirs] = (await messageEvents(other, qo)).filter((m) => m.type === 'private');
  assert.deepEqual(theirs.flags, [], 'unread for the one who did not mute the bot');
  // The other, idle, is mailed about the direct message; the muter, idle too, never is. A direct
  // message mailed to a fresh user after that shows every earlier notice was handled.
  for (let i = 0; i < 200 && !smtp.mails.some((m) => m.to.includes(other.email)); i++) await sleep(100);
  assert.ok(smtp.mails.some((m) => m.to.includes(other.email)), 'the other was mailed');
  const probe = await t.createUser({ email: 'probe@example.com' });
  assert.equal((await t.owner.post('/messages', { type: 'private', to: [probe.userId], content: 'probe' })).status, 200);
  for (let i = 0; i < 200 && !smtp.mails.some((m) => m.to.includes(probe.email)); i++) await sleep(100);
  assert.ok(smtp.mails.some((m) => m.to.includes(probe.email)));
  assert.ok(!smtp.mails.some((m) => m.to.includes(muter.email)), 'no missed-message email for a muted sender');
});

test("the Welcome Bot's message to an administrator who muted it arrives read", async () => {
  const welcomeBot = (await t.owner.get(`/users/${encodeURIComponent('welcome-bot@zulip.com')}`)).body.user.user_id;
  assert.equal((await t.owner.post(`/users/me/muted_users/${welcomeBot}`)).status, 200);
  const q = await openQueue(t.owner, ['message']);
  const res = await t.owner.post('/realm/test_welcome_bot_custom_message', { welcome_message_custom_text: 'Hello there' });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const [m] = await messageEvents(t.owner, q);
  assert.equal(m.sender_id, welcomeBot);
  assert.deepEqual(m.flags, ['read']);
  assert.ok(!(await unreadIds(t.owner)).ids.has(m.id));
});

test('a reminder delivered to a user who muted the Notification Bot arrives read', async () => {
  await subscribe(['notes'], [t.owner, muter], { send_new_subscription_messages: false });
  const target = (await t.owner.post('/messages', { type: 'stream', to: 'notes', topic: 'soon', content: 'ping me' })).body.id;
  const q = await openQueue(muter, ['message']);
  const res = await muter.post('/reminders', { message_id: target, scheduled_delivery_timestamp: Math.floor(Date.now() / 1000) + 2 });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  let got: any;
  for (let i = 0; i < 80 && !got; i++) {
    await sleep(250);
    got = (await messageEvents(muter, q)).find((m) => m.sender_id === botId);
  }
  assert.ok(got, 'the reminder was delivered');
  assert.deepEqual(got.flags, ['read']);
  assert.ok(!(await unreadIds(muter)).ids.has(got.id));
});
