// Weekly digest emails over a real SMTP server started by the test: sent on the organization's
// digest day to people who are away and asked for them, with the busiest topics of their channels
// and the new channels; once a week; not when off.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer, type Client } from './helpers.js';
import { startSmtpServer, type TestSmtpServer } from './smtp_server.js';
import { sendDigests, zulipWeekday } from '../src/actions/digest.js';

let t: TestServer;
let smtp: TestSmtpServer;

before(async () => {
  smtp = await startSmtpServer();
  t = await startTestServer({ smtpUrl: smtp.url });
});

after(async () => {
  await t.close();
  await smtp.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function mailsTo(address: string): Promise<string[]> {
  await sleep(300);
  return smtp.mails.filter((m) => m.to.includes(address)).map((m) => m.subject);
}

test('the weekly digest: busiest topics of my channels, new channels, once a week, only when on', async () => {
  const now = Math.floor(Date.now() / 1000);
  const away = await t.createUser({ name: 'Aya Away', email: 'aya@example.com' });
  const here = await t.createUser({ name: 'Hugo Here', email: 'hugo@example.com' });
  const off = await t.createUser({ name: 'Olga Off', email: 'olga@example.com' });
  const outsider = await t.createUser({ name: 'Otto Outsider', email: 'otto@example.com' });
  const subscribe = (name: string, users: Client[], extra: Record<string, unknown> = {}) =>
    t.owner.post('/users/me/subscriptions', { subscriptions: [{ name, description: `About ${name}` }], principals: users.map((u) => u.userId), ...extra });
  assert.equal((await subscribe('engineering', [t.owner, away, here, off])).status, 200);
  assert.equal((await subscribe('random', [t.owner, away, here, off, outsider])).status, 200);
  for (let i = 0; i < 5; i++) await t.owner.post('/messages', { type: 'stream', to: 'engineering', topic: 'release 2.0', content: `release note ${i}` });
  await here.post('/messages', { type: 'stream', to: 'engineering', topic: 'release 2.0', content: 'ship it' });
  await t.owner.post('/messages', { type: 'stream', to: 'random', topic: 'lunch', content: 'pizza?' });
  assert.equal((await here.post('/users/me/presence', { status: 'active' })).status, 200);
  assert.equal((await off.patch('/settings', { enable_digest_emails: false })).status, 200);

  // Off for the organization: nothing.
  assert.equal((await t.owner.patch('/realm', { digest_emails_enabled: false })).status, 200);
  assert.equal(await sendDigests(t.server.services, now), 0);
  const today = zulipWeekday(now);
  assert.equal((await t.owner.patch('/realm', { digest_emails_enabled: true, digest_weekday: (today + 1) % 7 })).status, 200);
  assert.equal(await sendDigests(t.server.services, now), 0, 'not the digest day');
  assert.equal((await t.owner.patch('/realm', { digest_weekday: today })).status, 200);

  const sent = await sendDigests(t.server.services, now);
  assert.ok(sent >= 2, `sent ${sent}`);
  await smtp.waitFor(sent);
  const mail = smtp.mails.find((m) => m.to.includes('aya@example.com'))!;
  assert.equal(mail.subject, 'Zulip digest for Test Org');
  assert.match(mail.text!, /#engineering > release 2\.0 \(6 messages from 2 people\)/);
  assert.match(mail.text!, /Olivia Owner: release note 0/);
  assert.match(mail.text!, /#random > lunch/);
  assert.ok(mail.text!.indexOf('release 2.0') < mail.text!.indexOf('lunch'), 'busiest first');
  assert.match(mail.text!, /NEW CHANNELS[\s\S]*#engineering — About engineering/);
  assert.match(mail.html!, new RegExp(`href="${t.url}/#narrow/channel/\\d+-engineering/topic/release\\.202\\.2E0"`));
  const otto = smtp.mails.find((m) => m.to.includes('otto@example.com'))!;
  assert.doesNotMatch(otto.text!, /release 2\.0/, 'only topics of channels one is subscribed to');
  assert.match(otto.text!, /#random > lunch/);
  assert.deepEqual(await mailsTo('hugo@example.com'), [], 'active people get no digest');
  assert.deepEqual(await mailsTo('olga@example.com'), [], 'enable_digest_emails off');

  // Once a week: a second run the same day (or from another process) sends nothing more.
  assert.equal(await sendDigests(t.server.services, now), 0);
  assert.equal(await sendDigests(t.server.services, now + 600), 0);
  assert.equal(smtp.mails.filter((m) => m.to.includes('aya@example.com')).length, 1);
});
