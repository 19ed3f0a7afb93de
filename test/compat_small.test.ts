// Small answers Zulip's own clients and API examples check: credential failures as 401
// UNAUTHORIZED, clearing a status emoji, the configurable minimum password length, editing a
// reusable invitation link, and an organization deactivated from the command line.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client, openQueue, startTestServer, type TestServer } from './helpers.js';

const run = promisify(execFile);
const bin = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'confab.js');

let t: TestServer;
let member: Client;
let admin: Client;

before(async () => {
  t = await startTestServer();
  member = await t.createUser({ name: 'Mira Member' });
  admin = await t.createUser({ role: 'administrator', name: 'Abe Admin' });
});
after(async () => {
  await t.close();
});

test('POST /users/me/status: an empty emoji_name clears the emoji, whatever empty code and type come with it', async () => {
  const set = await member.post('/users/me/status', { status_text: 'lunch', emoji_name: 'car', emoji_code: '1f697', reaction_type: 'unicode_emoji' });
  assert.equal(set.status, 200, JSON.stringify(set.body));
  assert.deepEqual((await member.get(`/users/${member.userId}/status`)).body.status, { status_text: 'lunch', emoji_name: 'car', emoji_code: '1f697', reaction_type: 'unicode_emoji' });
  const q = await openQueue(admin, ['user_status']);
  // As the mobile app sends it: all three emoji fields empty.
  const cleared = await member.post('/users/me/status', { status_text: 'lunch', emoji_name: '', emoji_code: '', reaction_type: '' });
  assert.equal(cleared.status, 200, JSON.stringify(cleared.body));
  assert.deepEqual((await member.get(`/users/${member.userId}/status`)).body.status, { status_text: 'lunch' });
  const events = (await admin.get('/events', { queue_id: q, last_event_id: -1, dont_block: true })).body.events.filter((e: any) => e.type === 'user_status');
  assert.equal(events.length, 1);
  assert.equal(events[0].emoji_name, '');
  // A type is still checked when an emoji is being set.
  const bad = await member.post('/users/me/status', { emoji_name: 'car', emoji_code: '1f697', reaction_type: 'nonsense' });
  assert.deepEqual([bad.status, bad.body.msg], [400, 'Invalid emoji type.']);
});

test('/register reports the password limits; the minimum length is applied', async () => {
  const reg = await t.owner.post('/register', { fetch_event_types: ['realm'] });
  assert.equal(reg.body.password_min_length, 6);
  assert.equal(reg.body.password_max_length, 100);
  assert.equal(typeof reg.body.password_min_guesses, 'number');
  const weak = await t.owner.post('/users', { email: 'short@example.com', password: 'abc', full_name: 'Short Pass' });
  assert.deepEqual([weak.status, weak.body.msg], [400, 'The password is too weak.']);
});

test('CONFAB_PASSWORD_MIN_LENGTH=0 accepts any password, as Zulip development servers do', async () => {
  const lax = await startTestServer({ passwordMinLength: 0 });
  try {
    assert.equal((await lax.owner.post('/register', { fetch_event_types: ['realm'] })).body.password_min_length, 0);
    const res = await lax.owner.post('/users', { email: 'newbie@example.com', password: 'temp', full_name: 'New User' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const key = await fetch(new URL('/api/v1/fetch_api_key', lax.url), {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ username: 'newbie@example.com', password: 'temp' }).toString(),
    });
    assert.equal(key.status, 200);
  } finally {
    await lax.close();
  }
});

