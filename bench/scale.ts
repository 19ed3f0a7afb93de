// Growth figures (issue #18): the same measurement at a small and a ten-times-larger size, each on
// its own fresh database (SQLite, or PostgreSQL with --postgres) and its own server process, so the
// cost of growth shows side by side. Accounts and channels go straight through the store; the
// subscriptions and the long message history are written in bulk by the backend (scale_sqlite.ts,
// scale_pg.ts): 1,000,000 messages over HTTP would take far longer than the figures.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'node:http';
import { apiCall } from './api_call.js';
import { openDatabase } from '../src/store/db.js';
import { createOrganization } from '../src/actions/realms.js';
import { streamRecipientIds } from '../src/store/channels.js';
import { channel, users, type Account } from './seed.js';
import { sqliteBackend } from './scale_sqlite.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');

export interface ScaleSize {
  users: number;
  channels: number;
  messages: number;
  fanout: number;
}

export const SMALL: ScaleSize = { users: 1_000, channels: 200, messages: 100_000, fanout: 500 };
export const LARGE: ScaleSize = { users: 10_000, channels: 1_000, messages: 1_000_000, fanout: 5_000 };
const TOPICS = 100;

type Line = (name: string, value: string, floor?: string, ratio?: number) => void;

interface ScaleSeed {
  url: string;
  realmId: number;
  member: Account;
  owner: Account;
  historyChannelId: number;
  fanoutChannelName: string;
  fanoutMembers: Account[];
  everyone: Account[];
  seedSeconds: number;
}

/** What the store does not write (one row a query would take minutes): written in bulk by the backend. */
export interface BulkRows {
  realmId: number;
  /** Subscriptions, as parallel arrays of user and channel ids. */
  subUsers: number[];
  subStreams: number[];
  /** The history channel's messages, all from `senderId`, each with a flags row (read) for `readers`. */
  messages: number;
  topics: number;
  senderId: number;
  readers: number[];
  historyChannelId: number;
  historyRecipientId: number;
}

/** Where the growth figures are stored: each size gets a fresh database, dropped after it. */
export interface ScaleBackend {
  /** "SQLite" or "PostgreSQL", for the floors' labels. */
  readonly name: string;
  /** Creates an empty database for one size (`small`, `large`); returns its URL. */
  create(size: string): Promise<string>;
  bulkSeed(url: string, rows: BulkRows): Promise<void>;
  /** The topic narrow's query run directly, `runs` times; sorted timings in ms. */
  topicFloor(url: string, realmId: number, userId: number, streamId: number, topics: number, runs: number): Promise<number[]>;
  /** Milliseconds for one message and its `subscribers` flags rows, each committed on its own. */
  sendFloor(url: string, subscribers: number, runs: number): Promise<number>;
  /** CONFAB_BENCH_EXPLAIN=1: prints the plans of the measured queries on the seeded database. */
  explain?(url: string, realmId: number, userId: number, streamId: number): Promise<void>;
  drop(url: string): Promise<void>;
  /** Drops every database still there (an interrupted run). */
  dropAll(): Promise<void>;
}

export async function seedSize(backend: ScaleBackend, url: string, size: ScaleSize): Promise<ScaleSeed> {
  const started = performance.now();
  const database = await openDatabase(url);
  let seeded: Omit<ScaleSeed, 'seedSeconds' | 'url'>;
  let bulk: BulkRows;
  try {
    const org = await createOrganization(database, { name: 'Scale', ownerEmail: 'owner@scale.example.com', ownerPassword: 'bench-password-3' });
    const owner: Account = { email: org.email, api_key: org.api_key, id: org.user_id };
    const members = await users(database, org.realm_id, size.users - 1, 'user');
    const everyone = [owner.id, ...members.map((m) => m.id)];
    const member = members[0]!;
    const subUsers: number[] = [];
    const subStreams: number[] = [];
    const add = (streamId: number, userIds: number[]) => {
      for (const u of userIds) {
        subUsers.push(u);
        subStreams.push(streamId);
      }
    };
    // 50 subscribers a channel; the measured member is in every tenth channel, as in seed.ts.
    for (let c = 0; c < size.channels; c++) {
      const id = await channel(database, org.realm_id, `channel ${c}`, owner.id);
      const subs = everyone.filter((_, i) => (i + c) % Math.max(1, Math.floor(size.users / 50)) === 0);
      if (c % 10 === 0 && !subs.includes(member.id)) subs.push(member.id);
      add(id, subs);
    }
    const historyChannelId = await channel(database, org.realm_id, 'history', owner.id);
    add(historyChannelId, [owner.id, member.id]);
    const historyRecipientId = (await streamRecipientIds(database.db, [historyChannelId])).get(historyChannelId)!;
    const fanoutId = await channel(database, org.realm_id, 'fanout', owner.id);
    add(fanoutId, everyone.slice(0, size.fanout));
    seeded = { realmId: org.realm_id, member, owner, historyChannelId, fanoutChannelName: 'fanout', fanoutMembers: [owner, ...members].slice(0, size.fanout), everyone: [owner, ...members] };
    bulk = {
      realmId: org.realm_id,
      subUsers,
      subStreams,
      messages: size.messages,
      topics: TOPICS,
      senderId: owner.id,
      readers: [owner.id, member.id],
      historyChannelId,
      historyRecipientId,
    };
  } finally {
    await database.close();
  }
  await backend.bulkSeed(url, bulk);
  return { ...seeded, url, seedSeconds: (performance.now() - started) / 1000 };
}

