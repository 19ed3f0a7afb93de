// The text rules of a message: Zulip truncates over-long content and topics, refuses control
// characters in topics, and shows the empty topic as "general chat".
import { BadRequest } from '../errors.js';

export const EMPTY_TOPIC_DISPLAY_NAME = 'general chat';

export const MAX_MESSAGE_LENGTH = 10000;
export const MAX_TOPIC_LENGTH = 60;

/** Zulip truncates over-long content and topics rather than refusing them; lengths count code points. */
function truncate(s: string, max: number, marker: string): string {
  if (s.length <= max) return s;
  const points = Array.from(s);
  return points.length <= max ? s : points.slice(0, max - marker.length).join('') + marker;
}

export function normalizeContent(raw: string): string {
  const content = raw.trimEnd().replace(/^\n+/, '');
  if (!content) throw new BadRequest('Message must not be empty');
  if (content.includes('\u0000')) throw new BadRequest('Message must not contain null bytes');
  return truncate(content, MAX_MESSAGE_LENGTH, '\n[message truncated]');
}

export function normalizeTopic(raw: string): string {
  let topic = raw.trim();
  if (topic === '(no topic)' || topic === EMPTY_TOPIC_DISPLAY_NAME) topic = '';
  checkTopicCharacters(topic);
  return truncateTopic(topic);
}

/** Zulip's check_stream_topic: control characters are refused, by their 1-based position. */
export function checkTopicCharacters(topic: string): void {
  for (let i = 0; i < topic.length; i++) {
    const c = topic.charCodeAt(i);
    if (c === 0 || (c < 0x20 && c !== 0x09) || c === 0x7f) throw new BadRequest(`Invalid character in topic, at position ${i + 1}!`);
  }
}

/** Zulip's truncate_topic: over 60 code points, the first 57 and "..." (also for drafts and edits, which keep the topic as typed otherwise). */
export function truncateTopic(topic: string): string {
  return truncate(topic, MAX_TOPIC_LENGTH, '...');
}
