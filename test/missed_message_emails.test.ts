// Missed-message emails over a real SMTP server started by the test: who gets one (direct
// messages, mentions, wildcard mentions, alert words, followed topics, channel email settings),
// who does not (settings off, muted, active, read meanwhile), the subject, both parts, the links,
// and one email per conversation batching what was missed.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer, type Client } from './helpers.js';
import { startSmtpServer, type TestSmtpServer, type ReceivedMail } from './smtp_server.js';

let t: TestServer;
let smtp: TestSmtpServer;
let marker = 0;

before(async () => {
  smtp = await startSmtpServer();
  // Long enough that the messages a test sends back to back fall into one batch even on a loaded
  // machine (with 1 s, a slow send split a conversation into two emails).
  t = await startTestServer({ smtpUrl: smtp.url, missedMessageEmailDelaySeconds: 3 });
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'general' }] });
});

after(async () => {
  await t.close();
  await smtp.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function mailsTo(address: string, n = 1, timeoutMs = 20_000): Promise<ReceivedMail[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = smtp.mails.filter((m) => m.to.includes(address));
    if (found.length >= n) return found;
    if (Date.now() > deadline) throw new Error(`no mail to ${address}`);
    await sleep(100);
  }
}

/** Waits until a DM sent now to a fresh user has been mailed: every earlier notice has been handled. */
async function settle(): Promise<void> {
  const probe = await t.createUser({ email: `probe${++marker}@example.com` });
  assert.equal((await t.owner.post('/messages', { type: 'private', to: [probe.userId], content: 'probe' })).status, 200);
  await mailsTo(probe.email);
}

/** Subscribes people to #general without the Notification Bot's direct message (and its own email) about it. */
async function subscribe(...users: Client[]) {
  const res = await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'general' }], principals: users.map((u) => u.userId), send_new_subscription_messages: false });
  assert.equal(res.status, 200);
}

test('direct messages: one email per conversation with every message missed, both parts, sender and link', async () => {
  const ann = await t.createUser({ name: 'Ann Away', email: 'ann@example.com' });
  const bob = await t.createUser({ name: 'Bob Sender', email: 'bob@example.com' });
  await t.owner.post('/messages', { type: 'private', to: [ann.userId], content: 'First **bold** note' });
  await t.owner.post('/messages', { type: 'private', to: [ann.userId], content: 'Second note <script>alert(1)</script>' });
  await bob.post('/messages', { type: 'private', to: [ann.userId], content: 'From Bob' });
  const mails = await mailsTo('ann@example.com', 2);
  await sleep(500);
  assert.equal(smtp.mails.filter((m) => m.to.includes('ann@example.com')).length, 2, 'one email per conversation');
  const fromOwner = mails.find((m) => m.subject === 'DMs with Olivia Owner');
  const fromBob = mails.find((m) => m.subject === 'DMs with Bob Sender');
  assert.ok(fromOwner && fromBob, mails.map((m) => m.subject).join(' | '));
  assert.match(fromOwner.text!, /Olivia Owner:/);
  assert.match(fromOwner.text!, /First \*\*bold\*\* note/);
  assert.match(fromOwner.text!, /Second note/);
  assert.match(fromOwner.html!, /<strong>bold<\/strong>/);
  assert.match(fromOwner.html!, /Olivia Owner/);
  assert.doesNotMatch(fromOwner.html!, /<script>/, 'message HTML is the safe rendering');
  assert.match(fromOwner.html!, new RegExp(`href="${t.url}/#narrow/dm/${t.owner.userId}-Olivia-Owner/near/\\d+"`));
  assert.doesNotMatch(fromBob.text!, /First/);
});

test('a channel mention: subject "#channel > topic", rendered mention, why and where', async () => {
  const cat = await t.createUser({ name: 'Cat Mentioned', email: 'cat@example.com' });
  const dan = await t.createUser({ name: 'Dan Bystander', email: 'dan@example.com' });
  await subscribe(cat, dan);
  await t.owner.post('/messages', { type: 'stream', to: 'general', topic: 'lunch plans', content: 'Where to eat?' });
  await t.owner.post('/messages', { type: 'stream', to: 'general', topic: 'lunch plans', content: '@**Cat Mentioned** do you know?' });
  const [mail] = await mailsTo('cat@example.com');
  assert.equal(mail!.subject, '#general > lunch plans');
  assert.match(mail!.text!, /@\*\*Cat Mentioned\*\* do you know\?/);
  assert.doesNotMatch(mail!.text!, /Where to eat/, 'only the messages that notified');
  assert.match(mail!.html!, /class="user-mention"/);
  assert.match(mail!.text!, /mentioned by name/);
  assert.match(mail!.html!, new RegExp(`href="${t.url}/#narrow/channel/\\d+-general/topic/lunch\\.20plans/near/\\d+"`));
  await settle();
  assert.equal(smtp.mails.filter((m) => m.to.includes('dan@example.com')).length, 0, 'an unmentioned subscriber gets nothing');
});

