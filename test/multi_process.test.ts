// Several server processes on one database, joined by Redis: events, cache invalidations and rate
// limits cross from one process to the other.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { Client, startTestServer, type TestServer } from './helpers.js';

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
