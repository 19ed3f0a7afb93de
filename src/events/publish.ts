// The one way actions emit events: queued on the transaction and published only after it commits.
import type { BusEvent, EventBus } from './bus.js';

export type OnCommit = (hook: () => void) => void;

export function publishAfterCommit(services: { bus: EventBus }, onCommit: OnCommit, e: BusEvent): void {
  if (e.userIds.length === 0 && e.publicStreamId === undefined) return;
  const hook = () => services.bus.publish(e);
  // Named for the log line if it fails (store/db.ts runHooks).
  Object.defineProperty(hook, 'name', { value: `publish ${String((e.event as { type?: unknown }).type)} event` });
  onCommit(hook);
}