test("the Notification Bot's direct message about a subscription is mailed under its name", async () => {
  const sal = await t.createUser({ name: 'Sal Subscribed', email: 'sal@example.com' });
  const res = await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'general' }], principals: [sal.userId] });
  assert.equal(res.body.new_subscription_messages_sent, true);
  const [mail] = await mailsTo('sal@example.com');
  assert.equal(mail!.subject, 'DMs with Notification Bot');
  assert.match(mail!.text!, /Notification Bot:\r?\n@_\*\*Olivia Owner\|\d+\*\* subscribed you to #\*\*general\*\*\./);
});

test("a mention in a new channel's description: the Notification Bot's channel-created message is mailed", async () => {
  const dee = await t.createUser({ name: 'Dee Described', email: 'dee@example.com' });
  const res = await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'described', description: 'Run by @**Dee Described**' }], principals: [t.owner.userId, dee.userId] });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const [mail] = await mailsTo('dee@example.com');
  assert.equal(mail!.subject, '#described > channel events');
  assert.match(mail!.text!, /Notification Bot:/);
  assert.match(mail!.text!, /mentioned by name/);
});

test('messages read in the meantime are dropped; a batch keeps only the unread ones', async () => {
  const eve = await t.createUser({ name: 'Eve Reader', email: 'eve@example.com' });
  const a = (await t.owner.post('/messages', { type: 'private', to: [eve.userId], content: 'read me soon' })).body.id;
  const b = (await t.owner.post('/messages', { type: 'private', to: [eve.userId], content: 'still unread' })).body.id;
  assert.equal((await eve.post('/messages/flags', { messages: [a], op: 'add', flag: 'read' })).status, 200);
  const [mail] = await mailsTo('eve@example.com');
  assert.match(mail!.text!, /still unread/);
  assert.doesNotMatch(mail!.text!, /read me soon/);
  assert.ok(b);

  const fay = await t.createUser({ name: 'Fay Fast', email: 'fay@example.com' });
  const c = (await t.owner.post('/messages', { type: 'private', to: [fay.userId], content: 'seen at once' })).body.id;
  assert.equal((await fay.post('/messages/flags', { messages: [c], op: 'add', flag: 'read' })).status, 200);
  await settle();
  assert.equal(smtp.mails.filter((m) => m.to.includes('fay@example.com')).length, 0);
  const left = await t.server.services.database.db.selectFrom('missed_message_notices').select('id').where('user_id', '=', fay.userId).execute();
  assert.deepEqual(left, []);
});

test('no email: notifications off, an active person, a muted sender; group DMs and hidden content', async () => {
  const off = await t.createUser({ name: 'Off Setting', email: 'off@example.com' });
  assert.equal((await off.patch('/settings', { enable_offline_email_notifications: false })).status, 200);
  const here = await t.createUser({ name: 'Here Active', email: 'here@example.com' });
  assert.equal((await here.post('/users/me/presence', { status: 'active' })).status, 200);
  const muter = await t.createUser({ name: 'Mo Muter', email: 'muter@example.com' });
  assert.equal((await muter.post(`/users/me/muted_users/${t.owner.userId}`)).status, 200);
  const hidden = await t.createUser({ name: 'Hid Content', email: 'hidden@example.com' });
  assert.equal((await hidden.patch('/settings', { message_content_in_email_notifications: false })).status, 200);
  for (const u of [off, here, muter, hidden]) await t.owner.post('/messages', { type: 'private', to: [u.userId], content: 'secret plans' });
  const [mail] = await mailsTo('hidden@example.com');
  assert.equal(mail!.subject, 'New messages');
  assert.doesNotMatch(mail!.text! + mail!.html!, /secret plans/);

  const gia = await t.createUser({ name: 'Gia Group', email: 'gia@example.com' });
  const hal = await t.createUser({ name: 'Hal Group', email: 'hal@example.com' });
  await t.owner.post('/messages', { type: 'private', to: [gia.userId, hal.userId], content: 'hello both' });
  const [group] = await mailsTo('gia@example.com');
  assert.equal(group!.subject, 'Group DMs with Hal Group and Olivia Owner');
  assert.match(group!.html!, new RegExp(`#narrow/dm/${Math.min(t.owner.userId, hal.userId)},${Math.max(t.owner.userId, hal.userId)}-group/near/`));
  await settle();
  for (const address of ['off@example.com', 'here@example.com', 'muter@example.com']) {
    assert.equal(smtp.mails.filter((m) => m.to.includes(address)).length, 0, address);
  }
});

