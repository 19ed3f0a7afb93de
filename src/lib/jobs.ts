// One server's background work that actions wake or wait for: the runners of persisted queues
// (woken after a commit that queued rows), one-off tasks that outlive the request that started
// them (organization exports), and the flood guard of notices about misconfigured bots. Created
// with the server's Services (services.jobs, in app.ts), so two servers in one process never
// share any of it.
import type { Periodic } from './periodic.js';

export class BackgroundJobs {
  /** The email outbox runner, once started (actions/email.ts). */
  mail: Periodic | null = null;
  /** The mobile push runner, once started; none without a push bouncer (actions/push_notifications.ts). */
  push: Periodic | null = null;
  /** The outgoing-webhook worker, once started (actions/outgoing_webhooks.ts); other processes find rows by polling. */
  outgoingWebhooks: { poke(): void } | null = null;
  /** When each bot's owner was last told about its misconfigured integration (actions/webhook_messages.ts). */
  readonly botOwnerNotices = new Map<number, number>();
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
