// Where each event queue lives when several processes serve one organization. A queue stays in the
// process that registered it (its events are delivered there, in order, exactly once); every
// process announces in Redis the address at which the others can reach it, and a queue's id
// begins with its home process's id. A GET /events that a round-robin balancer sends elsewhere is
// forwarded to the home process (http/queue_forward.ts); when the home is gone, the queue is gone,
// and the client gets BAD_EVENT_QUEUE_ID and registers again, as Zulip's contract for a lost
// queue says.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { Redis } from 'ioredis';

/** Seconds an announcement lives without a refresh: a process killed outright drops out after this. */
const ANNOUNCE_TTL_SECONDS = 15;
const REFRESH_MS = 5_000;

/** A queue id made by a clustered process: `<node id>-<local id>`. */
const NODE_PREFIX = /^([0-9a-f]{16})-/;

export function homeNodeOf(queueId: string): string | undefined {
  return NODE_PREFIX.exec(queueId)?.[1];
}

/** Where a queue's home process answers, and the token it accepts on requests forwarded to it. */
export interface QueueHome {
  url: string;
  token: string;
}

export class QueueDirectory {
  private readonly redis: Redis;
  /**
   * Announced with this process's address: a request forwarded here carries it, which tells this
   * process that a peer has already counted the request against the sender's rate limit. Clients
   * never see it (it lives only in Redis), so a client cannot claim to be a peer.
   */
  readonly token = randomBytes(24).toString('hex');
  /** Long-polls this process is relaying to other homes, so a stopping process can answer them at once. */
  readonly relaying = new Set<AbortController>();
  /** Set once this process stops relaying: a poll that still arrives for another home is answered empty. */
  relayingStopped = false;
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
    const write = () => this.redis.set(this.key(this.nodeId), `${this.token} ${internalUrl}`, 'EX', ANNOUNCE_TTL_SECONDS);
    await write();
    this.timer = setInterval(() => {
      write().catch((err: unknown) => console.error('cluster: could not refresh this process in Redis:', err));
    }, REFRESH_MS);
    this.timer.unref();
  }

  /** A queue's home process, or undefined when it is gone or unknown. */
  async homeOf(queueId: string): Promise<QueueHome | undefined> {
    const node = homeNodeOf(queueId);
    if (!node || node === this.nodeId) return undefined;
    let value: string | null;
    try {
      value = await this.redis.get(this.key(node));
    } catch {
      return undefined;
    }
    const space = value?.indexOf(' ') ?? -1;
    if (!value || space < 0) return undefined;
    return { token: value.slice(0, space), url: value.slice(space + 1) };
  }

  /** Whether a request's forwarding header is this process's own token (compared in constant time). */
  isPeerToken(value: string | undefined): boolean {
    if (!value) return false;
    const given = Buffer.from(value);
    const own = Buffer.from(this.token);
    return given.length === own.length && timingSafeEqual(given, own);
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