const agent = new Agent({ keepAlive: true, maxSockets: 64 });
const basic = (a: Account) => 'Basic ' + Buffer.from(`${a.email}:${a.api_key}`).toString('base64');

function call(base: string, auth: string, method: string, path: string, params: Record<string, string>): Promise<{ status: number; body: any }> {
  return apiCall(agent, base, auth, method, path, params);
}

function startServer(url: string): Promise<{ child: ChildProcess; base: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(root, 'bin/confab.js'), 'serve'], {
      env: { ...process.env, CONFAB_DATABASE_URL: url, CONFAB_PORT: '0', CONFAB_HOST: '127.0.0.1', CONFAB_RATE_LIMITS: 'off' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    const timer = setTimeout(() => reject(new Error(`server did not start: ${out}`)), 60_000);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/[^\s]+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, base: m[1]! });
      }
    });
    child.on('exit', (code) => reject(new Error(`server exited with ${code}: ${out}`)));
  });
}

async function stopServer(child: ChildProcess) {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

async function timed(n: number, fn: (i: number) => Promise<void>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn(i);
    out.push(performance.now() - t0);
  }
  return out.sort((a, b) => a - b);
}

function rssMb(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
}

interface SizeFigures {
  seedSeconds: number;
  registerP50: number;
  getP50: number;
  getP99: number;
  getFloorP50: number;
  getFloorP99: number;
  sendP50: number;
  sendP99: number;
  sendFloor: number;
  queues: number;
  lastEventP50: number;
  lastEventP99: number;
  rssQueues: number;
  rssAfter: number;
}

