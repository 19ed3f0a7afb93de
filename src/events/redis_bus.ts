// The bus between server processes: every event (and every cache invalidation) is published to a
// Redis channel, and every process, the publisher included, delivers what it receives to its own
// queues. Order is Redis's order, the same in every process.
import { Redis } from 'ioredis';
import type { BusEvent, BusHandler, EventBus } from './bus.js';

export class RedisBus implements EventBus {
  private handlers: BusHandler[] = [];
  private readonly pub: Redis;
  private readonly sub: Redis;
  private ready: Promise<void>;

  constructor(
    url: string,
    private readonly channel: string,
  ) {
    this.pub = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 3 });
    this.sub = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 3 });
    this.sub.on('message', (_channel: string, message: string) => {
      let e: BusEvent;
      try {
        e = JSON.parse(message) as BusEvent;
      } catch {
        return;
      }
      for (const h of this.handlers) h(e);
    });
    this.ready = this.sub.subscribe(this.channel).then(() => undefined);
  }

  /** Resolves once this process is listening, so nothing published after start is missed. */
  whenReady(): Promise<void> {
    return this.ready;
  }

  publish(e: BusEvent): void {
    this.pub.publish(this.channel, JSON.stringify(e)).catch((err: unknown) => console.error('event bus publish failed:', err));
  }

  subscribe(handler: BusHandler): void {
    this.handlers.push(handler);
  }

  async close(): Promise<void> {
    this.handlers = [];
    await Promise.allSettled([this.sub.quit(), this.pub.quit()]);
  }
}