test('PATCH /invites/multiuse/{id} changes what a reusable link grants, not the link', async () => {
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'garden' }, { name: 'kitchen' }] });
  const all = (await t.owner.get('/streams')).body.streams as Array<{ stream_id: number; name: string }>;
  const id = (name: string) => all.find((s) => s.name === name)!.stream_id;
  const link = (await admin.post('/invites/multiuse', { invite_as: 400, stream_ids: [id('garden')] })).body.invite_link as string;
  const listed = (await admin.get('/invites')).body.invites.find((i: any) => i.link_url === link);
  assert.ok(listed);
  const q = await openQueue(admin, ['invites_changed']);
  const res = await admin.patch(`/invites/multiuse/${listed.id}`, { invite_as: 600, stream_ids: [id('kitchen')] });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const after = (await admin.get('/invites')).body.invites.find((i: any) => i.id === listed.id);
  assert.deepEqual([after.link_url, after.invited_as], [link, 600]);
  assert.equal((await admin.get('/events', { queue_id: q, last_event_id: -1, dont_block: true })).body.events.filter((e: any) => e.type === 'invites_changed').length, 1);
  // The person who joins by it gets the new terms.
  const joined = await fetch(link, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ email: 'edited@example.com', full_name: 'Eddie Edited', password: 'edited-password' }).toString(),
  });
  assert.equal(joined.status, 200);
  const newcomer = (await t.owner.get('/users')).body.members.find((u: any) => u.email === 'edited@example.com');
  assert.equal(newcomer.role, 600);
  const subs = (await t.owner.get(`/users/${newcomer.user_id}/subscriptions/${id('kitchen')}`)).body;
  assert.equal(subs.is_subscribed, true);
  assert.equal((await t.owner.get(`/users/${newcomer.user_id}/subscriptions/${id('garden')}`)).body.is_subscribed, false);

  const missing = await admin.patch('/invites/multiuse/99999', { invite_as: 400 });
  assert.deepEqual([missing.status, missing.body.msg], [400, 'No such invitation']);
  const byMember = await member.patch(`/invites/multiuse/${listed.id}`, { invite_as: 400 });
  assert.equal(byMember.status, 400);
  const asOwner = await admin.patch(`/invites/multiuse/${listed.id}`, { invite_as: 100 });
  assert.deepEqual([asOwner.status, asOwner.body.msg], [400, 'Must be an organization owner']);
  assert.equal((await admin.delete(`/invites/multiuse/${listed.id}`)).status, 200);
  const revoked = await admin.patch(`/invites/multiuse/${listed.id}`, { invite_as: 400 });
  assert.deepEqual([revoked.status, revoked.body.msg], [400, 'Invitation has already been revoked']);
});

test('confab deactivate-org: the API answers 401 "This organization has been deactivated"; reactivate-org undoes it', async () => {
  const other = await t.createOrg('Doomed Org');
  const env = { ...process.env, CONFAB_DATABASE_URL: t.databaseUrl, CONFAB_REDIS_URL: '' };
  const reg = await other.owner.post('/register', { event_types: ['realm'], fetch_event_types: ['realm'] });
  assert.equal(reg.status, 200);
  const parked = other.owner.get('/events', { queue_id: reg.body.queue_id, last_event_id: -1 });
  const { stdout } = await run(process.execPath, [bin, 'deactivate-org', '--realm-id', String(other.realmId)], { env });
  assert.deepEqual(JSON.parse(stdout), { realm_id: other.realmId, deactivated: true, changed: true });
  // The running server notices the change made by another process within a few seconds.
  const woken = await parked;
  assert.equal(woken.status, 200);
  assert.deepEqual(woken.body.events.map((e: any) => [e.type, e.op, e.realm_id]), [['realm', 'deactivated', other.realmId]]);
  const res = await other.owner.get('/users/me');
  assert.deepEqual([res.status, res.body.code, res.body.msg], [401, 'UNAUTHORIZED', 'This organization has been deactivated']);
  const login = await fetch(new URL('/api/v1/fetch_api_key', t.url), {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ username: other.owner.email, password: 'pw-other-org' }).toString(),
  });
  const body = (await login.json()) as any;
  assert.deepEqual([login.status, body.code, body.msg], [401, 'REALM_DEACTIVATED', 'This organization has been deactivated']);
  assert.equal((await t.owner.get('/users/me')).status, 200, 'other organizations are untouched');

  const again = await run(process.execPath, [bin, 'reactivate-org', '--realm-id', String(other.realmId)], { env });
  assert.equal(JSON.parse(again.stdout).changed, true);
  let status = 0;
  for (let i = 0; i < 100 && status !== 200; i++) {
    status = (await other.owner.get('/users/me')).status;
    if (status !== 200) await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(status, 200);
  const unknown = await run(process.execPath, [bin, 'deactivate-org', '--realm-id', '999999'], { env }).catch((e) => e);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /No such organization/);
});
