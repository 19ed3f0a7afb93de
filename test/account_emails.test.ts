// Account emails over a real SMTP server started by the test: password reset at Zulip's addresses
// (the request form, the one-time link read from the received mail, the new-password form, logging
// in with the new password), and the email outbox (every mail through one queue, retried after an
// SMTP failure, sent once by one of several processes).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer, type Client } from './helpers.js';
import { startSmtpServer, type TestSmtpServer } from './smtp_server.js';
import { ageResetLinks, backdateJoined } from './beyond_api.js';

let t: TestServer;
let smtp: TestSmtpServer;
let pat: Client;

before(async () => {
  smtp = await startSmtpServer();
  t = await startTestServer({ smtpUrl: smtp.url, emailRetrySeconds: 0.2 });
  pat = await t.createUser({ name: 'Pat Forgetful', email: 'pat@example.com' });
});

after(async () => {
  await t.close();
  await smtp.close();
});

function form(path: string, fields: Record<string, string>) {
  return fetch(new URL(path, t.url), {
    method: 'POST',
    redirect: 'manual',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
}

const fetchApiKey = (username: string, password: string) => form('/api/v1/fetch_api_key', { username, password });

async function mailsTo(address: string, n = 1) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const found = smtp.mails.filter((m) => m.to.includes(address));
    if (found.length >= n) return found;
    if (Date.now() > deadline) throw new Error(`no mail to ${address}`);
    await smtp.waitFor(smtp.mails.length + 1, 500).catch(() => undefined);
  }
}

function resetLink(text: string): string {
  const link = /(http:\/\/\S+\/accounts\/password\/reset\/[0-9a-f]{64}\/)/.exec(text)?.[1];
  assert.ok(link, text);
  return link;
}

