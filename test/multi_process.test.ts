// Several server processes on one database, joined by Redis: events, cache invalidations and rate
// limits cross from one process to the other.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { Client, startTestServer, type TestServer } from './helpers.js';
import { insertAccount } from '../src/actions/users.js';
import { ROLE } from '../src/store/users.js';
import { getSystemGroupIds, insertAnonymousGroup, insertNamedGroup } from '../src/store/groups.js';
import { updateStream } from '../src/store/channels.js';
import { nowSeconds } from '../src/services.js';
import { channel } from '../bench/seed.js';

const REDIS_URL = process.env.CONFAB_TEST_REDIS_URL || 'redis://127.0.0.1:6379';
const prefix = `confab-test-${randomBytes(4).toString('hex')}`;
const limits = 'user=8/60,anonymous=100/60,password=5/1800';

let a: TestServer;
let b: ChildProcess;
let bUrl: string;
before(async () => {
  a = await startTestServer({ redis: { url: REDIS_URL, prefix }, rateLimits: { user: { limit: 8, windowSeconds: 60 }, anonymous: { limit: 100, windowSeconds: 60 }, password: { limit: 5, windowSeconds: 1800 } } });
  const bin = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'confab.js');
  b = spawn(process.execPath, [bin, 'serve'], {
    env: { ...process.env, CONFAB_DATABASE_URL: a.databaseUrl, CONFAB_PORT: '0', CONFAB_HOST: '127.0.0.1', CONFAB_REDIS_URL: REDIS_URL, CONFAB_REDIS_PREFIX: prefix, CONFAB_RATE_LIMITS: limits },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  bUrl = await new Promise<string>((resolve, reject) => {
    let out = '';
    b.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    b.on('exit', (code) => reject(new Error(`second server exited ${code}: ${out}`)));
  });
});
after(async () => {
  const exited = new Promise((r) => b.once('exit', r));
  b.kill('SIGTERM');
  await exited;
  await a.close();
});

const on = (c: Client, url: string) => new Client(url, c.email, c.apiKey, c.userId);

test('a message sent through one process reaches a queue held by the other', async () => {
  const reader = await a.createUser({ name: 'Rita Remote' });
  await a.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'shared' }], principals: [a.owner.userId, reader.userId] });
  const remote = on(reader, bUrl);
  const reg = await remote.post('/register', { event_types: ['message'], fetch_event_types: ['message'] });
  assert.equal(reg.status, 200);
  const parked = remote.get('/events', { queue_id: reg.body.queue_id, last_event_id: -1 });
  const sent = await a.owner.post('/messages', { type: 'stream', to: 'shared', topic: 'across', content: 'over the bus' });
  const res = await parked;
  assert.equal(res.status, 200);
  assert.deepEqual(res.body.events.map((e: any) => e.message?.id), [sent.body.id]);
});

test('cache invalidations cross processes: a new name and a new key are seen at once', async () => {
  const user = await a.createUser({ name: 'Old Name' });
  const remote = on(user, bUrl);
  assert.equal((await remote.get('/users/me')).body.full_name, 'Old Name');
  assert.equal((await user.patch('/settings', { full_name: 'New Name' })).status, 200);
  let name = '';
  for (let i = 0; i < 20 && name !== 'New Name'; i++) {
    name = (await remote.get('/users/me')).body.full_name;
    if (name !== 'New Name') await new Promise((r) => setTimeout(r, 50));
  }
  assert.equal(name, 'New Name');
  const key = (await user.post('/users/me/api_key/regenerate')).body.api_key;
  let status = 0;
  for (let i = 0; i < 20 && status !== 401; i++) {
    status = (await remote.get('/users/me')).status;
    if (status !== 401) await new Promise((r) => setTimeout(r, 50));
  }
  assert.equal(status, 401, 'the old key stops working on the other process too');
  assert.equal((await new Client(bUrl, user.email, key, user.userId).get('/users/me')).status, 200);
});

test('rate limits are counted across processes', async () => {
  const user = await a.createUser({ name: 'Busy Bee' });
  const remote = on(user, bUrl);
  for (let i = 0; i < 4; i++) assert.equal((await user.get('/users/me')).status, 200);
  for (let i = 0; i < 4; i++) assert.equal((await remote.get('/users/me')).status, 200);
  assert.equal((await user.get('/users/me')).status, 429);
  assert.equal((await remote.get('/users/me')).status, 429);
});

