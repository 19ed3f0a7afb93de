// A background job run every interval, never overlapping itself, stoppable (waits for a run in
// progress to finish).
export interface Periodic {
  stop(): Promise<void>;
  /** Whether stop() was called: long runs check it between steps. */
  readonly stopped: boolean;
}

export function runPeriodically(name: string, intervalMs: number, job: (self: Periodic) => Promise<unknown>): Periodic {
  let running: Promise<unknown> | null = null;
  let stopped = false;
  const self: Periodic = {
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
    if (running || stopped) return;
    running = job(self)
      .catch((err) => console.error(`${name}:`, err))
      .finally(() => {
        running = null;
      });
  }, intervalMs);
  timer.unref();
  return self;
}