test('password reset: the form mails a one-time link whose form sets a new password; fetch_api_key takes it', async () => {
  const page = await fetch(new URL('/accounts/password/reset/', t.url));
  assert.equal(page.status, 200);
  const csp = page.headers.get('content-security-policy') ?? '';
  assert.match(csp, /default-src 'none'/);
  assert.doesNotMatch(csp, /unsafe-inline|script-src/);
  const html = await page.text();
  assert.match(html, /<input type="email" name="email"/);
  assert.doesNotMatch(html, /<script|style=/);

  // Zulip's login address leads to the web client's login page, which links to the reset form
  // (test-web/chat.test.ts follows that link in Chromium).
  const login = await fetch(new URL('/login/', t.url), { redirect: 'manual' });
  assert.equal(login.status, 302);
  assert.equal(login.headers.get('location'), '/');

  const asked = await form('/accounts/password/reset/', { email: 'PAT@example.com' });
  assert.equal(asked.status, 302);
  assert.equal(asked.headers.get('location'), '/accounts/password/reset/done/');
  const [mail] = await mailsTo('pat@example.com');
  assert.match(mail!.subject, /Reset your password for Test Org/);
  assert.ok(mail!.text && mail!.html, 'a plain-text and an HTML part');
  const link = resetLink(mail!.text!);
  assert.ok(mail!.html!.includes(`href="${link}"`));

  const formPage = await fetch(link);
  assert.equal(formPage.status, 200);
  assert.match(formPage.headers.get('content-security-policy') ?? '', /form-action 'self'/);
  const body = await formPage.text();
  assert.match(body, /name="new_password1"/);
  assert.match(body, /name="new_password2"/);

  const mismatch = await form(new URL(link).pathname, { new_password1: 'brand-new-pw', new_password2: 'brand-new-pX' });
  assert.equal(mismatch.status, 400);
  assert.match(await mismatch.text(), /didn&#39;t match/);
  const weak = await form(new URL(link).pathname, { new_password1: 'abc', new_password2: 'abc' });
  assert.equal(weak.status, 400);
  assert.match(await weak.text(), /too weak/);
  const tooLong = await form(new URL(link).pathname, { new_password1: 'x'.repeat(101), new_password2: 'x'.repeat(101) });
  assert.equal(tooLong.status, 400);

  const done = await form(new URL(link).pathname, { new_password1: 'brand-new-pw', new_password2: 'brand-new-pw' });
  assert.equal(done.status, 200, await done.clone().text());
  assert.match(await done.text(), /Password changed/);

  const res = await fetchApiKey('pat@example.com', 'brand-new-pw');
  assert.equal(res.status, 200);
  const key = (await res.json()) as { api_key: string; user_id: number };
  assert.equal(key.user_id, pat.userId);
  assert.equal((await fetchApiKey('pat@example.com', 'wrong-password')).status, 401);

  // The link works once.
  assert.equal((await fetch(link)).status, 404);
  assert.equal((await form(new URL(link).pathname, { new_password1: 'another-pw', new_password2: 'another-pw' })).status, 404);
  assert.equal((await fetchApiKey('pat@example.com', 'another-pw')).status, 401);
});

test('password reset: the same answer for an unknown address, and no mail; a bad token is a 404 page', async () => {
  const before = smtp.mails.length;
  const unknown = await form('/accounts/password/reset/', { email: 'nobody@example.com' });
  assert.equal(unknown.status, 302);
  assert.equal(unknown.headers.get('location'), '/accounts/password/reset/done/');
  const empty = await form('/accounts/password/reset/', {});
  assert.equal(empty.status, 302);
  const done = await fetch(new URL('/accounts/password/reset/done/', t.url));
  assert.equal(done.status, 200);
  // A later mail to someone else shows the queue has moved past the two requests.
  const other = await t.createUser({ email: 'other-reset@example.com' });
  await form('/accounts/password/reset/', { email: other.email });
  await mailsTo(other.email);
  assert.deepEqual(smtp.mails.slice(before).map((m) => m.to), [[other.email]]);
  assert.equal((await fetch(new URL('/accounts/password/reset/' + 'a'.repeat(64) + '/', t.url))).status, 404);
  assert.equal((await fetch(new URL('/accounts/password/reset/not-a-token/', t.url))).status, 404);
});

test('password reset: an expired link no longer works', async () => {
  const user = await t.createUser({ email: 'late@example.com' });
  await form('/accounts/password/reset/', { email: user.email });
  const [mail] = await mailsTo(user.email);
  const link = resetLink(mail!.text!);
  // Age the link past Zulip's 24 hours.
  await ageResetLinks(t, user.userId, 86401);
  assert.equal((await fetch(link)).status, 404);
  assert.equal((await form(new URL(link).pathname, { new_password1: 'late-password', new_password2: 'late-password' })).status, 404);
});

test('outbox: an SMTP failure is retried; the mail arrives once', async () => {
  const user = await t.createUser({ email: 'retry@example.com' });
  smtp.failNext = 1;
  await form('/accounts/password/reset/', { email: user.email });
  const mails = await mailsTo(user.email);
  assert.equal(mails.length, 1);
  assert.equal(smtp.failNext, 0, 'the first attempt was refused');
  const outboxRows = () => t.server.services.database.db.selectFrom('email_outbox').select(['attempts', 'sent_ms', 'last_error']).where('to_address', '=', user.email).execute();
  // The row is marked sent just after the SMTP server took the mail.
  let rows = await outboxRows();
  for (let i = 0; i < 50 && !rows[0]?.sent_ms; i++) {
    await new Promise((r) => setTimeout(r, 50));
    rows = await outboxRows();
  }
  assert.equal(rows.length, 1);
  assert.equal(Number(rows[0]!.attempts), 2);
  assert.ok(rows[0]!.sent_ms);
});

test('outbox: invitations and email changes go through it, as multipart mail', async () => {
  assert.equal((await t.owner.post('/invites', { invitee_emails: 'invitee@example.com', stream_ids: [] })).status, 200);
  const [invite] = await mailsTo('invitee@example.com');
  assert.match(invite!.subject, /invited you to join Test Org/);
  assert.match(invite!.text!, /\/accounts\/do_confirm\/[0-9a-f]+/);
  assert.match(invite!.html!, /href="http:\/\/[^"]+\/accounts\/do_confirm\/[0-9a-f]+"/);
  assert.equal((await pat.patch('/settings', { email: 'pat.new@example.com' })).status, 200);
  const [change] = await mailsTo('pat.new@example.com');
  assert.match(change!.subject, /Verify your new email address/);
  const kinds = (await t.server.services.database.db.selectFrom('email_outbox').select('kind').execute()).map((r) => r.kind);
  assert.ok(kinds.includes('invitation') && kinds.includes('email_change') && kinds.includes('password_reset'));
});

test('new-login emails: a password login is reported unless turned off or the account is brand new', async () => {
  const user = await t.createUser({ name: 'Lou Login', email: 'lou@example.com', password: 'lou-password' });
  const loginAs = () =>
    fetch(new URL('/api/v1/fetch_api_key', t.url), {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'User-Agent': 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0' },
      body: new URLSearchParams({ username: 'lou@example.com', password: 'lou-password' }).toString(),
    });
  // Just created: the first login is expected, no mail.
  assert.equal((await loginAs()).status, 200);
  await backdateJoined(t, user.userId, 3600);
  assert.equal((await loginAs()).status, 200);
  const [mail] = await mailsTo('lou@example.com');
  assert.equal(mail!.subject, 'New login from Firefox on Linux');
  assert.match(mail!.text!, /Lou Login/);
  assert.match(mail!.text!, /\/accounts\/password\/reset\//);
  assert.equal(smtp.mails.filter((m) => m.to.includes('lou@example.com')).length, 1);

  assert.equal((await user.patch('/settings', { enable_login_emails: false })).status, 200);
  const before = smtp.mails.length;
  assert.equal((await loginAs()).status, 200);
  const other = await t.createUser({ email: 'marker-login@example.com' });
  await form('/accounts/password/reset/', { email: other.email });
  await mailsTo(other.email);
  assert.deepEqual(smtp.mails.slice(before).map((m) => m.to), [[other.email]], 'no login mail once turned off');
});

test('outbox: several processes sending one queue send each mail exactly once', async () => {
  const { createServices } = await import('../src/app.js');
  const { queueMailsNow, sendDueMails } = await import('../src/actions/email.js');
  const config = { ...t.server.services.config };
  const others = [await createServices({ ...config, databaseUrl: t.databaseUrl }), await createServices({ ...config, databaseUrl: t.databaseUrl })];
  try {
    const before = smtp.mails.length;
    const due = Date.now() + 400;
    const mails = Array.from({ length: 30 }, (_, i) => ({ realmId: t.realmId, kind: 'test', to: `many${i}@example.com`, subject: `mail ${i}`, text: `number ${i}`, html: null, sendAfterMs: due }));
    await queueMailsNow(t.server.services, mails);
    await new Promise((r) => setTimeout(r, due - Date.now() + 20));
    // The first server's own runner takes part too, every second.
    await Promise.all([sendDueMails(others[0]!), sendDueMails(others[1]!), sendDueMails(t.server.services), sendDueMails(others[0]!)]);
    await smtp.waitFor(before + 30);
    await new Promise((r) => setTimeout(r, 300));
    const subjects = smtp.mails.slice(before).map((m) => m.subject).sort();
    assert.equal(subjects.length, 30);
    assert.equal(new Set(subjects).size, 30);
  } finally {
    for (const s of others) await s.database.close();
  }
});
