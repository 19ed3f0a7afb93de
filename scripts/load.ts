// `npm run load [-- options]`: the proof that a cluster under a realistic load loses nothing.
// Starts the cluster itself on fresh databases (A: one SQLite process; B, C, D: 1, 2 and 3
// PostgreSQL processes joined by Redis behind HAProxy), seeds an organization, gives every person
// a live event queue, runs a mix of sends, reads, typing, edits, reactions and presence, and in the
// middle of the multi-process scenarios kills one process with SIGKILL and later restarts another
// with SIGTERM. Afterwards it checks that every message answered with success is stored exactly
// once and reached every queue that should have it (or its client, told BAD_EVENT_QUEUE_ID,
// registered again and caught up through GET /messages). Exits non-zero when anything was lost
// or duplicated, or when a client saw an error outside the kill -9 window.
import { parseArgs } from 'node:util';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Balancer, ConfabProcess, createPgDatabase, createSqliteDatabase, freePort, sleep } from './load/cluster.js';
import { seedOrg, storedMessages } from './load/seed.js';
import { LoadClient, Stats, World } from './load/clients.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

const HELP = `npm run load -- [options]
  --scenarios A,B,C,D   which clusters (default all): A one SQLite process; B, C, D 1, 2, 3
                        PostgreSQL processes + Redis behind HAProxy (C and D lose a process)
  --users N             people with a live queue (default 1000; CONFAB_LOAD_USERS)
  --channels N          channels (default 200, at most users/5; CONFAB_LOAD_CHANNELS)
  --seconds S           load time per scenario (default 60; CONFAB_LOAD_SECONDS)
  --rate R              messages sent per second (default users/50; CONFAB_LOAD_RATE)
  --short               the CI version: D only, 100 users, 20 channels, 20 s
  --no-faults           no kill -9 / SIGTERM in C and D
  --postgres URL        PostgreSQL to create confab_load_* databases in (CONFAB_LOAD_POSTGRES_URL)
  --redis URL           Redis (CONFAB_LOAD_REDIS_URL, default redis://127.0.0.1:6379)
`;

