// A queue moves to the process where its poll arrives (http/queue_move.ts): registered on one
// process and polled on another, it is handed over and answered there, so it lives on when the
// process that registered it dies; events keep their ids and arrive once and in order, also those
// sent through either process while it moves; polls that reach the old process or a third one are
// still answered; and a process that stops gracefully after adopting a queue hands it on.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { Client, startTestServer, type TestServer } from './helpers.js';
import { spawnServer, type ChildServer } from './spawn.js';

const REDIS_URL = process.env.CONFAB_TEST_REDIS_URL || 'redis://127.0.0.1:6379';
const prefix = `confab-move-${randomBytes(4).toString('hex')}`;

let t: TestServer;
let env: Record<string, string>;
const spawned: ChildServer[] = [];

before(async () => {
  t = await startTestServer({ redis: { url: REDIS_URL, prefix } });
  env = { CONFAB_REDIS_URL: REDIS_URL, CONFAB_REDIS_PREFIX: prefix, CONFAB_DRAIN_SECONDS: '0' };
});

after(async () => {
  for (const s of spawned) await s.stop('SIGKILL');
  await t.close();
});

async function spawn(): Promise<ChildServer> {
  const s = await spawnServer(t, env);
  spawned.push(s);
  return s;
}

const on = (c: Client, url: string) => new Client(url, c.email, c.apiKey, c.userId);

/** A reader subscribed to a fresh channel with the owner, and a sender that posts to it. */
async function channelWithReader(name: string): Promise<{ reader: Client; send: (url: string, i: number) => Promise<number> }> {
  const reader = await t.createUser({ name: `Reader ${name}` });
  const sub = await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name }], principals: [t.owner.userId, reader.userId] });
  assert.equal(sub.status, 200, JSON.stringify(sub.body));
  const send = async (url: string, i: number) => {
    const r = await on(t.owner, url).post('/messages', { type: 'stream', to: name, topic: 'moving', content: `m${i}` });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body.id as number;
  };
  return { reader, send };
}

/**
 * Polls until `want` message events arrived, through the given processes in turn; fails on any
 * error answer. Event ids must follow one another without a gap: nothing lost, nothing twice.
 */
async function receive(c: Client, urls: string[], queueId: string, want: number, last: { id: number }, fallback?: string): Promise<number[]> {
  const got: number[] = [];
  for (let polls = 0; got.length < want; polls++) {
    assert.ok(polls < 400, `received ${got.length} of ${want} messages`);
    let res;
    try {
      res = await on(c, urls[polls % urls.length]!).get('/events', { queue_id: queueId, last_event_id: last.id });
    } catch (err) {
      // The process stopped listening: as a client behind a balancer, poll another one from now on.
      if (!fallback || !(err instanceof TypeError)) throw err;
      urls = [fallback];
      continue;
    }
    assert.equal(res.status, 200, `poll ${polls}: ${JSON.stringify(res.body)}`);
    assert.equal(res.body.queue_id, queueId);
    for (const e of res.body.events) {
      assert.equal(e.id, last.id + 1, `event ids follow one another: ${e.id} after ${last.id}`);
      last.id = e.id;
      if (e.type === 'message') got.push(e.message.id);
    }
  }
  return got;
}

/**
 * A queue that never moves (registered and polled on the in-process server alone): messages sent
 * through different processes reach every queue in the bus's order, which need not be the order
 * the sends were answered in, so this queue's order is the one a moving queue must match.
 */
async function reference(reader: Client): Promise<{ id: string; last: { id: number } }> {
  const reg = await on(reader, t.url).post('/register', { event_types: ['message'] });
  assert.equal(reg.status, 200);
  return { id: reg.body.queue_id as string, last: { id: -1 } };
}

const sorted = (ids: number[]) => [...ids].sort((x, y) => x - y);

test('a queue registered on A and polled on B moves to B, and outlives A killed outright', async () => {
  const a = await spawn();
  const b = await spawn();
  const { reader, send } = await channelWithReader('moved-kill');
  const reg = await on(reader, a.url).post('/register', { event_types: ['message'] });
  assert.equal(reg.status, 200);
  const queueId = reg.body.queue_id as string;
  const sent = [await send(a.url, 0)];

  // The first poll through B: answered (by B, which now holds the queue) with the unread message.
  const last = { id: -1 };
  assert.deepEqual(await receive(reader, [b.url], queueId, 1, last), sent);
  // A parked poll on B, answered by a message sent through A.
  const parked = on(reader, b.url).get('/events', { queue_id: queueId, last_event_id: last.id });
  await new Promise((r) => setTimeout(r, 100));
  sent.push(await send(a.url, 1));
  const res = await parked;
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual(res.body.events.map((e: any) => e.message.id), [sent[1]]);
  last.id = res.body.events.at(-1).id;

  await a.stop('SIGKILL');
  // The queue lives on in B: every message sent through B arrives once and in order.
  const after: number[] = [];
  for (let i = 2; i < 12; i++) after.push(await send(b.url, i));
  assert.deepEqual(await receive(reader, [b.url], queueId, after.length, last), after);
  const more = await on(reader, b.url).get('/events', { queue_id: queueId, last_event_id: last.id, dont_block: 'true' });
  assert.equal(more.status, 200);
  assert.deepEqual(more.body.events, []);
  // A third process finds it too, though the process its id names is gone: it asks the others.
  after.push(await send(t.url, 12));
  assert.deepEqual(await receive(reader, [t.url, b.url], queueId, 1, last), [after.at(-1)]);
});