test('wildcard mentions, alert words, followed topics and per-channel email settings', async () => {
  const wil = await t.createUser({ name: 'Wil Wildcard', email: 'wil@example.com' });
  const nowild = await t.createUser({ name: 'Nia NoWildcard', email: 'nowild@example.com' });
  const alert = await t.createUser({ name: 'Al Alert', email: 'alert@example.com' });
  const fol = await t.createUser({ name: 'Flo Follower', email: 'flo@example.com' });
  const chan = await t.createUser({ name: 'Cho Channel', email: 'cho@example.com' });
  const muted = await t.createUser({ name: 'Mu Muted', email: 'mu@example.com' });
  await subscribe(wil, nowild, alert, fol, chan, muted);
  const general = (await t.owner.get('/get_stream_id', { stream: 'general' })).body.stream_id;
  assert.equal((await nowild.patch('/settings', { wildcard_mentions_notify: false })).status, 200);
  assert.equal((await alert.post('/users/me/alert_words', { alert_words: ['pineapple'] })).status, 200);
  assert.equal((await fol.post('/user_topics', { stream_id: general, topic: 'release', visibility_policy: 3 })).status, 200);
  assert.equal((await chan.post('/users/me/subscriptions/properties', { subscription_data: [{ stream_id: general, property: 'email_notifications', value: true }] })).status, 200);
  assert.equal((await muted.post('/users/me/subscriptions/properties', { subscription_data: [{ stream_id: general, property: 'is_muted', value: true }] })).status, 200);

  await t.owner.post('/messages', { type: 'stream', to: 'general', topic: 'release', content: 'Heads up @**all**, pineapple time' });
  const [w] = await mailsTo('wil@example.com');
  assert.equal(w!.subject, '#general > release');
  assert.match(w!.text!, /everyone in #general was mentioned/);
  const [a] = await mailsTo('alert@example.com');
  assert.match(a!.text!, /alert words/);
  await mailsTo('flo@example.com');
  await mailsTo('cho@example.com');
  await settle();
  assert.equal(smtp.mails.filter((m) => m.to.includes('nowild@example.com')).length, 0, 'wildcard_mentions_notify off');
  assert.equal(smtp.mails.filter((m) => m.to.includes('mu@example.com')).length, 0, 'a muted channel ignores wildcards');

  // The followed topic without a mention still notifies its follower, and the channel setting its subscriber.
  const before = smtp.mails.length;
  await t.owner.post('/messages', { type: 'stream', to: 'general', topic: 'release', content: 'shipped' });
  await mailsTo('flo@example.com', 2);
  await mailsTo('cho@example.com', 2);
  await settle();
  const later = smtp.mails.slice(before).flatMap((m) => m.to);
  assert.ok(!later.includes('wil@example.com') && !later.includes('alert@example.com'));
});

test('the organization can keep message content out of emails', async () => {
  assert.equal((await t.owner.patch('/realm', { message_content_allowed_in_email_notifications: false })).status, 200);
  try {
    const ivy = await t.createUser({ name: 'Ivy Inbox', email: 'ivy@example.com' });
    await t.owner.post('/messages', { type: 'private', to: [ivy.userId], content: 'classified' });
    const [mail] = await mailsTo('ivy@example.com');
    assert.equal(mail!.subject, 'New messages');
    assert.match(mail!.text!, /organization hides message content/);
    assert.doesNotMatch(mail!.text! + mail!.html!, /classified/);
  } finally {
    await t.owner.patch('/realm', { message_content_allowed_in_email_notifications: true });
  }
});