const { values } = parseArgs({
  options: {
    scenarios: { type: 'string' },
    users: { type: 'string' },
    channels: { type: 'string' },
    seconds: { type: 'string' },
    rate: { type: 'string' },
    short: { type: 'boolean', default: false },
    'no-faults': { type: 'boolean', default: false },
    postgres: { type: 'string' },
    redis: { type: 'string' },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  process.stdout.write(HELP);
  process.exit(0);
}

const env = process.env;
const num = (v: string | undefined, name: string, dflt: number): number => {
  if (v === undefined || v === '') return dflt;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number, got ${v}`);
  return n;
};
const short = values.short;
const USERS = Math.floor(num(values.users ?? env.CONFAB_LOAD_USERS, 'users', short ? 100 : 1000));
const CHANNELS = Math.floor(num(values.channels ?? env.CONFAB_LOAD_CHANNELS, 'channels', Math.max(1, Math.min(200, Math.floor(USERS / 5)))));
const SECONDS = num(values.seconds ?? env.CONFAB_LOAD_SECONDS, 'seconds', short ? 20 : 60);
const RATE = num(values.rate ?? env.CONFAB_LOAD_RATE, 'rate', Math.max(1, USERS / 50));
const SCENARIOS = (values.scenarios ?? env.CONFAB_LOAD_SCENARIOS ?? (short ? 'D' : 'A,B,C,D')).toUpperCase().split(',').filter(Boolean);
const FAULTS = !values['no-faults'];
const PG_URL = values.postgres ?? env.CONFAB_LOAD_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = values.redis ?? env.CONFAB_LOAD_REDIS_URL ?? 'redis://127.0.0.1:6379';

interface Scenario {
  name: string;
  label: string;
  postgres: boolean;
  processes: number;
}

const ALL: Scenario[] = [
  { name: 'A', label: 'SQLite, one process', postgres: false, processes: 1 },
  { name: 'B', label: 'PostgreSQL, 1 process + Redis behind HAProxy', postgres: true, processes: 1 },
  { name: 'C', label: 'PostgreSQL, 2 processes + Redis behind HAProxy', postgres: true, processes: 2 },
  { name: 'D', label: 'PostgreSQL, 3 processes + Redis behind HAProxy', postgres: true, processes: 3 },
];

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const out = (s: string) => process.stdout.write(s + '\n');
const fmt = (n: number, digits = 1) => (Number.isNaN(n) ? '-' : n.toFixed(digits));

/** Mix per second, relative to the send rate; presence is every minute per person, as clients do. */
const MIX: [op: 'send' | 'read' | 'typing' | 'edit' | 'reaction', perSend: number][] = [
  ['send', 1],
  ['read', 0.5],
  ['typing', 1],
  ['edit', 0.1],
  ['reaction', 0.25],
];

async function runScenario(sc: Scenario): Promise<string[]> {
  const failures: string[] = [];
  const tag = `L${process.pid.toString(36)}${sc.name.toLowerCase()}`;
  const db = sc.postgres ? await createPgDatabase(PG_URL, `confab_load_${process.pid}_${sc.name.toLowerCase()}`) : createSqliteDatabase();
  const procs: ConfabProcess[] = [];
  let balancer: Balancer | null = null;
  const stats = new Stats();
  const world = new World('', stats, tag);
  const clients: LoadClient[] = [];
  try {
    out(`\n== ${sc.name}: ${sc.label} — ${USERS} users, ${CHANNELS} channels, ${SECONDS} s, ${RATE} messages/s`);
    const seedStart = Date.now();
    const org = await seedOrg(db.url, USERS, CHANNELS);
    const procEnv: Record<string, string> = { CONFAB_DATABASE_URL: db.url };
    if (sc.postgres) Object.assign(procEnv, { CONFAB_REDIS_URL: REDIS_URL, CONFAB_REDIS_PREFIX: `confab-load-${process.pid}-${sc.name}` });
    for (let i = 0; i < sc.processes; i++) procs.push(new ConfabProcess(`confab${i + 1}`, await freePort(), root, procEnv));
    await Promise.all(procs.map((p) => p.start()));
    if (sc.postgres) {
      balancer = new Balancer();
      await balancer.start(root, procs);
      world.baseUrl = balancer.url;
    } else {
      world.baseUrl = procs[0]!.url;
    }
    out(`   seeded and started in ${((Date.now() - seedStart) / 1000).toFixed(1)} s; registering ${USERS} queues…`);

    // Every person registers (25 at a time) and starts long-polling.
    const regStart = Date.now();
    for (const u of org.users) clients.push(new LoadClient(u, world));
    for (let i = 0; i < clients.length; i += 25) await Promise.all(clients.slice(i, i + 25).map((c) => c.start()));
    out(`   ${clients.length} queues live after ${((Date.now() - regStart) / 1000).toFixed(1)} s; load for ${SECONDS} s`);

    // The load: ops at a steady rate on random people, presence every 60 s per person.
    const inFlight = new Set<Promise<void>>();
    const fire = (p: Promise<void>) => {
      inFlight.add(p);
      void p.finally(() => inFlight.delete(p));
    };
    const started = Date.now();
    const endAt = started + SECONDS * 1000;
    const nextPresence = clients.map(() => started + Math.random() * 60_000);
    const acc = MIX.map(() => 0);
    const faultLog: string[] = [];
    let faultsDone = !FAULTS || sc.processes < 2;
    const faults = (async () => {
      if (!FAULTS || sc.processes < 2) return;
      await sleep(SECONDS * 300);
      const victim = procs[1]!;
      stats.phase = 'kill -9';
      const t0 = ((Date.now() - started) / 1000).toFixed(1);
      await victim.stop('SIGKILL');
      // A supervisor brings it back a moment later, as a new process (its queues are gone).
      await sleep(2000);
      await victim.start();
      faultLog.push(`kill -9 ${victim.name} at ${t0} s, restarted at ${((Date.now() - started) / 1000).toFixed(1)} s`);
      await sleep(Math.max(0, started + SECONDS * 600 - Date.now()));
      const graceful = procs[2 % sc.processes]!;
      stats.phase = 'SIGTERM';
      const t1 = ((Date.now() - started) / 1000).toFixed(1);
      const tookMs = await graceful.stop('SIGTERM');
      await graceful.start();
      faultsDone = true;
      faultLog.push(`SIGTERM ${graceful.name} at ${t1} s (exited after ${(tookMs / 1000).toFixed(1)} s), restarted at ${((Date.now() - started) / 1000).toFixed(1)} s`);
    })().then(
      () => null,
      (err: unknown) => {
        faultsDone = true;
        return err;
      },
    );
    // The load goes on until the faults are over (a slow restart does not end it early).
    let until = endAt;
    while (Date.now() < until) {
      await sleep(100);
      MIX.forEach(([op, perSend], i) => {
        acc[i]! += (RATE * perSend) / 10;
        while (acc[i]! >= 1) {
          acc[i]! -= 1;
          const c = clients[Math.floor(Math.random() * clients.length)]!;
          fire(op === 'send' ? c.send() : op === 'read' ? c.read() : op === 'typing' ? c.typing() : op === 'edit' ? c.edit() : c.react());
        }
      });
      const now = Date.now();
      clients.forEach((c, i) => {
        if (nextPresence[i]! <= now) {
          nextPresence[i]! += 60_000;
          fire(c.presence());
        }
      });
      if (!faultsDone) until = Math.max(until, Date.now() + 3000);
    }
    const faultError = await faults;
    if (faultError) throw faultError;
    await Promise.all(inFlight);
    const loadSeconds = (Date.now() - started) / 1000;

    // Every queue gets a moment to receive what is still on its way.
    const successful = [...world.sent.values()].filter((s) => s.id !== undefined);
    const channelSets = new Map(clients.map((c) => [c, new Set(c.user.channels)]));
    const missing = () => {
      let n = 0;
      for (const c of clients) {
        const mine = channelSets.get(c)!;
        for (const s of successful) if (mine.has(s.channelId) && s.id! > c.firstMax && !c.seen.has(s.id!)) n++;
      }
      return n;
    };
    const settleUntil = Date.now() + 20_000;
    while (missing() > 0 && Date.now() < settleUntil) await sleep(250);
    const eventsLost = missing();
    world.stopping = true;
    World.destroyConnections();
    await Promise.all(clients.map((c) => c.stopped()));

    // The database: every successful send exactly once.
    const byToken = new Map<string, number[]>();
    for (const m of await storedMessages(db.url)) {
      const token = /^(L[0-9a-z]+-\d+)\b/.exec(m.content)?.[1];
      if (!token) continue;
      const ids = byToken.get(token) ?? [];
      ids.push(m.id);
      byToken.set(token, ids);
    }
    let stored = 0;
    let msgLost = 0;
    let msgDup = 0;
    let failedSends = 0;
    let failedStored = 0;
    for (const s of world.sent.values()) {
      const ids = byToken.get(s.token) ?? [];
      if (ids.length > 1) msgDup++;
      if (s.id !== undefined) {
        if (ids.includes(s.id)) stored++;
        else msgLost++;
      } else {
        failedSends++;
        if (ids.length) failedStored++;
      }
    }
    const eventsDup = clients.reduce((n, c) => n + c.duplicates, 0);
    const outOfOrder = clients.reduce((n, c) => n + c.outOfOrder, 0);

    // The report.
    out(`   ${'operation'.padEnd(22)} ${'ok'.padStart(7)} ${'per s'.padStart(8)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'errors'.padStart(7)}`);
    for (const op of ['register', 'send', 'delivery', 'read', 'typing', 'edit', 'reaction', 'presence', 'catch-up', 'poll']) {
      const l = (stats.latencies.get(op) ?? []).slice().sort((a, b) => a - b);
      const errors = stats.errorCount(op);
      if (!l.length && !errors) continue;
      const name = op === 'delivery' ? 'delivery (send→event)' : op;
      const perS = op === 'register' || op === 'catch-up' || op === 'poll' ? '' : fmt(l.length / loadSeconds);
      out(`   ${name.padEnd(22)} ${String(l.length).padStart(7)} ${perS.padStart(8)} ${fmt(percentile(l, 50)).padStart(8)} ${fmt(percentile(l, 99)).padStart(8)} ${String(errors).padStart(7)}`);
    }
    for (const f of faultLog) out(`   fault: ${f}`);
    for (const [phase, m] of stats.errors) {
      out(`   errors during ${phase}: ${[...m].map(([k, v]) => `${k} ×${v}`).join(', ')}`);
    }
    const reReg = [...stats.reRegistered].map(([phase, n]) => `${n} after ${phase}`).join(', ') || 'none';
    out(`   messages: ${successful.length} answered with success, ${stored} stored; lost ${msgLost}, duplicated ${msgDup}` +
      (failedSends ? ` (${failedSends} sends failed, ${failedStored} of those stored anyway)` : ''));
    out(`   queues: ${clients.length} live; re-registered (BAD_EVENT_QUEUE_ID): ${reReg}; events lost ${eventsLost}, duplicated ${eventsDup}, out of id order ${outOfOrder}`);

    if (msgLost) failures.push(`${sc.name}: ${msgLost} messages answered with success are not in the database`);
    if (msgDup) failures.push(`${sc.name}: ${msgDup} messages stored more than once`);
    if (eventsLost) failures.push(`${sc.name}: ${eventsLost} message events never reached their queue`);
    if (eventsDup) failures.push(`${sc.name}: ${eventsDup} message events delivered twice to one queue`);
    // A graceful stop hands its queues to a running process: no client should have to register again.
    const afterSigterm = stats.reRegistered.get('SIGTERM') ?? 0;
    if (afterSigterm) failures.push(`${sc.name}: ${afterSigterm} clients told BAD_EVENT_QUEUE_ID after the SIGTERM restart`);
    for (const [phase, m] of stats.errors) {
      if (phase === 'kill -9') continue;
      const n = [...m.values()].reduce((a, b) => a + b, 0);
      if (n) failures.push(`${sc.name}: ${n} errors during ${phase}`);
    }
    // A server error is a bug to chase: show what the processes logged.
    const serverErrors = [...stats.errors.values()].some((m) => [...m.keys()].some((k) => /INTERNAL_SERVER_ERROR|HTTP 500/.test(k)));
    if (serverErrors) for (const p of procs) if (p.stderrTail.length) out(`   ${p.name} stderr (last lines):\n     ${p.stderrTail.join('\n     ')}`);
    out(failures.length ? `   FAILED: ${failures.join('; ')}` : '   OK: nothing lost, nothing duplicated');
    return failures;
  } catch (err) {
    for (const p of procs) if (p.stderrTail.length) out(`   ${p.name} stderr:\n     ${p.stderrTail.join('\n     ')}`);
    throw err;
  } finally {
    world.stopping = true;
    World.destroyConnections();
    await balancer?.stop().catch(() => undefined);
    await Promise.all(procs.map((p) => p.stop('SIGKILL')));
    await db.drop();
  }
}

async function main(): Promise<number> {
  const failures: string[] = [];
  for (const name of SCENARIOS) {
    const sc = ALL.find((s) => s.name === name);
    if (!sc) throw new Error(`unknown scenario ${name} (A, B, C or D)`);
    failures.push(...(await runScenario(sc)));
  }
  out(failures.length ? `\nload: FAILED\n  ${failures.join('\n  ')}` : '\nload: OK');
  return failures.length ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err);
    process.exit(2);
  },
);