function rawCall(pollAgent: Agent, base: string, auth: string, method: string, path: string, params: Record<string, string>): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const qs = `?${new URLSearchParams(params)}`;
    const req = request(`${base}/api/v1${path}${qs}`, { method, agent: pollAgent, headers: { Authorization: auth } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * Every user of the organization registers a queue and long-polls it (1,000 or 10,000 held
 * requests); the fan-out channel's members are the first 500 or 5,000 of them; then messages are sent
 * one at a time and each is timed from the send's start to its arrival in the LAST queue. Pollers
 * do not parse JSON: they read the last event id and the message markers off the raw body.
 */
async function fanoutToQueues(base: string, s: ScaleSeed, sendAuth: string, serverPid: number) {
  // Long-polls hold one socket each for as long as they wait.
  const pollAgent = new Agent({ keepAlive: true, maxSockets: Infinity });
  const queues: Array<{ auth: string; queueId: string; last: number }> = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < s.everyone.length) {
        const a = s.everyone[next++]!;
        const auth = basic(a);
        const reg = await call(base, auth, 'POST', '/register', { event_types: '["message"]', fetch_event_types: '["message"]' });
        if (reg.status !== 200) throw new Error(`register failed: ${JSON.stringify(reg.body).slice(0, 300)}`);
        queues.push({ auth, queueId: reg.body.queue_id, last: -1 });
      }
    }),
  );
  const arrivals = new Map<number, number>(); // marker -> arrivals so far
  const lastArrival = new Map<number, number>();
  let polling = true;
  const ended: string[] = [];
  const pollers = queues.map(async (q) => {
    while (polling) {
      const res = await rawCall(pollAgent, base, q.auth, 'GET', '/events', { queue_id: q.queueId, last_event_id: String(q.last) }).catch((err: Error) => err);
      if (res instanceof Error || res.status !== 200) {
        // Kept to say why a message did not reach every queue (while polling, nothing else ends a poll).
        if (polling) ended.push(res instanceof Error ? res.message : `${res.status} ${res.text.slice(0, 200)}`);
        return;
      }
      const now = performance.now();
      const last = /"id":(\d+)\}\],"queue_id"/.exec(res.text);
      if (last) q.last = Number(last[1]);
      for (const m of res.text.matchAll(/fanout-marker (\d+)/g)) {
        const k = Number(m[1]);
        arrivals.set(k, (arrivals.get(k) ?? 0) + 1);
        lastArrival.set(k, now);
      }
    }
  });
  await new Promise((r) => setTimeout(r, 1000));
  // Server memory with every queue registered and its long-poll held open.
  const rssQueues = rssMb(serverPid);
  const times: number[] = [];
  for (let k = 0; k < 10; k++) {
    const t0 = performance.now();
    const res = await call(base, sendAuth, 'POST', '/messages', { type: 'stream', to: s.fanoutChannelName, topic: 'fanout', content: `fanout-marker ${k}` });
    if (res.status !== 200) throw new Error(`send failed: ${JSON.stringify(res.body).slice(0, 300)}`);
    const deadline = performance.now() + 30_000;
    const members = s.fanoutMembers.length;
    while ((arrivals.get(k) ?? 0) < members && performance.now() < deadline) await new Promise((r) => setTimeout(r, 2));
    if ((arrivals.get(k) ?? 0) < members) throw new Error(`message ${k} reached ${arrivals.get(k) ?? 0} of ${members} queues in 30 s; ${ended.length} polls ended early: ${[...new Set(ended)].slice(0, 3).join(' | ')}`);
    times.push(lastArrival.get(k)! - t0);
  }
  polling = false;
  // Dropping the held sockets ends every waiting poll at once.
  pollAgent.destroy();
  await Promise.allSettled(pollers);
  let i = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (i < queues.length) {
        const q = queues[i++]!;
        await call(base, q.auth, 'DELETE', '/events', { queue_id: q.queueId }).catch(() => undefined);
      }
    }),
  );
  times.sort((a, b) => a - b);
  return { queues: queues.length, p50: percentile(times, 50), p99: percentile(times, 99), rssQueues };
}

async function measureSize(backend: ScaleBackend, label: string, size: ScaleSize): Promise<SizeFigures> {
  const url = await backend.create(label);
  try {
    const s = await seedSize(backend, url, size);
    if (process.env.CONFAB_BENCH_EXPLAIN === '1') await backend.explain?.(url, s.realmId, s.member.id, s.historyChannelId);
    const server = await startServer(url);
    try {
      const memberAuth = basic(s.member);
      const ownerAuth = basic(s.owner);
      const register = await timed(20, async () => {
        const res = await call(server.base, memberAuth, 'POST', '/register', {});
        if (res.status !== 200) throw new Error(`register failed: ${JSON.stringify(res.body).slice(0, 300)}`);
        await call(server.base, memberAuth, 'DELETE', '/events', { queue_id: res.body.queue_id });
      });
      const get = await timed(300, async (i) => {
        const narrow = JSON.stringify([
          { operator: 'channel', operand: 'history' },
          { operator: 'topic', operand: `topic ${i % TOPICS}` },
        ]);
        const res = await call(server.base, memberAuth, 'GET', '/messages', { anchor: 'newest', num_before: '50', num_after: '0', narrow });
        if (res.status !== 200 || res.body.messages.length === 0) throw new Error(`GET /messages failed: ${JSON.stringify(res.body).slice(0, 300)}`);
      });
      // One message into the fan-out channel at a time: the send's own latency includes writing
      // one user_messages row per subscriber in its transaction.
      const send = await timed(30, async (i) => {
        const res = await call(server.base, ownerAuth, 'POST', '/messages', { type: 'stream', to: s.fanoutChannelName, topic: 'fanout', content: `fan-out ${i}` });
        if (res.status !== 200) throw new Error(`send failed: ${JSON.stringify(res.body).slice(0, 300)}`);
      });
      const fan = await fanoutToQueues(server.base, s, ownerAuth, server.child.pid!);
      const rssAfter = rssMb(server.child.pid!);
      const floor = await backend.topicFloor(url, s.realmId, s.member.id, s.historyChannelId, TOPICS, 300);
      return {
        seedSeconds: s.seedSeconds,
        registerP50: percentile(register, 50),
        getP50: percentile(get, 50),
        getP99: percentile(get, 99),
        getFloorP50: percentile(floor, 50),
        getFloorP99: percentile(floor, 99),
        sendP50: percentile(send, 50),
        sendP99: percentile(send, 99),
        sendFloor: await backend.sendFloor(url, size.fanout, 30),
        queues: fan.queues,
        lastEventP50: fan.p50,
        lastEventP99: fan.p99,
        rssQueues: fan.rssQueues,
        rssAfter,
      };
    } finally {
      await stopServer(server.child);
    }
  } finally {
    await backend.drop(url);
  }
}

