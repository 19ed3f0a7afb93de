// A process stopped with SIGTERM (a rolling restart behind a balancer): /health fails at once while
// every other request is still served for CONFAB_DRAIN_SECONDS, queues keep receiving events
// meanwhile, then parked long-polls are answered and the process exits cleanly.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client, startTestServer, type TestServer } from './helpers.js';
import { spawnServer, type ChildServer } from './spawn.js';

let t: TestServer;
let child: ChildServer;

before(async () => {
  t = await startTestServer();
  child = await spawnServer(t, { CONFAB_DRAIN_SECONDS: '2' });
});

after(async () => {
  await child.stop('SIGKILL');
  await t.close();
});

test('SIGTERM: health fails, requests and queues keep working through the drain, then polls are answered and the process exits', async () => {
  const reader = await t.createUser({ name: 'Dana Drain' });
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'draining' }], principals: [t.owner.userId, reader.userId] });
  const onChild = (c: Client) => new Client(child.url, c.email, c.apiKey, c.userId);
  const reg = await onChild(reader).post('/register', { event_types: ['message'] });
  assert.equal(reg.status, 200);
  const queueId = reg.body.queue_id as string;
  assert.equal((await fetch(`${child.url}/health`)).status, 200);

  const exitCode = new Promise<number | null>((r) => child.child.once('exit', (code) => r(code)));
  const stoppedAt = Date.now();
  child.child.kill('SIGTERM');
  // The balancer's signal: /health fails within moments.
  let health = 200;
  for (let i = 0; i < 50 && health === 200; i++) {
    await new Promise((r) => setTimeout(r, 20));
    health = (await fetch(`${child.url}/health`)).status;
  }
  assert.equal(health, 503);
  const body = (await (await fetch(`${child.url}/health`)).json()) as { code: string };
  assert.equal(body.code, 'SERVER_DRAINING');

  // Still draining: other requests are served, and the queue still gets its events.
  const me = await onChild(reader).get('/users/me');
  assert.equal(me.status, 200);
  const parked = onChild(reader).get('/events', { queue_id: queueId, last_event_id: -1 });
  const sent = await onChild(t.owner).post('/messages', { type: 'stream', to: 'draining', topic: 'bye', content: 'sent while draining' });
  assert.equal(sent.status, 200);
  const got = await parked;
  assert.equal(got.status, 200);
  assert.deepEqual(got.body.events.map((e: any) => e.message?.id), [sent.body.id]);
  const lastId = got.body.events.at(-1).id as number;

  // A poll parked when the drain ends is answered (not cut off), and the process exits with 0.
  const last = await onChild(reader).get('/events', { queue_id: queueId, last_event_id: lastId });
  assert.equal(last.status, 200);
  assert.deepEqual(last.body.events, []);
  assert.ok(Date.now() - stoppedAt >= 1900, `the drain lasted ${Date.now() - stoppedAt} ms`);
  assert.equal(await exitCode, 0);
  // The message sent during the drain is stored.
  const stored = await t.owner.get(`/messages/${sent.body.id}`);
  assert.equal(stored.status, 200);
});

test('SIGTERM: while the balancer keeps sending requests, the drain goes on (up to three drain periods), serving every one', async () => {
  const busy = await spawnServer(t, { CONFAB_DRAIN_SECONDS: '1' });
  try {
    const client = new Client(busy.url, t.owner.email, t.owner.apiKey, t.owner.userId);
    let exitedAt = 0;
    const exited = new Promise<void>((r) => busy.child.once('exit', () => r((exitedAt = Date.now()) as unknown as void)));
    const stoppedAt = Date.now();
    busy.child.kill('SIGTERM');
    // Requests every 100 ms for 2 s: past the 1 s drain, and every one served.
    while (Date.now() - stoppedAt < 2000) {
      const res = await client.get('/users/me').catch((err: Error) => {
        throw new Error(`request ${Date.now() - stoppedAt} ms after SIGTERM failed: ${String((err as { cause?: unknown }).cause ?? err)}`);
      });
      assert.equal(res.status, 200);
      await new Promise((r) => setTimeout(r, 100));
    }
    const quietFrom = Date.now();
    await exited;
    assert.ok(exitedAt - stoppedAt >= 2000, `served through the busy period (${exitedAt - stoppedAt} ms)`);
    // Once requests stop, it closes about a second later (and never after three drain periods).
    assert.ok(exitedAt - quietFrom < 2500, `closed ${exitedAt - quietFrom} ms after the last request`);
  } finally {
    await busy.stop('SIGKILL');
  }
});

test('SIGTERM with Redis: a poll the stopping process relays to another process’s queue is answered, and the queue lives on', async () => {
  const REDIS_URL = process.env.CONFAB_TEST_REDIS_URL || 'redis://127.0.0.1:6379';
  const prefix = `confab-graceful-${process.pid}`;
  const home = await startTestServer({ redis: { url: REDIS_URL, prefix } });
  const relay = await spawnServer(home, { CONFAB_REDIS_URL: REDIS_URL, CONFAB_REDIS_PREFIX: prefix, CONFAB_DRAIN_SECONDS: '1' });
  try {
    const reader = await home.createUser({ name: 'Rory Relay' });
    // The reader joins once the channel (and its channel-created message) exists, untold: no
    // message is on its way through Redis to the queue registered next.
    await home.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'relayed' }] });
    await home.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'relayed' }], principals: [reader.userId], send_new_subscription_messages: false });
    const reg = await reader.post('/register', { event_types: ['message'] });
    const queueId = reg.body.queue_id as string;
    // Parked through the relay, which forwards it to the queue's home (the in-process server).
    const viaRelay = new Client(relay.url, reader.email, reader.apiKey, reader.userId);
    const parked = viaRelay.get('/events', { queue_id: queueId, last_event_id: -1 });
    await new Promise((r) => setTimeout(r, 300));
    const stoppedAt = Date.now();
    const exited = new Promise<void>((r) => relay.child.once('exit', () => r()));
    relay.child.kill('SIGTERM');
    const answered = await parked;
    assert.equal(answered.status, 200);
    assert.equal(answered.body.queue_id, queueId);
    assert.deepEqual(answered.body.events, []);
    await exited;
    // Well before the 50 s heartbeat the relayed poll would otherwise have waited for.
    assert.ok(Date.now() - stoppedAt < 10_000, `stopped after ${Date.now() - stoppedAt} ms`);
    // The queue, at its home, still gets its events.
    const sent = await home.owner.post('/messages', { type: 'stream', to: 'relayed', topic: 't', content: 'after the relay stopped' });
    const next = await reader.get('/events', { queue_id: queueId, last_event_id: -1 });
    assert.equal(next.status, 200);
    assert.deepEqual(next.body.events.map((e: any) => e.message?.id), [sent.body.id]);
  } finally {
    await relay.stop('SIGKILL');
    await home.close();
  }
});
