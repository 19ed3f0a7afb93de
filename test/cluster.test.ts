// Three processes on one database, joined by Redis, behind HAProxy in round robin (the sample
// configuration in docs/haproxy.cfg): any process answers any request, long-polls included, every
// event reaches its queue once and in order, and when a queue's process is killed its client is
// told BAD_EVENT_QUEUE_ID and registers again through the balancer.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { Client, startTestServer, type TestServer } from './helpers.js';

const REDIS_URL = process.env.CONFAB_TEST_REDIS_URL || 'redis://127.0.0.1:6379';
const prefix = `confab-cluster-${randomBytes(4).toString('hex')}`;
const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const haproxyFound = spawnSync('haproxy', ['-v']).status === 0;
// CI installs HAProxy and sets this; a developer machine without it skips the balancer tests.
const requireHaproxy = process.env.CONFAB_REQUIRE_HAPROXY === '1';
if (requireHaproxy && !haproxyFound) throw new Error('HAProxy is required (CONFAB_REQUIRE_HAPROXY=1) but `haproxy` was not found');

// Rate limits on (shared through Redis), high enough that only the test that reads them notices.
const LIMITS = { user: { limit: 10_000, windowSeconds: 60 }, anonymous: { limit: 10_000, windowSeconds: 60 }, password: { limit: 1_000, windowSeconds: 1800 } };
const LIMITS_ENV = 'user=10000/60,anonymous=10000/60,password=1000/1800';

let a: TestServer;
const children: ChildProcess[] = [];
const childUrls: string[] = [];
let balancer: ChildProcess | undefined;
let balancerUrl = '';
let workDir = '';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

function spawnProcess(databaseUrl: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [join(repo, 'bin', 'confab.js'), 'serve'], {
    env: { ...process.env, CONFAB_DATABASE_URL: databaseUrl, CONFAB_PORT: '0', CONFAB_HOST: '127.0.0.1', CONFAB_REDIS_URL: REDIS_URL, CONFAB_REDIS_PREFIX: prefix, CONFAB_RATE_LIMITS: LIMITS_ENV },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve({ child, url: m[1]! });
    });
    child.once('exit', (code) => reject(new Error(`server exited ${code}: ${out}`)));
  });
}

