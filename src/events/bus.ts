// The event bus: every event an action emits after its commit goes through one EventBus. The
// in-process bus hands it straight to this process's queues; a Redis-backed bus (for several server
// processes) implements the same interface by publishing the JSON and delivering what it receives.

import type { ConfabEvent, ControlEvent } from './types.js';

export interface BusEvent {
  realmId: number;
  /** The event payload as clients see it (without the per-queue `id`), or a message between processes. */
  event: ConfabEvent | ControlEvent;
  /** The users whose queues receive it. */
  userIds: number[];
  /** Fields added for one user only (for example a message event's `flags`). */
  perUser?: Record<number, Record<string, unknown>>;
  /** Fields added in one queue only (a message event's `local_message_id` for the sender's queue). */
  perQueue?: Record<string, Record<string, unknown>>;
  /** For message events on public channels: queues registered with all_public_streams also get it. */
  publicStreamId?: number;
  /** For message events: the Markdown source, for queues registered with apply_markdown=false. */
  rawContent?: string;
  /** For user_group events: the group was deactivated before this change (clients without include_deactivated_groups skip it). */
  deactivatedGroup?: boolean;
  /**
   * For the stream/delete of an archived channel and the stream/create of an unarchived one
   * (Zulip's for_archiving / for_unarchiving): queues with archived_channels keep seeing the
   * channel, so they skip it.
   */
  channelArchiving?: boolean;
}

export type BusHandler = (e: BusEvent) => void;
/** Called when the bus cannot guarantee that this process received every event. */
export type LossHandler = () => void;

export interface EventBus {
  publish(e: BusEvent): void;
  subscribe(handler: BusHandler): void;
  /** Buses that can lose events (Redis) report it, so that no queue silently misses one. */
  onLoss?(handler: LossHandler): void;
  /**
   * Buses that join the workers of one machine (IpcBus): delivers to this process's queues alone,
   * for what every process notices by itself; absent elsewhere (publish reaches this process only,
   * or the change's maker published it to all).
   */
  publishHere?(e: BusEvent): void;
  close(): Promise<void>;
}

export class InProcessBus implements EventBus {
  private handlers: BusHandler[] = [];

  publish(e: BusEvent): void {
    for (const h of this.handlers) h(e);
  }

  subscribe(handler: BusHandler): void {
    this.handlers.push(handler);
  }

  async close(): Promise<void> {
    this.handlers = [];
  }
}

/**
 * The handlers of a bus between processes (Redis, or the workers' primary), and its loss report:
 * a subclass delivers what it receives with deliver() and calls lost() when it can no longer
 * guarantee that this process received every event.
 */
export abstract class RelayedBus implements EventBus {
  private handlers: BusHandler[] = [];
  private lossHandlers: LossHandler[] = [];

  abstract publish(e: BusEvent): void;
  abstract close(): Promise<void>;

  subscribe(handler: BusHandler): void {
    this.handlers.push(handler);
  }

  onLoss(handler: LossHandler): void {
    this.lossHandlers.push(handler);
  }

  protected deliver(e: BusEvent): void {
    for (const h of this.handlers) h(e);
  }

  protected lost(why: string): void {
    console.error(`event bus: delivery cannot be guaranteed (${why}); event queues of this process are dropped`);
    for (const h of this.lossHandlers) {
      try {
        h();
      } catch (err) {
        console.error('event bus: loss handler failed:', err);
      }
    }
  }

  /** Forgets every handler: nothing is delivered or reported after close(). */
  protected dropHandlers(): void {
    this.handlers = [];
    this.lossHandlers = [];
  }
}
