// One server's background work that actions wake or wait for: the runners of persisted queues
// (woken after a commit that queued rows) and one-off tasks that outlive the request that started
// them (organization exports). Created with the server's Services (services.jobs, in app.ts), so
// two servers in one process never wake or wait for each other's work.
import type { Periodic } from './periodic.js';

export class BackgroundJobs {
  /** The email outbox runner, once started (actions/email.ts). */
  mail: Periodic | null = null;
  /** The mobile push runner, once started; none without a push bouncer (actions/push_notifications.ts). */
  push: Periodic | null = null;
  private readonly tasks = new Set<Promise<void>>();

  /** Runs task after the current turn (once the caller has answered), kept until it settles; failures are logged. */
  runSoon(name: string, task: () => Promise<void>): void {
    const p: Promise<void> = new Promise<void>((resolve) => setImmediate(resolve))
      .then(task)
      .catch((err) => console.error(`${name} failed:`, err))
      .finally(() => this.tasks.delete(p));
    this.tasks.add(p);
  }

  /** Waits for the tasks running now (shutting down lets them finish). */
  async settle(): Promise<void> {
    await Promise.allSettled([...this.tasks]);
  }
}