async function waitFor(check: () => Promise<boolean>, what: string, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/**
 * A GET (idempotent) sent again when its connection broke before any answer ('fetch failed'), as
 * a client does: killing a process can close the balancer's kept-alive client connection just as
 * the next request reuses it (seen once under load). An HTTP answer, any status, is returned as is.
 */
async function retryIfConnectionBroke<T>(get: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await get();
    } catch (err) {
      if (attempt >= 3 || !(err instanceof TypeError)) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

before(async () => {
  a = await startTestServer({ redis: { url: REDIS_URL, prefix }, rateLimits: LIMITS });
  for (let i = 0; i < 2; i++) {
    const { child, url } = await spawnProcess(a.databaseUrl);
    children.push(child);
    childUrls.push(url);
  }
  if (!haproxyFound) return;
  workDir = mkdtempSync(join(tmpdir(), 'confab-haproxy-'));
  const port = await freePort();
  const servers = [a.url, ...childUrls].map((u, i) => `    server confab${i + 1} ${new URL(u).host}`).join('\n');
  // The documented sample, with this test's ports.
  const cfg = readFileSync(join(repo, 'docs', 'haproxy.cfg'), 'utf8')
    .replace(/bind 127\.0\.0\.1:\d+/, `bind 127.0.0.1:${port}`)
    .replace(/(    server confab\d 127\.0\.0\.1:\d+\n?)+/, `${servers}\n`);
  assert.match(cfg, new RegExp(`bind 127.0.0.1:${port}`));
  writeFileSync(join(workDir, 'haproxy.cfg'), cfg);
  balancer = spawn('haproxy', ['-db', '-f', join(workDir, 'haproxy.cfg')], { stdio: ['ignore', 'ignore', 'inherit'] });
  balancerUrl = `http://127.0.0.1:${port}`;
  await waitFor(async () => (await fetch(`${balancerUrl}/health`)).status === 200, 'HAProxy');
});

after(async () => {
  balancer?.kill('SIGKILL');
  for (const c of children) {
    if (c.exitCode !== null || c.signalCode !== null) continue;
    const exited = new Promise((r) => c.once('exit', r));
    c.kill('SIGTERM');
    await exited;
  }
  await a.close();
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

const on = (c: Client, url: string) => new Client(url, c.email, c.apiKey, c.userId);

test('a long-poll sent to a process other than the queue’s is answered by the queue’s process', async () => {
  const reader = await a.createUser({ name: 'Fern Forwarded' });
  await a.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'forwarding' }], principals: [a.owner.userId, reader.userId] });
  const reg = await on(reader, childUrls[0]!).post('/register', { event_types: ['message'], fetch_event_types: ['message'] });
  assert.equal(reg.status, 200);
  const queueId = reg.body.queue_id as string;
  // Parked on the in-process server, which does not hold the queue.
  const parked = on(reader, a.url).get('/events', { queue_id: queueId, last_event_id: -1 });
  await new Promise((r) => setTimeout(r, 200));
  const sent = await on(a.owner, childUrls[1]!).post('/messages', { type: 'stream', to: 'forwarding', topic: 't', content: 'through a third process' });
  const res = await parked;
  assert.equal(res.status, 200);
  assert.equal(res.body.queue_id, queueId);
  assert.deepEqual(res.body.events.map((e: any) => e.message?.id), [sent.body.id]);
  // Deleting the queue works from anywhere too; afterwards every process says it is gone.
  assert.equal((await on(reader, a.url).delete('/events', { queue_id: queueId })).status, 200);
  const gone = await on(reader, childUrls[1]!).get('/events', { queue_id: queueId, last_event_id: -1, dont_block: 'true' });
  assert.equal(gone.status, 400);
  assert.equal(gone.body.code, 'BAD_EVENT_QUEUE_ID');
});

test('another user cannot read a queue through a forwarding process', async () => {
  const owner = await a.createUser({ name: 'Queue Owner' });
  const other = await a.createUser({ name: 'Queue Snoop' });
  const reg = await on(owner, childUrls[0]!).post('/register', { event_types: ['message'] });
  const res = await on(other, a.url).get('/events', { queue_id: reg.body.queue_id, last_event_id: -1, dont_block: 'true' });
  assert.equal(res.status, 400);
  assert.equal(res.body.code, 'BAD_EVENT_QUEUE_ID');
});

/** The status of a dont_block poll that claims to be forwarded: only the process holding the queue answers 200. */
async function fetchWithForgedHeader(c: Client, url: string, queueId: string, last: number): Promise<number> {
  const qs = new URLSearchParams({ queue_id: queueId, last_event_id: String(last), dont_block: 'true' });
  const res = await fetch(`${url}/api/v1/events?${qs}`, {
    headers: { Authorization: 'Basic ' + Buffer.from(`${c.email}:${c.apiKey}`).toString('base64'), 'x-confab-forwarded': '1' },
  });
  await res.arrayBuffer();
  return res.status;
}

/** A dont_block poll sent with fetch, for its rate-limit headers; `extra` adds request headers. */
async function pollRemaining(c: Client, url: string, queueId: string, extra: Record<string, string> = {}): Promise<number> {
  const qs = new URLSearchParams({ queue_id: queueId, last_event_id: '-1', dont_block: 'true' });
  const res = await fetch(`${url}/api/v1/events?${qs}`, {
    headers: { Authorization: 'Basic ' + Buffer.from(`${c.email}:${c.apiKey}`).toString('base64'), ...extra },
  });
  assert.equal(res.status, 200, await res.clone().text());
  const remaining = res.headers.get('x-ratelimit-remaining');
  assert.ok(remaining !== null, 'rate limits are on');
  return Number(remaining);
}

