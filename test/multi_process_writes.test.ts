// Two server processes writing one database at the same time (joined by Redis): every write is
// answered 200 and every answered write is stored. On one SQLite file the two processes' writers
// take turns on its write lock; a write transaction that began deferred and read first could not
// take the lock once the other process had committed (SQLITE_BUSY at once, answered 500).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Client, startTestServer, type TestServer } from './helpers.js';
import { spawnServer, type ChildServer } from './spawn.js';

const REDIS_URL = process.env.CONFAB_TEST_REDIS_URL || 'redis://127.0.0.1:6379';
const prefix = `confab-writes-${randomBytes(4).toString('hex')}`;
const SENDS_PER_PROCESS = 100;
const IN_FLIGHT = 16;
const USERS = 5;
const SEEDS = 8;

let a: TestServer;
let b: ChildServer;
let bErrors = '';
before(async () => {
  a = await startTestServer({ redis: { url: REDIS_URL, prefix } });
  b = await spawnServer(a, { CONFAB_REDIS_URL: REDIS_URL, CONFAB_REDIS_PREFIX: prefix, CONFAB_DRAIN_SECONDS: '0' });
  b.child.stderr!.on('data', (d: Buffer) => (bErrors += d.toString()));
});
after(async () => {
  await b.stop();
  await a.close();
});

interface Job {
  what: string;
  run: () => Promise<{ status: number; body: any }>;
  /** Called with a 200 answer's body. */
  done?: (body: any) => void;
}

/** Runs the jobs with `inFlight` of them under way at any time; every answer must be 200. */
async function runAll(jobs: Job[], inFlight: number, failures: string[]): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const job = jobs[next++]!;
      const res = await job.run();
      if (res.status === 200) job.done?.(res.body);
      else failures.push(`${job.what}: ${res.status} ${JSON.stringify(res.body)}`);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
}

test('two processes writing at once: every send, reaction and flag change is answered 200 and stored', async () => {
  const users: Client[] = [a.owner];
  for (let i = 1; i < USERS; i++) users.push(await a.createUser({ name: `Writer ${i}` }));
  const ids = users.map((u) => u.userId);
  assert.equal((await a.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'busy' }], principals: ids })).status, 200);
  const seeds: number[] = [];
  for (let i = 0; i < SEEDS; i++) {
    const res = await a.owner.post('/messages', { type: 'stream', to: 'busy', topic: 'seeds', content: `seed ${i}` });
    assert.equal(res.status, 200);
    seeds.push(res.body.id);
  }

  const through = (c: Client, url: string) => new Client(url, c.email, c.apiKey, c.userId);
  const sent: number[] = [];
  const jobsFor = (url: string, seedHalf: number[], emoji: string): Job[] => {
    const jobs: Job[] = [];
    for (let i = 0; i < SENDS_PER_PROCESS; i++) {
      const user = through(users[i % USERS]!, url);
      jobs.push({
        what: `send ${i} by ${user.userId} through ${url}`,
        run: () => user.post('/messages', { type: 'stream', to: 'busy', topic: `topic ${i % 7}`, content: `message ${i} through ${url}` }),
        done: (body) => sent.push(body.id),
      });
      // Among the sends, each user reacts to and stars this process's half of the seeds.
      if (i % 5 === 0) {
        const k = i / 5;
        const reactor = through(users[k % USERS]!, url);
        const seed = seedHalf[Math.floor(k / USERS) % seedHalf.length]!;
        jobs.push({ what: `reaction by ${reactor.userId} on ${seed}`, run: () => reactor.post(`/messages/${seed}/reactions`, { emoji_name: emoji }) });
        jobs.push({ what: `star by ${reactor.userId} of ${seed}`, run: () => reactor.post('/messages/flags', { messages: [seed], op: 'add', flag: 'starred' }) });
      }
    }
    return jobs;
  };
  const half = SEEDS / 2;
  const failures: string[] = [];
  const jobsA = jobsFor(a.url, seeds.slice(0, half), 'octopus');
  const jobsB = jobsFor(b.url, seeds.slice(half), 'tada');
  await Promise.all([runAll(jobsA, IN_FLIGHT, failures), runAll(jobsB, IN_FLIGHT, failures)]);
  assert.deepEqual(failures, [], `every write is answered 200 (second process's log: ${bErrors})`);
  assert.equal(sent.length, 2 * SENDS_PER_PROCESS);
  // Nor did the second process log a failure (a checkpoint, a background job).
  assert.doesNotMatch(bErrors, /error|fail/i);

  // The channel holds exactly the seeds and the answered sends, read through either process.
  for (const url of [a.url, b.url]) {
    const res = await through(a.owner, url).get('/messages', { anchor: 'newest', num_before: 1000, num_after: 0, narrow: JSON.stringify([{ operator: 'channel', operand: 'busy' }]) });
    assert.equal(res.status, 200);
    // (Less the notice of the channel's creation, from a system bot.)
    const ours = res.body.messages.filter((m: { sender_id: number }) => ids.includes(m.sender_id));
    const stored = ours.map((m: { id: number }) => m.id).sort((x: number, y: number) => x - y);
    assert.deepEqual(stored, [...seeds, ...sent].sort((x, y) => x - y));
    // Each seed carries the reactions made through its process, one per user (20 per process,
    // 5 users over 4 seeds), and every user starred it.
    const bySeed = new Map<number, any>(res.body.messages.map((m: any) => [m.id, m]));
    seeds.forEach((id, i) => {
      const m = bySeed.get(id);
      assert.deepEqual(
        m.reactions.map((r: { user_id: number; emoji_name: string }) => `${r.emoji_name}:${r.user_id}`).sort(),
        ids.map((u) => `${i < half ? 'octopus' : 'tada'}:${u}`).sort(),
        `reactions on seed ${i}`,
      );
    });
  }
  for (const user of users) {
    const starred = await user.get('/messages', { anchor: 'newest', num_before: 100, num_after: 0, narrow: JSON.stringify([{ operator: 'is', operand: 'starred' }]) });
    assert.deepEqual(starred.body.messages.map((m: { id: number }) => m.id), seeds, `${user.userId}'s stars`);
  }
});
