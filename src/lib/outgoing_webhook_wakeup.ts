// Wakes this process's outgoing-webhook workers when a message has queued a delivery, so a bot
// hears about it at once rather than at the next poll. (Other processes find the row by polling.)
type Listener = () => void;
const listeners = new Set<Listener>();

export function onWebhookWork(fn: Listener): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

export function notifyWebhookWork(): void {
  for (const fn of listeners) fn();
}
