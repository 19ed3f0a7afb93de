// The send-to-event load generator of `npm run bench`: the sender in one child process, the
// long-polling queues split over CONFAB_BENCH_POLLER_PROCESSES others (bench/loadgen_child.ts),
// so the client's work is off the bench process and measured (its CPU from /proc) rather than
// silently inside every latency figure. Every phase has a deadline, and every child is killed
// when the phase ends, however it ends.
import { fork, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const POLLER_PROCESSES = Number(process.env.CONFAB_BENCH_POLLER_PROCESSES || 2);
/** How long the pollers wait, after the last send was answered, for its events to arrive. */
const DRAIN_MS = Number(process.env.CONFAB_BENCH_DRAIN_MS || 15_000);

// The messages between the bench process and its children.
export interface SenderSetup {
  type: 'sender';
  base: string;
  auth: string;
  channel: string;
  /** Messages a second (open loop), or undefined for `senders` closed loops (saturation). */
  rate?: number;
  senders: number;
  seconds: number;
  deadlineMs: number;
}
export interface PollerSetup {
  type: 'poller';
  base: string;
  auths: string[];
  deadlineMs: number;
}
export type ChildCommand = SenderSetup | PollerSetup | { type: 'drain'; sent: number; ids: number[]; waitMs: number; deadlineMs?: undefined };
export type ChildReport =
  | { type: 'ready' }
  | { type: 'sent'; sent: number; elapsed: number; answerP50: number; ids: number[] }
  | { type: 'polled'; queues: number; polls: number; events: number; latencies: number[]; lost: number; duplicated: number; outOfOrder: number; reordered: number; unknown: number }
  | { type: 'error'; message: string };

export interface LoadResult {
  /** Messages answered with success, per second of sending. */
  perSecond: number;
  sent: number;
  answerP50: number;
  p50: number;
  p99: number;
  events: number;
  lost: number;
  duplicated: number;
  outOfOrder: number;
  /** Deliveries in another order than another queue of the same poller process got them. */
  reordered: number;
  /** CPU over the sending window, in cores: the server's, the sender's and all pollers'. */
  serverCpu: number;
  /** The server's main threads' share of serverCpu, in cores. */
  serverMainCpu: number;
  /** Share of the sending window the server's main thread spent waiting for a CPU. */
  serverWaited: number;
  senderCpu: number;
  pollerCpu: number;
}

/**
 * The process and every live process below it: a server run with CONFAB_WORKERS is a cluster
 * primary whose workers do the work, and their CPU counts as the server's.
 */
export function processTree(pid: number): number[] {
  const parentOf = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const fields = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]!.split(' ');
      parentOf.set(Number(entry), Number(fields[1]));
    } catch {
      // The process ended meanwhile.
    }
  }
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) for (const [child, parent] of parentOf) if (parent === tree[i]) tree.push(child);
  return tree;
}

function sumOver(pids: number[], read: (pid: number) => number): number {
  let total = 0;
  for (const p of pids) {
    try {
      total += read(p);
    } catch {
      // The process ended meanwhile: its CPU so far is lost to the figure, as it would be to ps.
    }
  }
  return total;
}

/**
 * CPU seconds (user + system, all threads) a process and its child processes (live ones) have
 * used so far (clock ticks are 1/100 s).
 */
export function cpuSeconds(pid: number): number {
  return sumOver(processTree(pid), (p) => {
    const fields = readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  });
}

/**
 * CPU seconds of the main threads alone (the JavaScript event loop of each process): the rest of
 * cpuSeconds is V8's helper threads (parallel scavenges, concurrent marking and compiling),
 * libuv's pool (the WAL's fdatasync) and the SQLite checkpoint worker.
 */