test('a poll relayed to its queue’s process counts once against the rate limit, and a client cannot claim to be a peer', async () => {
  const poller = await a.createUser({ name: 'Rory Ratelimit' });
  const reg = await on(poller, childUrls[0]!).post('/register', { event_types: ['message'] });
  const queueId = reg.body.queue_id as string;
  // A queue of the in-process server's own, which never moves, for the forged header.
  const local = (await on(poller, a.url).post('/register', { event_types: ['message'] })).body.queue_id as string;
  // The first poll at the in-process server moves the queue there; for the next few seconds polls
  // at child 0 are relayed to it (or, later, move it back: counted once too). Then straight to the
  // queue's process with a forged forwarding header: each request one hit (a relayed one was two).
  // A reading that rises means the limiter's window started over between two requests: measure again.
  await pollRemaining(poller, a.url, queueId);
  for (let attempt = 0; ; attempt++) {
    const relayed = [await pollRemaining(poller, childUrls[0]!, queueId), await pollRemaining(poller, childUrls[0]!, queueId)];
    const forged = [
      await pollRemaining(poller, a.url, local, { 'x-confab-forwarded': '1' }),
      await pollRemaining(poller, a.url, local, { 'x-confab-forwarded': '1' }),
    ];
    const readings = [...relayed, ...forged];
    if (attempt < 2 && readings.some((r, i) => i > 0 && r > readings[i - 1]!)) continue;
    assert.deepEqual(readings.map((r) => readings[0]! - r), [0, 1, 2, 3]);
    break;
  }
});

test('health: 200 from every process', async () => {
  for (const url of [a.url, ...childUrls]) {
    const res = await fetch(`${url}/health`);
    assert.equal(res.status, 200);
    assert.equal(((await res.json()) as { result: string }).result, 'success');
  }
});

