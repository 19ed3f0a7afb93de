// `confab serve` with CONFAB_WORKERS=N (N ≥ 2): this process, the primary of a node:cluster, forks
// N workers that each run the whole server and share the one listening port (the primary hands
// each new connection to one of them in turn). It joins them without Redis: it relays the event
// bus (events/ipc_bus.ts), keeps the table of where queues live (events/ipc_directory.ts) and the
// rate-limit counters (lib/ipc_rate_limit.ts). It stays small: bin/confab.js loads this module
// instead of the server, and it never opens the database (the workers migrate it; the first worker
// starts alone, so a fresh database is migrated and given its organization once, before the others).
//
// A worker that dies is started again, after a pause that doubles while workers keep dying young.
// SIGTERM or SIGINT stops the workers one at a time, each with its graceful stop, so each one's
// queues go to a worker still running (events/handover.ts); the primary exits once all have.
import cluster, { type Worker } from 'node:cluster';
import { loadConfig } from '../config.js';
import { RateLimiter } from '../lib/rate_limit.js';
import { answerRateLimit } from '../lib/ipc_rate_limit.js';
import { isIpcMessage } from '../lib/ipc.js';
import { relayBusMessage } from '../events/ipc_bus.js';
import { DirectoryTable } from '../events/ipc_directory.js';
import { WriteTurnTable } from '../lib/ipc_write_turn.js';
import { CONFAB_VERSION } from '../lib/version.js';

/** A worker that lived less than this before dying counts as dying young: the next pause doubles. */
const YOUNG_MS = 30_000;
const FIRST_PAUSE_MS = 250;
const MAX_PAUSE_MS = 30_000;
const GRANT = { confab: 'turn', op: 'grant' };

export async function runPrimary(): Promise<number> {
  const config = loadConfig();
  // With Redis the workers share everything there, as separate processes would.
  const joined = !config.redisUrl;
  const limiter = joined && config.rateLimits ? new RateLimiter(config.rateLimits) : null;
  const table = new DirectoryTable();
  // SQLite's write turn (lib/ipc_write_turn.ts): only workers on SQLite ask for it.
  const turns = new WriteTurnTable((id) => {
    const w = cluster.workers?.[id];
    if (w?.isConnected()) w.send(GRANT);
  });
  const live = new Set<Worker>();
  let stopping = false;
  let pause = FIRST_PAUSE_MS;
  let restartTimer: NodeJS.Timeout | null = null;
  let publicUrl = '';

  const sendTable = () => {
    const message = table.message();
    for (const w of live) if (w.isConnected()) w.send(message);
  };

  const onMessage = (worker: Worker, message: unknown) => {
    // The bus first: it carries nearly every message, and its order is the one every worker sees.
    if (relayBusMessage(message, live)) return;
    if (turns.handle(worker.id, message)) return;
    if (limiter && answerRateLimit(limiter, message, (m) => worker.isConnected() && worker.send(m))) return;
    const handled = table.handle(worker.id, message);
    if (handled) {
      // Every worker has the new table before the one that changed it hears back.
      if (handled.changed) sendTable();
      if (worker.isConnected()) worker.send(handled.answer);
    }
  };

  /** Forks a worker; resolves with its public address once it serves, rejects if it exits first. */
  const fork = (): Promise<string> => {
    const worker = cluster.fork();
    const bornAt = Date.now();
    live.add(worker);
    worker.on('message', (m: unknown) => onMessage(worker, m));
    worker.once('online', () => {
      if (joined && worker.isConnected()) worker.send(table.message());
    });
    const ready = new Promise<string>((resolve, reject) => {
      worker.on('message', (m: unknown) => {
        if (isIpcMessage(m, 'ready')) resolve(String(m.url));
      });
      worker.once('exit', (code, signal) => reject(new Error(`worker ${worker.process.pid} exited (${signal ?? `code ${code}`}) before serving`)));
    });
    worker.once('exit', (code, signal) => {
      live.delete(worker);
      // A worker that died holding the write turn (or waiting for it) gives it up.
      if (turns.dropWorker(worker.id)) process.stderr.write(`confab: worker ${worker.process.pid} exited holding the SQLite write turn; it went to the next worker\n`);
      if (joined && table.dropWorker(worker.id)) sendTable();
      if (stopping) return;
      // Only the ones we did not ask to stop: a crash, kill -9, out of memory.
      const young = Date.now() - bornAt < YOUNG_MS;
      const wait = young ? pause : FIRST_PAUSE_MS;
      pause = young ? Math.min(MAX_PAUSE_MS, pause * 2) : FIRST_PAUSE_MS;
      process.stderr.write(`confab: worker ${worker.process.pid} exited (${signal ?? `code ${code}`}); starting another in ${wait} ms\n`);
      restartTimer = setTimeout(() => {
        restartTimer = null;
        if (stopping) return;
        fork().then(
          () => process.stdout.write(`Confab worker ${pidOf(worker)} replaced\n`),
          (err: unknown) => process.stderr.write(`confab: ${err instanceof Error ? err.message : String(err)}\n`),
        );
      }, wait);
    });
    void ready.then(
      () => process.stdout.write(`Confab worker ${worker.process.pid} serving\n`),
      () => undefined,
    );
    return ready;
  };
  const pidOf = (w: Worker) => w.process.pid;

  let signals = 0;
  let stopRequested!: () => void;
  const requested = new Promise<void>((resolve) => (stopRequested = resolve));
  const onSignal = () => {
    if (++signals === 1) return stopRequested();
    // A second signal: every worker still running stops at once (its own second signal).
    for (const w of live) w.process.kill('SIGTERM');
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);

  try {
    // The first worker alone: it migrates the database and, on an empty one, makes the organization.
    publicUrl = await fork();
    await Promise.all(Array.from({ length: config.workers - 1 }, () => fork()));
  } catch (err) {
    stopping = true;
    process.stderr.write(`confab: ${err instanceof Error ? err.message : String(err)}\n`);
    await stopAll(live, true);
    return 1;
  }
  // With CONFAB_PORT=0 the port is known only now (the workers' links carry it too).
  const externalUrl = !process.env.CONFAB_EXTERNAL_URL && config.port === 0 ? publicUrl : config.externalUrl;
  process.stdout.write(`Confab ${CONFAB_VERSION} listening on ${publicUrl} with ${config.workers} worker processes (clients use ${externalUrl})\n`);
  await requested;
  stopping = true;
  if (restartTimer) clearTimeout(restartTimer);
  const clean = await stopAll(live, false);
  await limiter?.close();
  process.stdout.write('Confab stopped.\n');
  return clean ? 0 : 1;
}

/**
 * Stops the workers one at a time (each hands its queues to one still running), or all together.
 * Resolves true if every one exited cleanly.
 */
async function stopAll(live: Set<Worker>, together: boolean): Promise<boolean> {
  let clean = true;
  const stopOne = (w: Worker) =>
    new Promise<void>((resolve) => {
      if (w.isDead()) return resolve();
      w.once('exit', (code, signal) => {
        if (code !== 0 || signal) clean = false;
        resolve();
      });
      w.process.kill('SIGTERM');
    });
  if (together) await Promise.all([...live].map(stopOne));
  else for (const w of [...live]) await stopOne(w);
  return clean;
}