export function mainThreadCpuSeconds(pid: number): number {
  return sumOver(processTree(pid), (p) => {
    const fields = readFileSync(`/proc/${p}/task/${p}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  });
}

/**
 * Seconds the main threads of the process and its child processes have waited on a run queue
 * for a CPU so far (the second field of schedstat): on a shared machine, time a server was ready
 * to work and could not.
 */
export function runQueueSeconds(pid: number): number {
  return sumOver(processTree(pid), (p) => Number(readFileSync(`/proc/${p}/schedstat`, 'utf8').split(' ')[1]) / 1e9);
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** A child and the reports it sends, each awaited with a deadline; an error report or an exit rejects. */
class Child {
  readonly process: ChildProcess;
  private readonly reports: ChildReport[] = [];
  private wake: (() => void) | null = null;
  private failure: Error | null = null;

  constructor(readonly name: string) {
    this.process = fork(join(here, 'loadgen_child.js'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    this.process.on('message', (m: ChildReport) => {
      if (m.type === 'error') this.failure = new Error(`${name}: ${m.message}`);
      else this.reports.push(m);
      this.wake?.();
    });
    // 'close', not 'exit': by then every message the child sent has been delivered.
    this.process.on('close', (code, signal) => {
      this.failure ??= new Error(`${name} exited (${code ?? signal}) before its report`);
      this.wake?.();
    });
    this.process.on('error', (err) => {
      this.failure ??= err;
      this.wake?.();
    });
  }

  send(m: ChildCommand): void {
    this.process.send(m);
  }

  async next<T extends ChildReport['type']>(type: T, timeoutMs: number): Promise<Extract<ChildReport, { type: T }>> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const i = this.reports.findIndex((r) => r.type === type);
      if (i >= 0) return this.reports.splice(i, 1)[0] as Extract<ChildReport, { type: T }>;
      if (this.failure) throw this.failure;
      const left = deadline - performance.now();
      if (left <= 0) throw new Error(`${this.name}: no '${type}' report within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = null;
    }
  }

  kill(): void {
    if (this.process.exitCode === null && this.process.signalCode === null) this.process.kill('SIGKILL');
  }
}

// Children die with the bench process, even when it exits on an error between phases.
const live = new Set<Child>();
process.on('exit', () => {
  for (const c of live) c.kill();
});

/**
 * Messages into `channel` while each of `auths` long-polls its own queue. With a rate: an open
 * loop at that many messages a second, each latency counted from when the message was due. Without:
 * `senders` concurrent senders, each sending as soon as its last send was answered.
 */
export async function generate(opts: { base: string; senderAuth: string; channel: string; auths: string[]; rate?: number; senders: number; seconds: number; serverPid: number }): Promise<LoadResult> {
  const children: Child[] = [];
  const spawn = (name: string) => {
    const c = new Child(name);
    children.push(c);
    live.add(c);
    return c;
  };
  // Hard limits for the children themselves, beyond the waits below (a stuck parent still ends them).
  const deadlineMs = opts.seconds * 1000 + DRAIN_MS + 120_000;
  try {
    const share = Math.ceil(opts.auths.length / POLLER_PROCESSES);
    const pollers = Array.from({ length: POLLER_PROCESSES }, (_, i) => opts.auths.slice(i * share, (i + 1) * share))
      .filter((a) => a.length > 0)
      .map((auths, i) => {
        const c = spawn(`poller ${i}`);
        c.send({ type: 'poller', base: opts.base, auths, deadlineMs });
        return c;
      });
    for (const p of pollers) await p.next('ready', 60_000);

    const sender = spawn('sender');
    const cpuBefore = [opts.serverPid, sender.process.pid!, ...pollers.map((p) => p.process.pid!)].map(cpuSeconds);
    const waitBefore = runQueueSeconds(opts.serverPid);
    const mainBefore = mainThreadCpuSeconds(opts.serverPid);
    const started = performance.now();
    sender.send({ type: 'sender', base: opts.base, auth: opts.senderAuth, channel: opts.channel, rate: opts.rate, senders: opts.senders, seconds: opts.seconds, deadlineMs });
    // Sends still unanswered long after the window (the server far behind) fail the phase.
    const sent = await sender.next('sent', opts.seconds * 1000 + 60_000);
    const elapsed = (performance.now() - started) / 1000;
    const cpuAfter = [opts.serverPid, sender.process.pid!, ...pollers.map((p) => p.process.pid!)].map(cpuSeconds);
    const cpu = cpuAfter.map((a, i) => (a - cpuBefore[i]!) / elapsed);
    const serverWaited = (runQueueSeconds(opts.serverPid) - waitBefore) / elapsed;
    const serverMainCpu = (mainThreadCpuSeconds(opts.serverPid) - mainBefore) / elapsed;

    for (const p of pollers) p.send({ type: 'drain', sent: sent.sent, ids: sent.ids, waitMs: DRAIN_MS });
    const polled = await Promise.all(pollers.map((p) => p.next('polled', DRAIN_MS + 30_000)));
    const latencies = polled.flatMap((p) => p.latencies).sort((a, b) => a - b);
    const sum = (k: 'lost' | 'duplicated' | 'outOfOrder' | 'reordered' | 'unknown') => polled.reduce((n, p) => n + p[k], 0);
    if (sum('unknown') > 0) throw new Error(`${sum('unknown')} events of messages the sender never had answered`);
    // An event read before it was stamped would mean the children's clocks disagree.
    if (latencies.length && latencies[0]! < -0.5) throw new Error(`an event arrived ${-latencies[0]!} ms before it was sent`);
    return {
      perSecond: sent.sent / sent.elapsed,
      sent: sent.sent,
      answerP50: sent.answerP50,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      events: latencies.length,
      lost: sum('lost'),
      duplicated: sum('duplicated'),
      outOfOrder: sum('outOfOrder'),
      reordered: sum('reordered'),
      serverCpu: cpu[0]!,
      serverMainCpu,
      serverWaited,
      senderCpu: cpu[1]!,
      pollerCpu: cpu.slice(2).reduce((a, b) => a + b, 0),
    };
  } finally {
    for (const c of children) {
      c.kill();
      live.delete(c);
    }
  }
}
