// The bus between the workers of one `confab serve` (CONFAB_WORKERS), without Redis: a worker sends
// each event to the cluster's primary process, which relays every message to every worker, the
// publisher included, in the order it received them. Each worker's pipe delivers in order, so all
// workers see one global order, as with Redis (the queue hand-over, events/handover.ts, relies on it).
//
// The event is serialized once, here, as JSON text; the primary passes the text on without reading
// it (relayBusMessage). Nothing is lost silently: the pipe is reliable while both ends live, and a
// worker whose primary is gone reports a loss (its queues are dropped) and stops.
import { RelayedBus, type BusEvent } from './bus.js';
import type { IpcChannel } from '../lib/ipc.js';

/** Bus messages are strings starting with this character; every other message is an object. */
const MARK = 'e';

/** The primary's side: passes a worker's bus message to every worker; false if it was not one. */
export function relayBusMessage(message: unknown, workers: Iterable<{ send(m: unknown): boolean; isConnected(): boolean }>): boolean {
  if (typeof message !== 'string' || !message.startsWith(MARK)) return false;
  for (const w of workers) if (w.isConnected()) w.send(message);
  return true;
}

export class IpcBus extends RelayedBus {
  private closed = false;
  private readonly onMessage = (m: unknown) => {
    if (typeof m !== 'string' || !m.startsWith(MARK)) return;
    let e: BusEvent;
    try {
      e = JSON.parse(m.slice(MARK.length)) as BusEvent;
    } catch {
      return;
    }
    this.deliver(e);
  };
  private readonly onDisconnect = () => {
    if (!this.closed) this.lost('the channel to the primary process closed');
  };

  constructor(private readonly channel: IpcChannel) {
    super();
    channel.on('message', this.onMessage);
    channel.on('disconnect', this.onDisconnect);
  }

  publish(e: BusEvent): void {
    if (this.closed) return;
    try {
      this.channel.send(MARK + JSON.stringify(e));
    } catch (err) {
      console.error('event bus: could not send to the primary process:', err);
      this.lost('an event could not be published');
    }
  }

  /**
   * Delivers to this worker's queues alone, for what every worker notices by itself (a change the
   * command line made in the database): each worker tells its own queues, so none hears it twice.
   */
  publishHere(e: BusEvent): void {
    this.deliver(e);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.dropHandlers();
    this.channel.off('message', this.onMessage);
    this.channel.off('disconnect', this.onDisconnect);
  }
}
