// Two server processes on one database joined by Redis, 100 long-polling queues registered on A
// and polled through B on kept-alive connections: how much CPU each process spends delivering a
// run of messages, and how many queue moves (http/queue_move.ts) that took. Run once with this
// tree's server and once with an older one (BIN=/path/to/bin/confab.js) for forwarding alone.
//
//   CONFAB_TEST_DATABASE_URL=postgres://... CONFAB_NO_BUNDLE=1 node dist/bench/queue_move.js [messages]
import { Agent } from 'node:http';
import { apiCall } from './api_call.js';
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { Redis } from 'ioredis';
import { startTestServer } from '../test/helpers.js';
import { spawnServer } from '../test/spawn.js';
import { cpuSeconds } from './loadgen.js';

const REDIS_URL = process.env.CONFAB_TEST_REDIS_URL || 'redis://127.0.0.1:6379';
const QUEUES = 100;
const USERS = 20;
const MESSAGES = Number(process.argv[2] ?? 100);
const agent = new Agent({ keepAlive: true, maxSockets: 256 });

function call(base: string, auth: string, method: 'GET' | 'POST', path: string, params: Record<string, string>): Promise<{ status: number; body: any }> {
  return apiCall(agent, base, auth, method, path, params);
}

const prefix = `confab-movebench-${randomBytes(4).toString('hex')}`;
const t = await startTestServer({ redis: { url: REDIS_URL, prefix } });
const env = { CONFAB_REDIS_URL: REDIS_URL, CONFAB_REDIS_PREFIX: prefix, CONFAB_DRAIN_SECONDS: '0' };
const spawnAt = process.env.BIN;
const spawnOne = async () => {
  if (!spawnAt) return spawnServer(t, env);
  // An older tree's server: the same spawn, another bin/confab.js.
  const { spawn } = await import('node:child_process');
  const child = spawn(process.execPath, [spawnAt, 'serve'], {
    env: { ...process.env, CONFAB_DATABASE_URL: t.databaseUrl, CONFAB_PORT: '0', CONFAB_HOST: '127.0.0.1', CONFAB_RATE_LIMITS: 'off', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
  });
  return { url, child, stop: async () => void child.kill('SIGKILL') };
};
const a = await spawnOne();
const b = await spawnOne();

// Move markers on the bus: each one a move begun (or a whole-process hand-over, none here).
let markers = 0;
const sub = new Redis(REDIS_URL);
await sub.psubscribe(`${prefix}*`);
sub.on('pmessage', (_p: string, _c: string, m: string) => {
  if (m.includes('"__handover"')) markers++;
});

const users = [];
for (let i = 0; i < USERS; i++) users.push(await t.createUser({ name: `Poller ${i}` }));
await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'fanout' }], principals: [t.owner.userId, ...users.map((u) => u.userId)] });
const authOf = (c: { email: string; apiKey: string }) => 'Basic ' + Buffer.from(`${c.email}:${c.apiKey}`).toString('base64');
const queues: Array<{ auth: string; id: string }> = [];
for (let i = 0; i < QUEUES; i++) {
  const u = users[i % USERS]!;
  const reg = await call(a.url, authOf(u), 'POST', '/register', { event_types: '["message"]', fetch_event_types: '["realm"]' });
  if (reg.status !== 200) throw new Error(JSON.stringify(reg.body));
  queues.push({ auth: authOf(u), id: reg.body.queue_id });
}

let errors = 0;
const snap = () => ({ a: cpuSeconds(a.child.pid!), b: cpuSeconds(b.child.pid!) });
const c0 = snap();
const pollers = queues.map(async (q) => {
  let last = -1;
  let got = 0;
  while (got < MESSAGES) {
    const res = await call(b.url, q.auth, 'GET', '/events', { queue_id: q.id, last_event_id: String(last) });
    if (res.status !== 200) {
      errors++;
      throw new Error(JSON.stringify(res.body));
    }
    for (const e of res.body.events) {
      last = e.id;
      if (e.type === 'message') got++;
    }
  }
});
// Every poll parked before the run starts.
await new Promise((r) => setTimeout(r, 2000));
const movesBeforeRun = markers;
const c1 = snap();
const owner = authOf(t.owner);
const self0 = process.cpuUsage();
const start = Date.now();
for (let i = 0; i < MESSAGES; i++) {
  const res = await call(i % 2 ? b.url : a.url, owner, 'POST', '/messages', { type: 'stream', to: 'fanout', topic: 'bench', content: `m${i}` });
  if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  await new Promise((r) => setTimeout(r, 50));
}
await Promise.all(pollers);
const seconds = (Date.now() - start) / 1000;
const self = process.cpuUsage(self0);
const c2 = snap();
const cpuA = c2.a - c1.a;
const cpuB = c2.b - c1.b;
console.log(
  JSON.stringify({
    server: spawnAt ?? 'this tree',
    queues: QUEUES,
    messages: MESSAGES,
    seconds,
    cpuA: +cpuA.toFixed(2),
    cpuB: +cpuB.toFixed(2),
    cpuAB: +(cpuA + cpuB).toFixed(2),
    loadgenAndInProcessServer: +((self.user + self.system) / 1e6).toFixed(2),
    firstPollsCpuA: +(c1.a - c0.a).toFixed(2),
    firstPollsCpuB: +(c1.b - c0.b).toFixed(2),
    movesAtFirstPolls: movesBeforeRun,
    movesInAll: markers,
    errors,
    loadavg: loadavg().map((x) => +x.toFixed(2)),
  }),
);
await sub.quit();
await a.stop('SIGKILL');
await b.stop('SIGKILL');
agent.destroy();
await t.close();
