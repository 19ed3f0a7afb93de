// A background job run every interval, never overlapping itself, stoppable (waits for a run in
// progress to finish).
export interface Periodic {
  stop(): Promise<void>;
  /** Whether stop() was called: long runs check it between steps. */
  readonly stopped: boolean;
  /** Runs the job now (or again right after the run in progress) instead of at the next tick. */
  runSoon(): void;
}

export function runPeriodically(name: string, intervalMs: number, job: (self: Periodic) => Promise<unknown>): Periodic {
  let running: Promise<unknown> | null = null;
  let stopped = false;
  let again = false;
  const tick = () => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    again = false;
    running = job(self)
      .catch((err) => console.error(`${name}:`, err))
      .finally(() => {
        running = null;
        if (again) setImmediate(tick);
      });
  };
  const self: Periodic = {
    runSoon: tick,
    get stopped() {
      return stopped;
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      if (running) await running;
    },
  };
  const timer = setInterval(() => {
    if (!running) tick();
  }, intervalMs);
  timer.unref();
  return self;
}
