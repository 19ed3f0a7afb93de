// The one way actions emit events: queued on the transaction and published only after it commits.
import type { BusEvent, EventBus } from './bus.js';

export type OnCommit = (hook: () => void) => void;

export function publishAfterCommit(services: { bus: EventBus }, onCommit: OnCommit, e: BusEvent): void {
  if (e.userIds.length === 0 && e.publicStreamId === undefined) return;
  onCommit(() => services.bus.publish(e));
}
