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
import { randomBytes } from 'node:crypto';

/** Bus messages are strings starting with this character; every other message is an object. */
const MARK = 'e';
/** Then the publishing worker's tag, this many characters. */
const TAG_LENGTH = 8;

/** The primary's side: passes a worker's bus message to every worker; false if it was not one. */
export function relayBusMessage(message: unknown, workers: Iterable<{ send(m: unknown): boolean; isConnected(): boolean }>): boolean {
  if (typeof message !== 'string' || !message.startsWith(MARK)) return false;
  for (const w of workers) if (w.isConnected()) w.send(message);
  return true;
}

export class IpcBus extends RelayedBus {
  private closed = false;
  /** Marks this worker's messages (after MARK); its own events come back in the order sent. */
  private readonly tag = randomBytes(TAG_LENGTH / 2).toString('hex');
  private readonly own: BusEvent[] = [];
  /** Received bus messages not yet parsed and delivered, in order. */
  private pending: string[] = [];
  private readonly onMessage = (m: unknown) => {
    if (typeof m !== 'string' || !m.startsWith(MARK)) return;
    // Parsed on a later turn of the event loop, not as each arrives: the pipe hands over many at
    // once, and the other messages among them (the write turn's grant above all, lib/ipc_write_turn.ts)
    // are acted on first instead of after every event before them has been parsed and fanned out.
    // The events keep their order.
    if (this.pending.push(m) === 1) setImmediate(this.drain);
  };
  private readonly drain = () => {
    const batch = this.pending;
    this.pending = [];
    for (const m of batch) {
      if (this.closed) return;
      let e: BusEvent | undefined;
      // This worker's own event, back in its place in the one order: the object it sent, not a
      // parse of the text (the pipe keeps each worker's messages in the order sent).
      if (m.startsWith(this.tag, MARK.length)) e = this.own.shift();
      else {
        try {
          e = JSON.parse(m.slice(MARK.length + TAG_LENGTH)) as BusEvent;
        } catch {
          continue;
        }
      }
      if (e) this.deliver(e);
    }
  };
  private readonly onDisconnect = () => {
    if (this.closed) return;
    this.drain();
    this.lost('the channel to the primary process closed');
  };

  constructor(private readonly channel: IpcChannel) {
    super();
    channel.on('message', this.onMessage);
    channel.on('disconnect', this.onDisconnect);
  }

  publish(e: BusEvent): void {
    if (this.closed) return;
    try {
      this.channel.send(MARK + this.tag + JSON.stringify(e));
      this.own.push(e);
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
