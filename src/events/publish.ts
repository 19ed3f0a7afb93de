// The one way actions emit events: queued on the transaction and published only after it commits.
import type { BusEvent, EventBus } from './bus.js';
import type { ConfabEvent } from './types.js';

/** An event for clients' queues: only the catalogue's events (events/types.ts). */
export type ClientBusEvent = BusEvent & { event: ConfabEvent };

export type OnCommit = (hook: () => void) => void;

export function publishAfterCommit(services: { bus: EventBus }, onCommit: OnCommit, e: ClientBusEvent): void {
  if (e.userIds.length === 0 && e.publicStreamId === undefined) return;
  const hook = () => services.bus.publish(e);
  // Named for the log line if it fails (store/db.ts runHooks).
  Object.defineProperty(hook, 'name', { value: `publish ${e.event.type} event` });
  onCommit(hook);
}
