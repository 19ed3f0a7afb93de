// Where each event queue lives when several processes serve one organization, kept in Redis (the
// workers of one `confab serve` keep it in their primary instead: ipc_directory.ts). A queue lives in
// one process at a time (its events are delivered there, in order, exactly once); every process
// announces in Redis the address at which the others can reach it, and a queue's id begins with the
// id of the process that registered it. A GET /events that a round-robin balancer sends elsewhere
// moves the queue there, or is forwarded to it (http/queue_move.ts, http/queue_forward.ts). A process
// that stops gracefully hands its queues to another (events/handover.ts), which then answers for its
// id too; when a holder dies outright, its queues are gone, and the client gets BAD_EVENT_QUEUE_ID
// and registers again, as Zulip's contract for a lost queue says.
import { Redis } from 'ioredis';
import { homeNodeOf, PeerDirectory, type QueueDirectory, type QueueHome } from './directory.js';

export { homeNodeOf, type QueueHome };

/** Seconds an announcement lives without a refresh: a process killed outright drops out after this. */
const ANNOUNCE_TTL_SECONDS = 15;
const REFRESH_MS = 5_000;

/** An announcement is "<token> <node id> <internal address>". */
function announcement(home: QueueHome): string {
  return `${home.token} ${home.nodeId} ${home.url}`;
}

function parseAnnouncement(value: string | null | undefined): QueueHome | undefined {
  const m = value ? /^(\S+) (\S+) (\S+)$/.exec(value) : null;
  return m ? { token: m[1]!, nodeId: m[2]!, url: m[3]! } : undefined;
}

/** The directory in Redis, for processes on any machines (CONFAB_REDIS_URL). */
export class RedisQueueDirectory extends PeerDirectory implements QueueDirectory {
  private readonly redis: Redis;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    url: string,
    private readonly prefix: string,
    /** This process's id, the first part of every queue id it makes. */
    nodeId: string,
  ) {
    super(nodeId);
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
    const value = announcement({ token: this.token, nodeId: this.nodeId, url: internalUrl });
    const write = async () => {
      await this.redis.set(this.key(this.nodeId), value, 'EX', ANNOUNCE_TTL_SECONDS);
      for (const node of this.aliases) await this.redis.set(this.key(node), value, 'EX', ANNOUNCE_TTL_SECONDS);
    };
    await write();
    this.timer = setInterval(() => {
      write().catch((err: unknown) => console.error('cluster: could not refresh this process in Redis:', err));
    }, REFRESH_MS);
    this.timer.unref();
  }

  /** A queue's home process, or undefined when it is gone or unknown. */
  async homeOf(queueId: string): Promise<QueueHome | undefined> {
    const node = homeNodeOf(queueId);
    if (!node || (node === this.nodeId && !this.handedOver)) return undefined;
    let value: string | null;
    try {
      value = await this.redis.get(this.key(node));
    } catch {
      return undefined;
    }
    const home = parseAnnouncement(value);
    // Our own address (a queue we adopted and have since collected): nobody else has it.
    return home && home.token !== this.token ? home : undefined;
  }

  /** The other live processes (each once, however many ids it answers for). */
  async peers(): Promise<QueueHome[]> {
    const found = new Map<string, QueueHome>();
    let cursor = '0';
    try {
      do {
        const [next, keys] = await this.redis.scan(cursor, 'MATCH', this.key('*'), 'COUNT', 100);
        cursor = next;
        const values = keys.length ? await this.redis.mget(...keys) : [];
        for (const value of values) {
          const home = parseAnnouncement(value);
          if (home && home.token !== this.token) found.set(home.token, home);
        }
      } while (cursor !== '0');
    } catch {
      return [];
    }
    return [...found.values()];
  }

  /** After adopting another process's queues: its ids now lead here. */
  async addAliases(nodeIds: string[]): Promise<void> {
    if (this.announced === null) return;
    const value = announcement({ token: this.token, nodeId: this.nodeId, url: this.announced });
    for (const node of nodeIds) {
      if (node === this.nodeId) continue;
      this.aliases.add(node);
      await this.redis.set(this.key(node), value, 'EX', ANNOUNCE_TTL_SECONDS);
    }
  }

  /** Stops refreshing our entries: an adopter is about to take them over. */
  stopAnnouncing(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Stops announcing: new requests for this process's queues are told the queue is gone. */
  async withdraw(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (this.announced === null) return;
    this.announced = null;
    if (this.handedOver) return;
    // Only our own entries: a restarted process never shares an id with an earlier one.
    await this.redis.del(...this.answersFor().map((n) => this.key(n))).catch(() => undefined);
  }

  async close(): Promise<void> {
    await this.withdraw();
    await this.redis.quit().catch(() => undefined);
  }
}
