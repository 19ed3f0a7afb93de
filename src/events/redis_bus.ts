// The bus between server processes: every event (and every cache invalidation) is published to a
// Redis channel, and every process, the publisher included, delivers what it receives to its own
// queues. Order is Redis's order, the same in every process.
//
// Redis pub/sub keeps nothing: a message published while a subscriber is disconnected is gone for
// it. So nothing is allowed to go missing silently (Zulip's contract: a client whose queue may have
// missed an event gets BAD_EVENT_QUEUE_ID and registers again):
// - a publish that fails is retried (in order, after the ones before it);
// - every message carries its publisher's id and a sequence number, so a subscriber sees a gap
//   (a publish that finally failed, or messages lost while it was reconnecting) and a duplicate
//   (a command resent after a reconnect), which it drops;
// - when delivery cannot be guaranteed (a gap, the subscriber connection lost, a publish given up),
//   the bus reports a loss: the queue manager drops this process's queues and the caches are cleared.
import { Redis } from 'ioredis';
import { randomBytes } from 'node:crypto';
import { RelayedBus, type BusEvent } from './bus.js';

/** How a publish that failed is retried: after these delays (ms), then given up. */
const RETRY_DELAYS_MS = [100, 500, 2000];

interface Envelope {
  /** The publishing process. */
  o: string;
  /** Its sequence number, from 1. */
  s: number;
  e: BusEvent;
}

export interface RedisBusOptions {
  /** Names the two connections in CLIENT LIST (`<name>-pub`, `<name>-sub`); tests find them by it. */
  connectionName?: string;
}

export class RedisBus extends RelayedBus {
  private readonly pub: Redis;
  private readonly sub: Redis;
  private ready: Promise<void>;
  private readonly origin = randomBytes(8).toString('hex');
  private seq = 0;
  /** The last sequence number seen from each publisher. */
  private readonly lastSeen = new Map<string, number>();
  /** Publishes that failed, retried in order before anything newer is sent. */
  private retrying: Array<{ s: number; text: string; attempt: number }> = [];
  private retryTimer: NodeJS.Timeout | null = null;
  private closed = false;
  private subscribedOnce = false;

  constructor(
    url: string,
    private readonly channel: string,
    opts: RedisBusOptions = {},
  ) {
    super();
    const name = opts.connectionName;
    this.pub = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 3, ...(name ? { connectionName: `${name}-pub` } : {}) });
    this.sub = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 3, ...(name ? { connectionName: `${name}-sub` } : {}) });
    this.pub.on('error', () => undefined); // reported through the failed commands
    this.sub.on('error', () => undefined); // reported through 'close'
    this.sub.on('message', (_channel: string, message: string) => this.receive(message));
    // Messages published while the subscription is down are lost for this process.
    this.sub.on('close', () => {
      if (!this.closed && this.subscribedOnce) this.lost('the subscriber connection to Redis closed');
    });
    // ioredis subscribes again after a reconnect; whatever came between is gone: report it again,
    // so queues registered meanwhile and caches reloaded meanwhile are not trusted either.
    this.sub.on('ready', () => {
      if (this.subscribedOnce && !this.closed) this.lost('the subscriber connection to Redis came back');
    });
    this.ready = this.sub.subscribe(this.channel).then(() => {
      this.subscribedOnce = true;
    });
  }

  /** Resolves once this process is listening, so nothing published after start is missed. */
  whenReady(): Promise<void> {
    return this.ready;
  }

  publish(e: BusEvent): void {
    const s = ++this.seq;
    const text = JSON.stringify({ o: this.origin, s, e } satisfies Envelope);
    if (this.retrying.length) this.retrying.push({ s, text, attempt: 0 });
    else this.send(s, text, 0);
  }

  private send(s: number, text: string, attempt: number): void {
    this.pub.publish(this.channel, text).then(
      () => this.pumpRetries(),
      (err: unknown) => {
        if (this.closed) return;
        if (attempt >= RETRY_DELAYS_MS.length) {
          console.error(`event bus: publish failed ${attempt + 1} times, giving up:`, err);
          // Other processes see the gap in the sequence numbers; this one learns it here.
          this.lost('an event could not be published');
          this.pumpRetries();
          return;
        }
        console.error(`event bus: publish failed (attempt ${attempt + 1}), retrying:`, err instanceof Error ? err.message : err);
        // Back in sequence order (several publishes in flight may fail together).
        const at = this.retrying.findIndex((r) => r.s > s);
        this.retrying.splice(at < 0 ? this.retrying.length : at, 0, { s, text, attempt: attempt + 1 });
        this.scheduleRetry(RETRY_DELAYS_MS[attempt]!);
      },
    );
  }

  private scheduleRetry(delay: number): void {
    if (this.retryTimer || this.closed) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.pumpRetries();
    }, delay);
    this.retryTimer.unref();
  }

  /** Sends the oldest waiting publish; the rest follow as each one succeeds. */
  private pumpRetries(): void {
    if (this.retryTimer || this.closed) return;
    const next = this.retrying.shift();
    if (next) this.send(next.s, next.text, next.attempt);
  }

  private receive(message: string): void {
    let env: Envelope;
    try {
      env = JSON.parse(message) as Envelope;
    } catch {
      return;
    }
    if (!env || typeof env.o !== 'string' || typeof env.s !== 'number' || !env.e) return;
    const last = this.lastSeen.get(env.o);
    if (last !== undefined && env.s <= last) return; // a duplicate (a command resent after a reconnect)
    this.lastSeen.set(env.o, env.s);
    if (last !== undefined && env.s !== last + 1) this.lost(`events ${last + 1}-${env.s - 1} of a publisher never arrived`);
    this.deliver(env.e);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.dropHandlers();
    await Promise.allSettled([this.sub.quit(), this.pub.quit()]);
  }
}
