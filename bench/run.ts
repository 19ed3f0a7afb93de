// `npm run bench [-- --postgres]`: starts a real Confab server as its own process on a fresh
// database, loads it over HTTP, and prints each figure beside this machine's floor measured in
// the same run. Figures are reported, never asserted: targets live in the issue, not in tests.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent } from 'node:http';
import { apiCall, apiCallText } from './api_call.js';
import autocannon from 'autocannon';
import pg from 'pg';
import { sqliteFloor, sqliteTopicQueryFloor } from './floor_sqlite.js';
import { seed, type Seeded } from './seed.js';
import { renderFigures } from './render.js';
import { cpuSeconds, generate, processTree, type LoadResult } from './loadgen.js';
import { cpuCost, type CpuCost } from './cpu_cost.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const usePostgres = process.argv.includes('--postgres');
const PG_URL = process.env.CONFAB_BENCH_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const SECONDS = Number(process.env.CONFAB_BENCH_SECONDS || 5);
// Fixed sending rates for the send-to-event latency lines (CONFAB_BENCH_ONLY=rate runs only these).
const RATES = (process.env.CONFAB_BENCH_RATES || '100,1000').split(',').map(Number);
/** Concurrent senders in the saturated message-throughput figure. */
const SENDERS = Number(process.env.CONFAB_BENCH_SENDERS || 32);
/** Comma-separated subset of figures: rss,me,send,get,register,render,web,scale (default: all); `send` includes the rates, `rate` is the rates alone. */
const ONLY = new Set((process.env.CONFAB_BENCH_ONLY || 'rss,me,cpu,send,get,register,render,web,scale').split(','));
/**
 * Server processes (CONFAB_WORKERS for the server: node:cluster workers behind one port, joined
 * through the cluster primary); 1 is the default single process. Its CPU and RSS figures count
 * the primary and every worker.
 */
const WORKERS = Number(process.env.CONFAB_BENCH_WORKERS || 1);
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

