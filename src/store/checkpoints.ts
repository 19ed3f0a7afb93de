// SQLite WAL checkpoints off the main thread when the server is busy. A quiet server keeps
// SQLite's own checkpoints (every 1,000 WAL pages, run by the writer inside a commit; rare at a
// team's pace), and no worker thread: one costs ~12 MB resident. Once commits come fast
// (BUSY_COMMITS within a second), the writer's automatic checkpoints are turned off and one
// worker thread (checkpoint_worker.ts), shared by every database of the process, checkpoints at
// most every CHECKPOINT_EVERY_MS instead; after IDLE_MS without a commit the writer takes them
// back, and the worker ends when no database needs it.
import { Worker } from 'node:worker_threads';
import type { CheckpointReply, CheckpointRequest } from './checkpoint_worker.js';

const CHECKPOINT_EVERY_MS = 200;
const BUSY_COMMITS = 20;
const IDLE_MS = 30_000;
/** SQLite's default wal_autocheckpoint. */
const SQLITE_AUTOCHECKPOINT_PAGES = 1000;

let worker: Worker | null = null;
let nextId = 0;
const waiting = new Map<number, (reply: CheckpointReply) => void>();
/** How many databases' checkpoints the worker makes now. */
let offloadedFiles = 0;

function ask(req: Omit<CheckpointRequest, 'id'>): Promise<CheckpointReply> {
  if (!worker) {
    worker = new Worker(new URL('./checkpoint_worker.js', import.meta.url));
    worker.unref();
    worker.on('message', (reply: CheckpointReply) => {
      waiting.get(reply.id)?.(reply);
      waiting.delete(reply.id);
    });
    worker.on('error', (err) => {
      console.error('the SQLite checkpoint worker failed:', err);
      for (const resolve of waiting.values()) resolve({ id: -1, ok: false, error: String(err) });
      waiting.clear();
      worker = null;
    });
  }
  const id = nextId++;
  const w = worker;
  return new Promise((resolve) => {
    waiting.set(id, resolve);
    w.postMessage({ ...req, id } as CheckpointRequest);
  });
}

/** The worker forgets the file; it ends when it serves no database. */
async function release(file: string): Promise<void> {
  if (worker) await ask({ op: 'forget', file });
  if (--offloadedFiles === 0 && worker) {
    const w = worker;
    worker = null;
    await w.terminate();
  }
}

/** Checkpoints for one database file, told of each durable batch by its group commit. */
export class Checkpointer {
  private running: Promise<void> | null = null;
  private offloaded = false;
  private windowStartMs = 0;
  private windowCommits = 0;
  private lastCommitMs = 0;
  private lastCheckpointMs = 0;
  private dirty = false;
  private stopped = false;
  /** Ends the pause between checkpoints early (on close). */
  private endPause: (() => void) | null = null;
  private idleTimer: NodeJS.Timeout | null = null;

  /** autocheckpoint(pages) sets the writer's wal_autocheckpoint (0: off). */
  constructor(
    private readonly file: string,
    private readonly autocheckpoint: (pages: number) => Promise<void>,
  ) {}

  /** After a commit. */
  committed(): void {
    if (this.stopped) return;
    const now = Date.now();
    this.lastCommitMs = now;
    if (!this.offloaded) {
      if (now - this.windowStartMs > 1000) {
        this.windowStartMs = now;
        this.windowCommits = 0;
      }
      if (++this.windowCommits < BUSY_COMMITS) return;
      this.offload();
    }
    this.dirty = true;
    if (!this.running) this.running = this.run();
  }

  private offload(): void {
    this.offloaded = true;
    offloadedFiles++;
    void this.autocheckpoint(0);
    this.idleTimer = setTimeout(() => this.checkIdle(), IDLE_MS);
    this.idleTimer.unref();
  }

  /** Quiet for IDLE_MS: the writer checkpoints again, and the worker may end. */
  private checkIdle(): void {
    const quietFor = Date.now() - this.lastCommitMs;
    if (quietFor < IDLE_MS || this.running) {
      this.idleTimer = setTimeout(() => this.checkIdle(), Math.max(IDLE_MS - quietFor, 1000));
      this.idleTimer.unref();
      return;
    }
    this.idleTimer = null;
    this.offloaded = false;
    void this.autocheckpoint(SQLITE_AUTOCHECKPOINT_PAGES).then(() => release(this.file));
  }

  private pause(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => resolve(), ms);
      timer.unref();
      this.endPause = () => {
        clearTimeout(timer);
        resolve();
      };
    }).finally(() => {
      this.endPause = null;
    });
  }

  private async run(): Promise<void> {
    try {
      while (this.dirty && !this.stopped) {
        const wait = this.lastCheckpointMs + CHECKPOINT_EVERY_MS - Date.now();
        if (wait > 0) await this.pause(wait);
        if (this.stopped) break;
        this.dirty = false;
        const reply = await ask({ op: 'checkpoint', file: this.file });
        this.lastCheckpointMs = Date.now();
        if (!reply.ok) {
          console.error(`checkpointing ${this.file} in the worker failed (${reply.error}); the writer checkpoints again`);
          this.stopped = true;
          await this.autocheckpoint(SQLITE_AUTOCHECKPOINT_PAGES);
        }
      }
    } finally {
      this.running = null;
    }
  }

  /** Before the database closes: no more checkpoints here, and the worker lets the file go. */
  async close(): Promise<void> {
    this.stopped = true;
    this.endPause?.();
    if (this.idleTimer) clearTimeout(this.idleTimer);
    while (this.running) await this.running;
    if (this.offloaded) {
      this.offloaded = false;
      await release(this.file);
    }
  }
}
