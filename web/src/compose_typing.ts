// Typing notifications from the compose box.
import { api } from './api';
import { mode, streamId, to, topic } from './compose_state';
import { userSettings } from './state';

// ---- typing notifications: "start" at most every 10 s while typing, "stop" on send or clear ----
let typingSentAt = 0;
function typingParams(): Record<string, unknown> | null {
  // The server refuses notifications the user's own settings turn off: do not send them.
  const settings = userSettings.value;
  if (mode.value === 'stream') {
    if (settings.send_stream_typing_notifications === false) return null;
    return streamId.value !== null && topic.value ? { type: 'stream', stream_id: streamId.value, topic: topic.value } : null;
  }
  if (settings.send_private_typing_notifications === false) return null;
  return to.value.length ? { type: 'direct', to: to.value } : null;
}
export function notifyTyping(op: 'start' | 'stop'): void {
  const p = typingParams();
  if (!p) return;
  if (op === 'start') {
    if (Date.now() - typingSentAt < 10_000) return;
    typingSentAt = Date.now();
  } else {
    if (!typingSentAt) return;
    typingSentAt = 0;
  }
  void api.post('/typing', { ...p, op }).catch(() => {});
}