/** Resident memory of a process and its child processes (a cluster's primary and workers). */
function rssMb(pid: number): number {
  let kb = 0;
  for (const p of processTree(pid)) {
    const status = readFileSync(`/proc/${p}/status`, 'utf8');
    kb += Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  }
  return kb / 1024;
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

async function call(base: string, auth: string, method: string, path: string, params?: Record<string, string>, raw = false): Promise<{ status: number; body: any }> {
  if (!raw) return apiCall(agent, base, auth, method, path, params);
  const res = await apiCallText(agent, base, auth, method, path, params);
  return { status: res.status, body: res.text };
}

const basic = (email: string, key: string) => 'Basic ' + Buffer.from(`${email}:${key}`).toString('base64');

/** The send-to-event figures: bench/loadgen.ts's child processes against a server or the relay. */
function sendThroughput(base: string, s: Seeded, serverPid: number, rate?: number): Promise<LoadResult> {
  return generate({
    base,
    senderAuth: basic(s.sender.email, s.sender.api_key),
    channel: s.channelName,
    auths: s.subscribers.map((u) => basic(u.email, u.api_key)),
    rate,
    senders: SENDERS,
    seconds: SECONDS,
    serverPid,
  });
}

/**
 * The relay's floor, and the CPU Confab's idle server used meanwhile (its previous phase's
 * checkpoint and catch-up), which the floor then shares the machine with.
 */
async function relayFloor(base: string, s: Seeded, relayPid: number, confabPid: number, rate?: number): Promise<LoadResult & { confabMeanwhile: number }> {
  const t0 = performance.now();
  const before = cpuSeconds(confabPid);
  const r = await sendThroughput(base, s, relayPid, rate);
  return { ...r, confabMeanwhile: (cpuSeconds(confabPid) - before) / ((performance.now() - t0) / 1000) };
}

/** What the generator saw and cost, printed beside each send-to-event figure. */
function checked(r: LoadResult): string {
  const reordered = r.outOfOrder > 0 ? ` (${r.reordered} in another order than other queues got them)` : '';
  return `${r.lost}/${r.duplicated}/${r.outOfOrder} lost/dup/out-of-order${reordered} of ${r.events} events; generator CPU ${((r.senderCpu + r.pollerCpu) * 100).toFixed(0)}% of a core (sender ${(r.senderCpu * 100).toFixed(0)}%, pollers ${(r.pollerCpu * 100).toFixed(0)}%)`;
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
  process.stdout.write(`Confab benchmark on ${usePostgres ? 'PostgreSQL' : 'SQLite'} (${SECONDS} s per load figure${WORKERS > 1 ? `; ${WORKERS} server worker processes` : ''})\n`);

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
    { CONFAB_DATABASE_URL: databaseUrl, CONFAB_PORT: '0', CONFAB_HOST: '127.0.0.1', CONFAB_RATE_LIMITS: 'off', ...(WORKERS > 1 ? { CONFAB_WORKERS: String(WORKERS) } : {}) },
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

    if (ONLY.has('cpu')) {
    // CPU per message and per poll, measured apart over fixed work (bench/cpu_cost.ts), Confab and
    // the bare relay alike: the figure the light-load target's "CPU halved" is about, without the
    // scatter a loaded machine gives the fixed-rate line.
    const relay = await startProcess([join(root, 'dist/bench/floor_server.js')], {}, /listening (\d+)/);
    try {
      const auths = seeded.subscribers.map((u) => basic(u.email, u.api_key));
      const senderAuth = basic(seeded.sender.email, seeded.sender.api_key);
      const floor = await cpuCost(`http://127.0.0.1:${relay.match[1]}`, relay.child.pid!, senderAuth, seeded.channelName, auths);
      const cost = await cpuCost(base, server.child.pid!, senderAuth, seeded.channelName, auths);
      line('send path CPU per message (ms)', cost.sendMs.toFixed(2), `${(1000 / floorCommitEach).toFixed(2)} ms raw SQLite insert+commit of its rows; bare relay ${floor.sendMs.toFixed(2)} ms; ${cost.messages} messages, 100 queues; main thread ${cost.sendMainMs.toFixed(2)} ms (relay ${floor.sendMainMs.toFixed(2)})`, cost.sendMs / (1000 / floorCommitEach));
      line('one poll answer CPU (us)', cost.pollUs.toFixed(1), `${floor.pollUs.toFixed(1)} us bare relay; ${cost.polls} dont_block polls of one event each; main thread ${cost.pollMainUs.toFixed(1)} us (relay ${floor.pollMainUs.toFixed(1)})`, cost.pollUs / floor.pollUs);
      // ms of CPU per message (its send and 100 answers) × 100 messages a second, as % of 1,000 ms.
      const atRate = (c: CpuCost) => (c.sendMs + (100 * c.pollUs) / 1000) * 10;
      line('CPU for 100 msgs/s to 100 queues (% of a core)', atRate(cost).toFixed(0), `${atRate(floor).toFixed(0)}% bare relay (sends + 100 poll answers each, from the two lines above)`, atRate(cost) / atRate(floor));
    } finally {
      await stop(relay.child);
    }
    }

    if (ONLY.has('send') || ONLY.has('rate')) {
    // Saturated, then at fixed rates (the load a team produces), each beside a bare Node
    // long-poll relay (bench/floor_server.ts) driven by the same generator in the same run.
    const relay = await startProcess([join(root, 'dist/bench/floor_server.js')], {}, /listening (\d+)/);
    const relayBase = `http://127.0.0.1:${relay.match[1]}`;
    try {
      if (ONLY.has('send')) {
        // The relay first: Confab's aftermath (its checkpoint, its queued work) would load the floor.
        const floorSend = await relayFloor(relayBase, seeded, relay.child.pid!, server.child.pid!);
        const send = await sendThroughput(base, seeded, server.child.pid!);
        line('POST /messages to 100 subscribers (msgs/s)', send.perSecond.toFixed(0), `${floorCommitEach.toFixed(0)}/s commit each, ${floorCommit50.toFixed(0)}/s 50 per commit (raw SQLite); bare relay ${floorSend.perSecond.toFixed(0)} msgs/s; ${SENDERS} senders`, send.perSecond / floorCommitEach);
        line('send-to-event latency p50 (ms)', send.p50.toFixed(1), `${floorSend.p50.toFixed(1)} ms bare relay; each send answered in ${send.answerP50.toFixed(1)} ms p50 (relay ${floorSend.answerP50.toFixed(1)}); server CPU ${(send.serverCpu * 100).toFixed(0)}% of a core (relay ${(floorSend.serverCpu * 100).toFixed(0)}%), its main thread waiting for a CPU ${(send.serverWaited * 100).toFixed(0)}% of the time (relay ${(floorSend.serverWaited * 100).toFixed(0)}%)`, send.p50 / floorSend.p50);
        line('send-to-event latency p99 (ms)', send.p99.toFixed(1), `${floorSend.p99.toFixed(1)} ms bare relay`, send.p99 / floorSend.p99);
        line('  saturated: delivery check, generator', checked(send), `relay ${checked(floorSend)}; idle Confab meanwhile ${(floorSend.confabMeanwhile * 100).toFixed(0)}%`);
      }
      for (const rate of ONLY.has('rate') || ONLY.has('send') ? RATES : []) {
        const floorAt = await relayFloor(relayBase, seeded, relay.child.pid!, server.child.pid!, rate);
        const at = await sendThroughput(base, seeded, server.child.pid!, rate);
        line(
          `send-to-event at ${rate} msgs/s p50 / p99 (ms)`,
          `${at.p50.toFixed(1)} / ${at.p99.toFixed(1)}`,
          `${floorAt.p50.toFixed(1)} / ${floorAt.p99.toFixed(1)} ms bare Node long-poll relay; ${at.perSecond.toFixed(0)} msgs/s sent (relay ${floorAt.perSecond.toFixed(0)}), each answered in ${at.answerP50.toFixed(1)} ms p50 (relay ${floorAt.answerP50.toFixed(1)}); server CPU ${(at.serverCpu * 100).toFixed(0)}% of a core, main thread ${(at.serverMainCpu * 100).toFixed(0)}% (relay ${(floorAt.serverCpu * 100).toFixed(0)}%, ${(floorAt.serverMainCpu * 100).toFixed(0)}%), its main thread waiting for a CPU ${(at.serverWaited * 100).toFixed(0)}% of the time (relay ${(floorAt.serverWaited * 100).toFixed(0)}%)`,
          at.p50 / floorAt.p50,
        );
        line(`  at ${rate} msgs/s: delivery check, generator`, checked(at), `relay ${checked(floorAt)}; idle Confab meanwhile ${(floorAt.confabMeanwhile * 100).toFixed(0)}%`);
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
