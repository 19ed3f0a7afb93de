// `npm run bench [-- --postgres]`: starts a real Confab server as its own process on a fresh
// database, loads it over HTTP, and prints each figure beside this machine's floor measured in
// the same run. Figures are reported, never asserted: targets live in the issue, not in tests.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'node:http';
import autocannon from 'autocannon';
import pg from 'pg';
import { sqliteFloor, sqliteTopicQueryFloor } from './floor_sqlite.js';
import { seed, type Seeded } from './seed.js';
import { renderFigures } from './render.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const usePostgres = process.argv.includes('--postgres');
const PG_URL = process.env.CONFAB_BENCH_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const SECONDS = Number(process.env.CONFAB_BENCH_SECONDS || 5);
/** Concurrent senders in the message-throughput figure. */
// Fixed sending rates for the send-to-event latency lines (CONFAB_BENCH_ONLY=rate runs only these).
const RATES = (process.env.CONFAB_BENCH_RATES || '100,1000').split(',').map(Number);
const SENDERS = Number(process.env.CONFAB_BENCH_SENDERS || 32);
/** Comma-separated subset of figures to measure: rss,me,send,get,register,render,web,scale (default: all). */
const ONLY = new Set((process.env.CONFAB_BENCH_ONLY || 'rss,me,send,get,register,render,web,scale').split(','));
/** Extra node flags for the server process, e.g. --cpu-prof to profile it. */
const SERVER_NODE_FLAGS = (process.env.CONFAB_BENCH_SERVER_FLAGS || '').split(' ').filter(Boolean);

function line(name: string, value: string, floor?: string, ratio?: number) {
  const f = floor ? `   floor: ${floor}` : '';
  const r = ratio !== undefined ? `   ratio: ${ratio.toFixed(2)}` : '';
  process.stdout.write(`${name.padEnd(44)} ${value.padStart(14)}${f}${r}\n`);
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}

/** CPU seconds (user + system) a process has used so far (Linux clock ticks are 1/100 s). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

function startProcess(args: string[], env: NodeJS.ProcessEnv, ready: RegExp): Promise<{ child: ChildProcess; match: RegExpExecArray }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    const timer = setTimeout(() => reject(new Error(`timed out waiting for ${args.join(' ')}: ${out}`)), 30_000);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = ready.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, match: m });
      }
    });
    child.on('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}: ${out}`)));
  });
}

async function stop(child: ChildProcess) {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

async function rps(url: string, headers: Record<string, string> = {}): Promise<number> {
  const result = await autocannon({ url, connections: 50, pipelining: 1, duration: SECONDS, headers });
  if (result.non2xx > 0) throw new Error(`${result.non2xx} non-2xx answers from ${url}`);
  return result.requests.average;
}

const agent = new Agent({ keepAlive: true, maxSockets: 512 });

function call(base: string, auth: string, method: string, path: string, params?: Record<string, string>, raw = false): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const body = params && method !== 'GET' ? new URLSearchParams(params).toString() : undefined;
    const qs = params && method === 'GET' ? `?${new URLSearchParams(params)}` : '';
    const req = request(
      `${base}/api/v1${path}${qs}`,
      {
        method,
        agent,
        headers: { Authorization: auth, ...(body ? { 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Length': Buffer.byteLength(body) } : {}) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          try {
            const text = Buffer.concat(chunks).toString();
            resolve({ status: res.statusCode ?? 0, body: raw ? text : JSON.parse(text) });
          } catch (e) {
            reject(e);
          }
        });
      },
    );
    req.on('error', reject);
    if (body) req.write(body);
    req.end();
  });
}

const basic = (email: string, key: string) => 'Basic ' + Buffer.from(`${email}:${key}`).toString('base64');

/**
 * Messages into the 100-subscriber channel while every subscriber long-polls its queue. Without a
 * rate: 32 senders, each sending as soon as its last send was answered (saturation). With a rate:
 * an open-loop sender at that many messages a second, each latency counted from when the message
 * was due, so a server that falls behind shows it.
 */