test('messages sent through both processes while the queue moves: every event once, in order, ids continuing', async () => {
  const a = await spawn();
  const b = await spawn();
  const { reader, send } = await channelWithReader('moved-busy');
  const reg = await on(reader, a.url).post('/register', { event_types: ['message'] });
  const queueId = reg.body.queue_id as string;
  const ref = await reference(reader);

  // Read on A first, so the ids after the move must continue these.
  const sent: number[] = [];
  for (let i = 0; i < 3; i++) sent.push(await send(i % 2 ? b.url : a.url, i));
  const last = { id: -1 };
  const before = await receive(reader, [a.url], queueId, 3, last);
  assert.deepEqual(sorted(before), sorted(sent));

  // Messages keep coming through both processes while the reader moves its queue to B by polling
  // there (and keeps polling there, now locally).
  const sending = (async () => {
    for (let i = 3; i < 60; i++) sent.push(await send(i % 2 ? b.url : a.url, i));
  })();
  const got = await receive(reader, [b.url], queueId, 57, last);
  await sending;
  assert.deepEqual(sorted([...before, ...got]), sorted(sent), 'every message once');
  assert.deepEqual([...before, ...got], await receive(reader, [t.url], ref.id, 60, ref.last), 'in the bus’s order');
  // Everything is read; B holds the queue and nothing more comes.
  const more = await on(reader, b.url).get('/events', { queue_id: queueId, last_event_id: last.id, dont_block: 'true' });
  assert.deepEqual(more.body.events, []);
  await a.stop('SIGKILL');
  sent.push(await send(b.url, 60));
  assert.deepEqual(await receive(reader, [b.url], queueId, 1, last), [sent.at(-1)]);
});

test('after the move, polls at the old process and at a third one are answered, and DELETE works from anywhere', async () => {
  const a = await spawn();
  const b = await spawn();
  const c = t.url;
  const { reader, send } = await channelWithReader('moved-around');
  const reg = await on(reader, a.url).post('/register', { event_types: ['message'] });
  const queueId = reg.body.queue_id as string;
  const ref = await reference(reader);
  const last = { id: -1 };
  const sent = [await send(c, 0)];
  assert.deepEqual(await receive(reader, [b.url], queueId, 1, last), sent);

  // A parked poll at the old process, at once after the move: forwarded to B (or the queue moves back).
  const parkedAtA = on(reader, a.url).get('/events', { queue_id: queueId, last_event_id: last.id });
  await new Promise((r) => setTimeout(r, 100));
  sent.push(await send(b.url, 1));
  const res = await parkedAtA;
  assert.equal(res.status, 200, JSON.stringify(res.body));
  for (const e of res.body.events) {
    assert.equal(e.id, last.id + 1);
    last.id = e.id;
  }
  const got = res.body.events.map((e: any) => e.message.id);
  got.push(...(await receive(reader, [a.url], queueId, 1 - got.length, last)));
  assert.deepEqual(got, [sent[1]]);

  // A third process, with the polls going round all three.
  const more: number[] = [];
  for (let i = 2; i < 12; i++) more.push(await send([a.url, b.url, c][i % 3]!, i));
  const got2 = await receive(reader, [c, a.url, b.url], queueId, more.length, last);
  assert.deepEqual(sorted(got2), sorted(more), 'every message once');
  assert.deepEqual([...sent, ...got2], await receive(reader, [c], ref.id, 12, ref.last), 'in the bus’s order');

  // Deleted through the process that registered it, the queue is gone everywhere.
  const del = await on(reader, a.url).delete('/events', { queue_id: queueId });
  assert.equal(del.status, 200, JSON.stringify(del.body));
  for (const url of [a.url, b.url, c]) {
    const gone = await on(reader, url).get('/events', { queue_id: queueId, last_event_id: last.id, dont_block: 'true' });
    assert.equal(gone.status, 400, `${url}: ${JSON.stringify(gone.body)} (a ${a.url}, b ${b.url})`);
    assert.equal(gone.body.code, 'BAD_EVENT_QUEUE_ID');
  }
});

