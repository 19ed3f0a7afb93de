// SQLite WAL checkpoints off the main thread. The writer connection runs with automatic
// checkpoints off; after commits, the database asks for a checkpoint at most every
// CHECKPOINT_EVERY_MS, and one worker thread (checkpoint_worker.ts), started on the first
// request, runs them for every database of the process.
import { Worker } from 'node:worker_threads';
import type { CheckpointReply, CheckpointRequest } from './checkpoint_worker.js';

const CHECKPOINT_EVERY_MS = 200;

let worker: Worker | null = null;
let nextId = 0;
const waiting = new Map<number, (reply: CheckpointReply) => void>();
let users = 0;

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

/** Checkpoints for one database file, asked for by its group commit after each durable batch. */
export class Checkpointer {
  private running: Promise<void> | null = null;
  private lastMs = 0;
  private dirty = false;
  private stopped = false;
  /** Ends the pause between checkpoints early (on close). */
  private endPause: (() => void) | null = null;

  /**
   * fallback: called once if the worker cannot checkpoint, to give the writer its automatic
   * checkpoints back (the main thread then pays for them, as SQLite does by default).
   */
  constructor(
    private readonly file: string,
    private readonly fallback: () => void,
  ) {
    users++;
  }

  /** After a commit: checkpoint soon, in the background. */
  committed(): void {
    this.dirty = true;
    if (!this.running && !this.stopped) this.running = this.run();
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
        const wait = this.lastMs + CHECKPOINT_EVERY_MS - Date.now();
        if (wait > 0) await this.pause(wait);
        if (this.stopped) break;
        this.dirty = false;
        const reply = await ask({ op: 'checkpoint', file: this.file });
        this.lastMs = Date.now();
        if (!reply.ok) {
          console.error(`checkpointing ${this.file} in the worker failed (${reply.error}); the writer checkpoints again`);
          this.stopped = true;
          this.fallback();
        }
      }
    } finally {
      this.running = null;
    }
  }

  /** Before the database closes: no more checkpoints here, the worker's connection closed. */
  async close(): Promise<void> {
    this.stopped = true;
    this.endPause?.();
    while (this.running) await this.running;
    if (worker) await ask({ op: 'forget', file: this.file });
    if (--users === 0 && worker) {
      const w = worker;
      worker = null;
      await w.terminate();
    }
  }
}