test('behind round-robin HAProxy: every event once and in order, and a killed process’s clients re-register', { skip: !haproxyFound && 'haproxy is not installed' }, async () => {
  const reader = await a.createUser({ name: 'Rhea Roundrobin' });
  const lbReader = on(reader, balancerUrl);
  const lbOwner = on(a.owner, balancerUrl);
  // The reader was made in one process; the others hear of it through Redis a moment later, and
  // the subscription may land in one of them before that: it must find the user all the same.
  const created = await lbOwner.post('/users/me/subscriptions', { subscriptions: [{ name: 'balanced' }], principals: [a.owner.userId, reader.userId] });
  assert.equal(created.status, 200, JSON.stringify(created.body));

  // Registers (through the balancer) until the queue lives in a spawned process, which the test
  // can kill; round robin gets there within three tries.
  const redis = new Redis(REDIS_URL);
  let queueId = '';
  let home = '';
  for (let i = 0; i < 6 && !home; i++) {
    const reg = await lbReader.post('/register', { event_types: ['message'], fetch_event_types: ['message'] });
    assert.equal(reg.status, 200);
    const node = /^([0-9a-f]{16})-/.exec(reg.body.queue_id)?.[1];
    assert.ok(node, `clustered queue ids name their process: ${reg.body.queue_id}`);
    // The announcement is "<peer token> <node id> <internal address>".
    const url = (await redis.get(`${prefix}:node:${node}`))?.split(' ')[2];
    if (url && childUrls.includes(url)) {
      queueId = reg.body.queue_id;
      home = url;
    }
  }
  await redis.quit();
  assert.ok(home, 'a queue in a spawned process');

  // 30 messages sent through the balancer while the reader polls through it.
  const sentIds: number[] = [];
  const sending = (async () => {
    for (let i = 0; i < 30; i++) {
      const r = await lbOwner.post('/messages', { type: 'stream', to: 'balanced', topic: 'rr', content: `m${i}` });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      sentIds.push(r.body.id);
    }
  })();
  const received: number[] = [];
  let last = -1;
  let polls = 0;
  while (received.length < 30) {
    assert.ok(polls++ < 200, 'the reader receives all 30 messages');
    const res = await lbReader.get('/events', { queue_id: queueId, last_event_id: last });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    for (const e of res.body.events) {
      last = Math.max(last, e.id);
      if (e.type === 'message') received.push(e.message.id);
    }
  }
  await sending;
  assert.deepEqual(received, sentIds, 'every message once, in order');
  assert.ok(polls >= 2);

  // The queue moved to the processes its polls reached (http/queue_move.ts). Polls at child 0
  // bring it there (once it has stayed a few seconds where it went last); a poll with a forged
  // forwarding header is answered only where the queue is, never moved or relayed.
  const probe = (url: string) => on(reader, url).get('/events', { queue_id: queueId, last_event_id: last, dont_block: 'true' });
  await waitFor(async () => (await probe(childUrls[0]!)).status === 200 && (await fetchWithForgedHeader(reader, childUrls[0]!, queueId, last)) === 200, 'the queue at child 0', 20_000);
  home = childUrls[0]!;
  // The queue's process dies outright: the next poll, wherever it lands, says the queue is gone.
  const victim = children[childUrls.indexOf(home)]!;
  const exited = new Promise((r) => victim.once('exit', r));
  victim.kill('SIGKILL');
  await exited;
  let lost = await retryIfConnectionBroke(() => lbReader.get('/events', { queue_id: queueId, last_event_id: last, dont_block: 'true' }));
  // A poll relayed to a process that moved the queue to the dead one a moment ago is answered
  // with nothing (as when the queue has just moved on); the next ones are told it is gone.
  for (let i = 0; lost.status === 200 && i < 100; i++) {
    assert.deepEqual(lost.body.events, []);
    await new Promise((r) => setTimeout(r, 100));
    lost = await retryIfConnectionBroke(() => lbReader.get('/events', { queue_id: queueId, last_event_id: last, dont_block: 'true' }));
  }
  assert.equal(lost.status, 400);
  assert.equal(lost.body.code, 'BAD_EVENT_QUEUE_ID');

  // The client registers again through the balancer (HAProxy has, or soon has, dropped the dead
  // process) and catches up: the history is in the database, new events reach the new queue.
  let reg: any;
  await waitFor(async () => {
    reg = await lbReader.post('/register', { event_types: ['message'], fetch_event_types: ['message'] });
    return reg.status === 200;
  }, 're-registration through the balancer');
  const history = await retryIfConnectionBroke(() => lbReader.get('/messages', { anchor: 'newest', num_before: 40, num_after: 0, narrow: JSON.stringify([{ operator: 'channel', operand: 'balanced' }]) }));
  // The channel's first message is the Notification Bot's, saying who created it.
  assert.deepEqual(history.body.messages.map((m: any) => m.subject), ['channel events', ...sentIds.map(() => 'rr')]);
  assert.deepEqual(history.body.messages.slice(1).map((m: any) => m.id), sentIds);
  const after = await lbOwner.post('/messages', { type: 'stream', to: 'balanced', topic: 'rr', content: 'after the crash' });
  let got: number[] = [];
  let lastAfter = -1;
  await waitFor(async () => {
    const res = await lbReader.get('/events', { queue_id: reg.body.queue_id, last_event_id: lastAfter, dont_block: 'true' });
    if (res.status !== 200) return false;
    for (const e of res.body.events) lastAfter = Math.max(lastAfter, e.id);
    got = got.concat(res.body.events.filter((e: any) => e.type === 'message').map((e: any) => e.message.id));
    return got.length > 0;
  }, 'the message after the crash');
  assert.deepEqual(got, [after.body.id]);
});