test('another user cannot take a queue by polling it at another process', async () => {
  const a = await spawn();
  const { reader } = await channelWithReader('moved-snoop');
  const snoop = await t.createUser({ name: 'Sam Snoop' });
  const reg = await on(reader, a.url).post('/register', { event_types: ['message'] });
  const res = await on(snoop, t.url).get('/events', { queue_id: reg.body.queue_id, last_event_id: -1, dont_block: 'true' });
  assert.equal(res.status, 400);
  assert.equal(res.body.code, 'BAD_EVENT_QUEUE_ID');
  // Still the reader's, where it was.
  const own = await on(reader, a.url).get('/events', { queue_id: reg.body.queue_id, last_event_id: -1, dont_block: 'true' });
  assert.equal(own.status, 200, JSON.stringify(own.body));
});

test('a process that stops gracefully after adopting a queue hands it on: the client keeps its queue', async () => {
  const a = await spawn();
  const b = await spawn();
  const { reader, send } = await channelWithReader('moved-stop');
  const reg = await on(reader, a.url).post('/register', { event_types: ['message'] });
  const queueId = reg.body.queue_id as string;
  const last = { id: -1 };
  const sent = [await send(t.url, 0)];
  assert.deepEqual(await receive(reader, [b.url], queueId, 1, last), sent);

  // The process that registered the queue dies: the queue is B's alone. Then B stops gracefully,
  // with messages still coming, and hands the queue on (to the in-process server, the one live
  // process left; A's stale announcement is tried and fails).
  await a.stop('SIGKILL');
  const exited = new Promise<number | null>((r) => b.child.once('exit', (code) => r(code)));
  const sending = (async () => {
    for (let i = 1; i < 20; i++) {
      if (i === 5) b.child.kill('SIGTERM');
      sent.push(await send(t.url, i));
      await new Promise((r) => setTimeout(r, 10));
    }
  })();
  const got = await receive(reader, [b.url], queueId, 19, last, t.url);
  await sending;
  assert.equal(await exited, 0, 'B exits cleanly');
  assert.deepEqual([sent[0], ...got], sent, 'every message once, in order');
  sent.push(await send(t.url, 20));
  assert.deepEqual(await receive(reader, [t.url], queueId, 1, last), [sent.at(-1)]);
});

test('after the process a queue moved to stops gracefully, polls at the process that registered it and at a third one find the adopter', async () => {
  const a = await spawn();
  const b = await spawn();
  const { reader, send } = await channelWithReader('moved-stop-alive');
  const reg = await on(reader, a.url).post('/register', { event_types: ['message'] });
  const queueId = reg.body.queue_id as string;
  const ref = await reference(reader);
  const last = { id: -1 };
  const sent = [await send(t.url, 0)];
  assert.deepEqual(await receive(reader, [b.url], queueId, 1, last), sent);
  // B hands its queues (this one among them) to A or to the in-process server, whichever it picks.
  await b.stop('SIGTERM');
  for (let i = 1; i < 7; i++) sent.push(await send(i % 2 ? a.url : t.url, i));
  const got = await receive(reader, [a.url, t.url], queueId, 6, last);
  assert.deepEqual(sorted(got), sorted(sent.slice(1)), 'every message once');
  assert.deepEqual([sent[0], ...got], await receive(reader, [t.url], ref.id, 7, ref.last), 'in the bus’s order');
});

test('no ping-pong: a client whose polls alternate between two processes does not move its queue on every poll', async () => {
  const a = await spawn();
  const b = await spawn();
  const { reader, send } = await channelWithReader('moved-alternating');
  const reg = await on(reader, a.url).post('/register', { event_types: ['message'] });
  const queueId = reg.body.queue_id as string;
  // Each move publishes one marker on the bus.
  const sub = new Redis(REDIS_URL);
  let moves = 0;
  sub.on('pmessage', (_p: string, _c: string, m: string) => {
    if (m.includes('"__handover"')) moves++;
  });
  await sub.psubscribe(`${prefix}*`);
  const sent: number[] = [];
  for (let i = 0; i < 6; i++) sent.push(await send(t.url, i));
  const last = { id: -1 };
  const got: number[] = [];
  // Twenty polls, every other one at each process; one message read per poll at most.
  for (let i = 0; i < 20; i++) {
    const res = await on(reader, i % 2 ? a.url : b.url).get('/events', { queue_id: queueId, last_event_id: last.id, dont_block: 'true' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const first = res.body.events[0];
    if (first) {
      assert.equal(first.id, last.id + 1);
      last.id = first.id;
      got.push(first.message.id);
    }
  }
  await sub.quit();
  assert.deepEqual(got, sent);
  // One move to B at the first poll; the next ones are forwarded while it stays there (a slow
  // machine may pass the hold and move it again once or twice, never on every poll).
  assert.ok(moves >= 1 && moves <= 5, `${moves} moves for 20 alternating polls`);
});

test('the move route exists only for peers', async () => {
  for (const headers of [{}, { 'x-confab-forwarded': '1' }] as Array<Record<string, string>>) {
    const res = await fetch(`${t.url}/internal/queue-move`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ queue_id: 'x', user_id: 1, to: '0123456789abcdef', move: true }),
    });
    assert.equal(res.status, 404);
    assert.equal(((await res.json()) as { code: string }).code, 'NOT_FOUND');
  }
});
