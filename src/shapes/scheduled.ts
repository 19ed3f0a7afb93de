import type { ScheduledMessage } from '../store/scheduled.js';

/** The API object (GET /scheduled_messages, scheduled_messages events). */
export function formatScheduled(m: ScheduledMessage): Record<string, unknown> {
  const out: Record<string, unknown> = {
    scheduled_message_id: m.id,
    type: m.recipient_type === 'stream' ? 'stream' : 'private',
    to: m.recipient_type === 'stream' ? m.stream_id : m.to_user_ids,
    content: m.content,
    rendered_content: m.rendered_content,
    scheduled_delivery_timestamp: m.scheduled_timestamp,
    failed: m.failed,
  };
  if (m.recipient_type === 'stream') out.topic = m.topic;
  return out;
}
