// Where each event queue lives when several processes serve one organization. A queue stays in the
// process that registered it (its events are delivered there, in order, exactly once); every
// process announces in Redis the address at which the others can reach it, and a queue's id
// begins with its home process's id. A GET /events that a round-robin balancer sends elsewhere is
// forwarded to the home process (http/queue_forward.ts); when the home is gone, the queue is gone,
// and the client gets BAD_EVENT_QUEUE_ID and registers again, as Zulip's contract for a lost
// queue says.
import { Redis } from 'ioredis';

/** Seconds an announcement lives without a refresh: a process killed outright drops out after this. */
const ANNOUNCE_TTL_SECONDS = 15;
const REFRESH_MS = 5_000;

/** A queue id made by a clustered process: `<node id>-<local id>`. */
const NODE_PREFIX = /^([0-9a-f]{16})-/;

export function homeNodeOf(queueId: string): string | undefined {
  return NODE_PREFIX.exec(queueId)?.[1];
}

export class QueueDirectory {
  private readonly redis: Redis;
  private timer: NodeJS.Timeout | null = null;
  private announced: string | null = null;

  constructor(
    url: string,
    private readonly prefix: string,
    /** This process's id, the first part of every queue id it makes. */
    readonly nodeId: string,
  ) {
    this.redis = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 2 });
    this.redis.on('error', () => {
      // ioredis reconnects by itself; lookups that fail meanwhile answer "unknown home".
    });
  }

  private key(nodeId: string): string {
    return `${this.prefix}:node:${nodeId}`;
  }

  /** Publishes this process's internal address and keeps it fresh until withdraw(). */
  async announce(internalUrl: string): Promise<void> {
    this.announced = internalUrl;
    const write = () => this.redis.set(this.key(this.nodeId), internalUrl, 'EX', ANNOUNCE_TTL_SECONDS);
    await write();
    this.timer = setInterval(() => {
      write().catch((err: unknown) => console.error('cluster: could not refresh this process in Redis:', err));
    }, REFRESH_MS);
    this.timer.unref();
  }

  /** The internal address of a queue's home process, or undefined when it is gone or unknown. */
  async homeOf(queueId: string): Promise<string | undefined> {
    const node = homeNodeOf(queueId);
    if (!node || node === this.nodeId) return undefined;
    try {
      return (await this.redis.get(this.key(node))) ?? undefined;
    } catch {
      return undefined;
    }
  }

  /** Stops announcing: new requests for this process's queues are told the queue is gone. */
  async withdraw(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (this.announced === null) return;
    this.announced = null;
    // Only our own entry: a restarted process never shares an id with an earlier one.
    await this.redis.del(this.key(this.nodeId)).catch(() => undefined);
  }

  async close(): Promise<void> {
    await this.withdraw();
    await this.redis.quit().catch(() => undefined);
  }
}