/**
 * Prints each growth figure at both sizes; CONFAB_BENCH_SCALE=small skips the large size. With
 * `postgresUrl` (any database on the server: the scratch databases are created beside it) the
 * figures are measured on PostgreSQL.
 */
export async function scaleFigures(line: Line, postgresUrl?: string) {
  const backend = postgresUrl ? (await import('./scale_pg.js')).postgresBackend(postgresUrl) : sqliteBackend();
  // Ctrl-C or a kill still drops the scratch databases (the server child gets the signal too).
  const onSignal = (signal: NodeJS.Signals) => {
    void backend.dropAll().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  let small: SizeFigures;
  let large: SizeFigures | undefined;
  try {
    small = await measureSize(backend, 'small', SMALL);
    large = process.env.CONFAB_BENCH_SCALE === 'small' ? undefined : await measureSize(backend, 'large', LARGE);
  } finally {
    agent.destroy();
    await backend.dropAll();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  const raw = `raw ${backend.name}`;
  const both = (f: (x: SizeFigures) => number, digits: number) =>
    large ? `${f(small).toFixed(digits)} → ${f(large).toFixed(digits)}` : f(small).toFixed(digits);
  const sizes = (a: number, b: number) => (large ? `${a.toLocaleString('en')} → ${b.toLocaleString('en')}` : a.toLocaleString('en'));
  process.stdout.write(`Growth figures on ${backend.name}, small → large (seeded in ${both((x) => x.seedSeconds, 0)} s)\n`);
  line(`/register, ${sizes(SMALL.users, LARGE.users)} users p50 (ms)`, both((x) => x.registerP50, 1), `none measured (${sizes(SMALL.channels, LARGE.channels)} channels); target < 300 ms`);
  line(`GET /messages topic narrow, ${sizes(SMALL.messages, LARGE.messages)} msgs p50`, both((x) => x.getP50, 2), `${both((x) => x.getFloorP50, 3)} ms ${raw} query`);
  line('GET /messages topic narrow p99 (ms)', both((x) => x.getP99, 2), `${both((x) => x.getFloorP99, 3)} ms ${raw} query; target < 20 ms`);
  line(`send into ${sizes(SMALL.fanout, LARGE.fanout)}-subscriber channel p50 (ms)`, both((x) => x.sendP50, 1), `${both((x) => x.sendFloor, 1)} ms ${raw} insert+commit (no queues registered)`);
  line('send into fan-out channel p99 (ms)', both((x) => x.sendP99, 1));
  line(`send to last of ${sizes(SMALL.fanout, LARGE.fanout)} members' polls p50 (ms)`, both((x) => x.lastEventP50, 1), `${sizes(SMALL.users, LARGE.users)} queues long-polling`);
  line('send to last long-poll p99 (ms)', both((x) => x.lastEventP99, 1));
  line(`server RSS, ${sizes(SMALL.users, LARGE.users)} queues long-polling (MB)`, both((x) => x.rssQueues, 1));
  line('server RSS after these figures (MB)', both((x) => x.rssAfter, 1));
}

const entry = process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1];
if (entry) {
  const plain: Line = (name, value, floor) => process.stdout.write(`${name.padEnd(52)} ${value.padStart(18)}${floor ? `   floor: ${floor}` : ''}\n`);
  const postgres = process.argv.includes('--postgres') ? process.env.CONFAB_BENCH_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/postgres' : undefined;
  scaleFigures(plain, postgres).catch((err) => {
    console.error(err);
    process.exitCode = 1;
  });
}
