// Events over Redis when a connection drops mid-run (issue 15): a publish that fails is retried,
// and a queue that may have missed an event is dropped, so its client gets BAD_EVENT_QUEUE_ID and
// registers again; no queue ever shows a silent gap or a duplicate.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { openQueue, startTestServer, type TestServer } from './helpers.js';

const REDIS_URL = process.env.CONFAB_TEST_REDIS_URL || 'redis://127.0.0.1:6379';
const prefix = `confab-loss-${randomBytes(4).toString('hex')}`;

let t: TestServer;
let admin: Redis;
before(async () => {
  t = await startTestServer({ redis: { url: REDIS_URL, prefix } });
  admin = new Redis(REDIS_URL);
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'redis loss' }] });
});
after(async () => {
  await t.close();
  await admin.quit();
});

/** Kills this server's named bus connection (`pub` or `sub`); returns how many were killed. */
async function killConnection(which: 'pub' | 'sub'): Promise<number> {
  const list = String(await admin.client('LIST'));
  const ids = list
    .split('\n')
    .filter((line) => line.includes(` name=${prefix}-bus-${which} `))
    .map((line) => /\bid=(\d+)/.exec(line)![1]!);
  for (const id of ids) await admin.client('KILL', 'ID', id);
  return ids.length;
}

const send = (i: number) => t.owner.post('/messages', { type: 'stream', to: 'redis loss', topic: 'loss', content: `m${i}` });

/** Polls until `count` messages arrived or the queue is gone; returns the ids, or 'lost'. */
async function drain(queueId: string, count: number): Promise<number[] | 'lost'> {
  const ids: number[] = [];
  let last = -1;
  for (let round = 0; round < 100 && ids.length < count; round++) {
    const res = await t.owner.get('/events', { queue_id: queueId, last_event_id: last, dont_block: true });
    if (res.status === 400 && res.body.code === 'BAD_EVENT_QUEUE_ID') return 'lost';
    assert.equal(res.status, 200, JSON.stringify(res.body));
    for (const e of res.body.events) {
      last = Math.max(last, e.id);
      if (e.type === 'message') ids.push(e.message.id);
    }
    if (ids.length < count) await new Promise((r) => setTimeout(r, 100));
  }
  return ids;
}

test('the publisher connection killed during concurrent sends: every event arrives once and in order, or the queue is dropped', async () => {
  const queueId = await openQueue(t.owner, ['message']);
  const sends: Array<Promise<any>> = [];
  for (let i = 0; i < 40; i++) {
    sends.push(send(i));
    if (i === 15) assert.equal(await killConnection('pub'), 1);
  }
  const sent = (await Promise.all(sends)).map((r) => {
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body.id as number;
  });
  const got = await drain(queueId, sent.length);
  console.log(`# publisher killed: ${got === 'lost' ? 'queue dropped' : `${got.length} of ${sent.length} events`}`);
  // (On PostgreSQL concurrent sends commit, and so publish, in an order other than their ids'.)
  if (got !== 'lost') assert.deepEqual([...got].sort((a, b) => a - b), [...sent].sort((a, b) => a - b), 'no gap, no duplicate');
});

test('the subscriber connection killed: the queue that may have missed events is dropped; a new one works', async () => {
  const queueId = await openQueue(t.owner, ['message']);
  assert.equal(await killConnection('sub'), 1);
  for (let i = 0; i < 5; i++) assert.equal((await send(100 + i)).status, 200);
  assert.equal(await drain(queueId, 5), 'lost');
  // The client registers again (after the bus is back) and hears what follows.
  let again = '';
  for (let i = 0; i < 50; i++) {
    await new Promise((r) => setTimeout(r, 100));
    again = await openQueue(t.owner, ['message']);
    const probe = await send(200 + i);
    const got = await drain(again, 1);
    if (got !== 'lost' && got.includes(probe.body.id)) break;
    again = '';
  }
  assert.ok(again, 'a queue registered after the reconnection receives events');
});