async function sendThroughput(base: string, s: Seeded, rate?: number, serverPid?: number) {
  // Every subscriber of the channel long-polls its own queue, as a client would.
  const latencies: number[] = [];
  let polling = true;
  const queues = await Promise.all(
    s.subscribers.map(async (u) => {
      const auth = basic(u.email, u.api_key);
      const reg = await call(base, auth, 'POST', '/register', { event_types: '["message"]', fetch_event_types: '["message"]' });
      if (reg.status !== 200) throw new Error(`register failed: ${JSON.stringify(reg.body)}`);
      return { auth, queueId: reg.body.queue_id as string, last: -1 };
    }),
  );
  // The load generator shares the machine with the server: only a sample of the pollers parse
  // their events (for latency); the rest read just the last event id off the end of the body.
  const SAMPLED = 10;
  const pollers = queues.map(async (q, index) => {
    const sampled = index < SAMPLED;
    while (polling) {
      const res = await call(base, q.auth, 'GET', '/events', { queue_id: q.queueId, last_event_id: String(q.last) }, !sampled);
      if (!polling) break; // the queue may be deleted under this poll at the end
      if (res.status !== 200) throw new Error(`poll failed: ${String(res.body).slice(0, 200)}`);
      const now = performance.now();
      if (!sampled) {
        const last = /"id":(\d+)\}\],"queue_id"/.exec(res.body as string);
        if (last) q.last = Number(last[1]);
        continue;
      }
      for (const e of res.body.events) {
        q.last = Math.max(q.last, e.id);
        if (e.type === 'message') {
          const sent = Number(/^bench (\d+(\.\d+)?)/.exec(e.message.content)?.[1]);
          if (Number.isFinite(sent)) latencies.push(now - sent);
        }
      }
    }
  });

  // A poller that fails is reported after the run, not as an unhandled rejection mid-run.
  const pollErrors: unknown[] = [];
  for (const p of pollers) p.catch((err) => pollErrors.push(err));
  const senderAuth = basic(s.sender.email, s.sender.api_key);
  let sent = 0;
  const deadline = performance.now() + SECONDS * 1000;
  const sendTimes: number[] = [];
  const sendOne = async (content: string) => {
    const t0 = performance.now();
    const res = await call(base, senderAuth, 'POST', '/messages', { type: 'stream', to: s.channelName, topic: 'bench', content });
    if (res.status !== 200) throw new Error(`send failed: ${JSON.stringify(res.body)}`);
    sendTimes.push(performance.now() - t0);
    sent++;
  };
  const atRate = async () => {
    const interval = 1000 / rate!;
    const t0 = performance.now();
    const inFlight: Array<Promise<void>> = [];
    for (let i = 0; performance.now() < deadline; ) {
      // Every message that is due goes now (timers fire at best every millisecond).
      for (let due = t0 + i * interval; due <= performance.now(); due = t0 + ++i * interval) inFlight.push(sendOne(`bench ${due}`));
      await new Promise((r) => setTimeout(r, Math.max(0, t0 + i * interval - performance.now())));
    }
    await Promise.all(inFlight);
  };
  const senders = rate ? [atRate()] : Array.from({ length: SENDERS }, async () => {
    while (performance.now() < deadline) await sendOne(`bench ${performance.now()}`);
  });
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  const serverCpuBefore = serverPid ? cpuSeconds(serverPid) : 0;
  await Promise.all(senders);
  const elapsed = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const clientCpu = (cpu.user + cpu.system) / 1e6 / elapsed;
  const serverCpu = serverPid ? (cpuSeconds(serverPid) - serverCpuBefore) / elapsed : NaN;
  // Let the last events arrive, then release the pollers.
  await new Promise((r) => setTimeout(r, 500));
  polling = false;
  await Promise.all(queues.map((q) => call(base, q.auth, 'DELETE', '/events', { queue_id: q.queueId }).catch(() => undefined)));
  await Promise.allSettled(pollers);
  if (pollErrors.length) throw pollErrors[0];
  latencies.sort((a, b) => a - b);
  sendTimes.sort((a, b) => a - b);
  return { sendP50: percentile(sendTimes, 50), perSecond: sent / elapsed, p50: percentile(latencies, 50), p99: percentile(latencies, 99), samples: latencies.length, clientCpu, serverCpu };
}