test('users and a channel group written without any invalidation are found by the other process at once', async () => {
  // The other process has the organization's users and groups cached ...
  const admin = await a.createUser({ name: 'Ada Admin', role: 'administrator' });
  const remoteAdmin = on(admin, bUrl);
  const note = await remoteAdmin.post('/messages', { type: 'direct', to: JSON.stringify([admin.userId]), content: 'note to self' });
  assert.equal(note.status, 200, JSON.stringify(note.body));
  // ... when users, a channel and a group are written with no invalidation sent (as if Redis had
  // not delivered it yet). Each lookup gets its own user: one found joins the cache, which would
  // hide whether the next way of naming a user reads through.
  const { database } = a.server.services;
  const silentUser = async (name: string) => {
    const email = `${name.replace(' ', '.')}@example.com`;
    const made = await database.transaction((tx) => insertAccount(tx, { realmId: a.realmId, email, fullName: name, role: ROLE.member, passwordHash: null, now: nowSeconds() }));
    return on(new Client(a.url, made.email, made.api_key, made.id), bUrl);
  };
  const streamId = await channel(database, a.realmId, 'silent', admin.userId);
  await channel(database, a.realmId, 'open silent', admin.userId);
  const group = await database.transaction((tx) => insertAnonymousGroup(tx, a.realmId, [admin.userId], [], nowSeconds()));
  await database.transaction((tx) => updateStream(tx, streamId, { can_send_message_group: group }));

  const viewed = await silentUser('Vera Viewed');
  assert.equal((await remoteAdmin.get(`/users/${viewed.userId}`)).body.user?.full_name, 'Vera Viewed');
  const byId = await silentUser('Ian Byid');
  const subscribedById = await remoteAdmin.post('/users/me/subscriptions', { subscriptions: [{ name: 'lagging' }], principals: [admin.userId, byId.userId] });
  assert.equal(subscribedById.status, 200, JSON.stringify(subscribedById.body));
  const byEmail = await silentUser('Emma Byemail');
  const subscribedByEmail = await remoteAdmin.post('/users/me/subscriptions', { subscriptions: [{ name: 'lagging too' }], principals: [byEmail.email.toUpperCase()] });
  assert.equal(subscribedByEmail.status, 200, JSON.stringify(subscribedByEmail.body));
  const written = await silentUser('Walt Written');
  const dm = await remoteAdmin.post('/messages', { type: 'direct', to: JSON.stringify([written.userId]), content: 'welcome' });
  assert.equal(dm.status, 200, JSON.stringify(dm.body));
  // A new user authenticates and posts where everyone may (which needs their system groups).
  const poster = await silentUser('Paul Poster');
  assert.equal((await poster.get('/users/me')).body.full_name, 'Paul Poster');
  const posted = await poster.post('/messages', { type: 'stream', to: 'open silent', topic: 'hello', content: 'here' });
  assert.equal(posted.status, 200, JSON.stringify(posted.body));
  // A message the first process took from a user the other has not heard of: the other names its sender.
  const sender = await silentUser('Sid Sender');
  const fromA = await new Client(a.url, sender.email, sender.apiKey, sender.userId).post('/messages', { type: 'stream', to: 'open silent', topic: 'hi', content: 'from a' });
  assert.equal(fromA.status, 200, JSON.stringify(fromA.body));
  const read = await viewed.get('/messages', { anchor: fromA.body.id, num_before: 0, num_after: 0, narrow: JSON.stringify([{ operator: 'channel', operand: 'open silent' }]) });
  assert.deepEqual(read.body.messages.map((m: any) => [m.id, m.sender_full_name]), [[fromA.body.id, 'Sid Sender']]);
  // A channel whose posting group is new to the other process.
  const sent = await remoteAdmin.post('/messages', { type: 'stream', to: 'silent', topic: 'hello', content: 'here' });
  assert.equal(sent.status, 200, JSON.stringify(sent.body));
  // A named group new to the other process, asked for by id.
  const nobody = (await getSystemGroupIds(database.db, a.realmId))['role:nobody'];
  const settings = { can_add_members_group: nobody, can_join_group: nobody, can_leave_group: nobody, can_manage_group: nobody, can_mention_group: nobody, can_remove_members_group: nobody };
  const named = await database.transaction((tx) => insertNamedGroup(tx, a.realmId, { name: 'silent group', description: '', creatorId: admin.userId, now: nowSeconds(), settings, members: [admin.userId], subgroups: [] }));
  const members = await viewed.get(`/user_groups/${named}/members`);
  assert.deepEqual(members.body.members, [admin.userId], JSON.stringify(members.body));
  // An id nobody has is still refused.
  const garbage = await remoteAdmin.post('/users/me/subscriptions', { subscriptions: [{ name: 'lagging' }], principals: [987654321] });
  assert.equal(garbage.status, 400);
  assert.equal(garbage.body.msg, 'No such user');
});

test('the cached muters and alert words of a send follow a change made through the other process', async () => {
  // Few requests per account: the rate limit (8 a minute) counts across both processes.
  const listener = await a.createUser({ name: 'Lena Listener' });
  const talker = await a.createUser({ name: 'Theo Talker' });
  const remoteTalker = on(talker, bUrl);
  const dm = async () => {
    const res = await remoteTalker.post('/messages', { type: 'direct', to: JSON.stringify([listener.userId]), content: 'a kestrel overhead' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return (await listener.get(`/messages/${res.body.id}`)).body.message.flags as string[];
  };
  /** Sends until the flags are as expected: the invalidation reaches the other process a moment after the commit. */
  const until = async (expected: string[]) => {
    let got: string[] = [];
    for (let i = 0; i < 3 && got.join() !== expected.join(); i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, 100));
      got = await dm();
    }
    assert.deepEqual(got, expected);
  };
  // The other process reads (and caches) the talker's muters and the organization's alert words ...
  assert.deepEqual(await dm(), []);
  // ... then the listener mutes the talker, and adds an alert word, through this one.
  assert.equal((await listener.post(`/users/me/muted_users/${talker.userId}`)).status, 200);
  assert.equal((await listener.post('/users/me/alert_words', { alert_words: ['kestrel'] })).status, 200);
  await until(['read', 'has_alert_word']);
});