async function timed(n: number, fn: () => Promise<void>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn();
    out.push(performance.now() - t0);
  }
  return out.sort((a, b) => a - b);
}

async function main() {
  process.stdout.write(`Confab benchmark on ${usePostgres ? 'PostgreSQL' : 'SQLite'} (${SECONDS} s per load figure)\n`);

  // Floors, measured first on the idle machine.
  const floorServer = await startProcess([join(root, 'dist/bench/floor_server.js')], {}, /listening (\d+)/);
  const floorPort = Number(floorServer.match[1]);
  await new Promise((r) => setTimeout(r, 500));
  const floorRss = rssMb(floorServer.child.pid!);
  const floorRps = await rps(`http://127.0.0.1:${floorPort}/`);
  await stop(floorServer.child);
  const floorCommitEach = sqliteFloor(100, 300, 1);
  const floorCommit50 = sqliteFloor(100, 2000, 50);

  if (ONLY.has('render')) {
    const r = renderFigures(SECONDS);
    line('Markdown rendering, typical chat (KB/s)', r.kbPerSecond.toFixed(0), `${r.floorKbPerSecond.toFixed(0)} KB/s plain markdown-it`, r.kbPerSecond / r.floorKbPerSecond);
    line('slowest hostile input, 10,000 chars (ms)', r.worstHostileMs.toFixed(1));
  }

  // A fresh database, seeded directly (setup is not what is measured).
  const dir = mkdtempSync(join(tmpdir(), 'confab-bench-'));
  let databaseUrl = `sqlite:${join(dir, 'bench.db')}`;
  let pgDatabase: string | undefined;
  if (usePostgres) {
    pgDatabase = `confab_bench_${process.pid}`;
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${pgDatabase}`);
    await admin.end();
    const u = new URL(PG_URL);
    u.pathname = `/${pgDatabase}`;
    databaseUrl = u.toString();
  }
  const seeded = await seed(databaseUrl);

  const server = await startProcess(
    [...SERVER_NODE_FLAGS, join(root, 'bin/confab.js'), 'serve'],
    { CONFAB_DATABASE_URL: databaseUrl, CONFAB_PORT: '0', CONFAB_HOST: '127.0.0.1', CONFAB_RATE_LIMITS: 'off' },
    /listening on (http:\/\/[^\s]+)/,
  );
  const base = server.match[1]!;
  try {
    await new Promise((r) => setTimeout(r, 2000));
    const idleRss = rssMb(server.child.pid!);
    if (ONLY.has('rss')) line('idle RSS after start (MB)', idleRss.toFixed(1), `${floorRss.toFixed(1)} MB bare node`, idleRss / floorRss);

    if (ONLY.has('me')) {
    const meRps = await rps(`${base}/api/v1/users/me`, { Authorization: basic(seeded.sender.email, seeded.sender.api_key) });
    line('GET /users/me (requests/s)', meRps.toFixed(0), `${floorRps.toFixed(0)} req/s bare node`, meRps / floorRps);
    }

    if (ONLY.has('send')) {
    const send = await sendThroughput(base, seeded);
    line('POST /messages to 100 subscribers (msgs/s)', send.perSecond.toFixed(0), `${floorCommitEach.toFixed(0)}/s commit each, ${floorCommit50.toFixed(0)}/s 50 per commit (raw SQLite)`, send.perSecond / floorCommitEach);
    line('send-to-event latency p50 (ms)', send.p50.toFixed(1), `${send.samples} events sampled; load generator used ${(send.clientCpu * 100).toFixed(0)}% of a core`);
    line('send-to-event latency p99 (ms)', send.p99.toFixed(1));
    }

    if (ONLY.has('send') || ONLY.has('rate')) {
    // The same at fixed rates (the load a team produces), beside a bare Node long-poll relay
    // (bench/floor_server.ts) driven by the same client at the same rate.
    const relay = await startProcess([join(root, 'dist/bench/floor_server.js')], {}, /listening (\d+)/);
    try {
      for (const rate of RATES) {
        const at = await sendThroughput(base, seeded, rate, server.child.pid);
        const floorAt = await sendThroughput(`http://127.0.0.1:${relay.match[1]}`, seeded, rate, relay.child.pid);
        line(
          `send-to-event at ${rate} msgs/s p50 / p99 (ms)`,
          `${at.p50.toFixed(1)} / ${at.p99.toFixed(1)}`,
          `${floorAt.p50.toFixed(1)} / ${floorAt.p99.toFixed(1)} ms bare Node long-poll relay; ${at.perSecond.toFixed(0)} msgs/s sent, each answered in ${at.sendP50.toFixed(1)} ms p50 (relay ${floorAt.sendP50.toFixed(1)}); server CPU ${(at.serverCpu * 100).toFixed(0)}% of a core (relay ${(floorAt.serverCpu * 100).toFixed(0)}%)`,
          at.p50 / floorAt.p50,
        );
      }
    } finally {
      await stop(relay.child);
    }
    }

    if (ONLY.has('get')) {
    const readerAuth = basic(seeded.reader.email, seeded.reader.api_key);
    let topic = 0;
    const getTimes = await timed(300, async () => {
      const narrow = JSON.stringify([
        { operator: 'channel', operand: seeded.historyChannelName },
        { operator: 'topic', operand: `topic ${topic++ % seeded.historyTopics}` },
      ]);
      const res = await call(base, readerAuth, 'GET', '/messages', { anchor: 'newest', num_before: '50', num_after: '0', narrow });
      if (res.status !== 200 || res.body.messages.length === 0) throw new Error(`GET /messages failed: ${JSON.stringify(res.body).slice(0, 300)}`);
    });
    const floor = usePostgres ? undefined : sqliteTopicQueryFloor(databaseUrl.slice('sqlite:'.length), seeded.reader.id, seeded.historyChannelId, seeded.historyTopics, 300);
    const floorText = (p: number) => (floor ? `${percentile(floor, p).toFixed(3)} ms raw SQLite query` : undefined);
    line(`GET /messages topic narrow, ${seeded.historyMessages} msgs p50 (ms)`, percentile(getTimes, 50).toFixed(2), floorText(50));
    line(`GET /messages topic narrow p99 (ms)`, percentile(getTimes, 99).toFixed(2), floorText(99));
    }

    if (ONLY.has('register')) {
    const bigAuth = basic(seeded.bigOrgUser.email, seeded.bigOrgUser.api_key);
    const regTimes = await timed(20, async () => {
      const res = await call(base, bigAuth, 'POST', '/register', {});
      if (res.status !== 200) throw new Error(`register failed: ${JSON.stringify(res.body).slice(0, 300)}`);
      await call(base, bigAuth, 'DELETE', '/events', { queue_id: res.body.queue_id });
    });
    line(`/register, ${seeded.bigOrgUsers} users ${seeded.bigOrgChannels} channels p50 (ms)`, percentile(regTimes, 50).toFixed(1));
    }

    if (ONLY.has('web')) {
      const { webFigures } = await import('./web.js');
      const readerAuth = basic(seeded.reader.email, seeded.reader.api_key);
      const senderAuth = basic(seeded.historySender.email, seeded.historySender.api_key);
      await webFigures(base, seeded, (m, p, q) => call(base, readerAuth, m, p, q), (m, p, q) => call(base, senderAuth, m, p, q), line);
    }
  } finally {
    await stop(server.child);
    rmSync(dir, { recursive: true, force: true });
    if (pgDatabase) {
      const admin = new pg.Client({ connectionString: PG_URL });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS ${pgDatabase}`);
      await admin.end();
    }
    agent.destroy();
  }
  // Growth figures at two sizes, each on its own database and server (bench/scale.ts).
  if (ONLY.has('scale')) {
    const { scaleFigures } = await import('./scale.js');
    await scaleFigures(line, usePostgres ? PG_URL : undefined);
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
