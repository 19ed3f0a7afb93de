// Zulip's generic JSON integration: any payload, shown as a code block under the topic "JSON".
import { MalformedPayload, type Integration } from './core.js';

/** Python's json.dumps(indent=2): ", " and ": " separators, non-ASCII escaped as \uXXXX. */
export function pythonJsonDumps(value: unknown): string {
  const text = JSON.stringify(value, null, 2) ?? 'null';
  return text.replace(/[\u0080-\uffff]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
}

export const json: Integration = {
  name: 'json',
  displayName: 'JSON',
  handle(req) {
    if (typeof req.body !== 'object' || req.body === null || Array.isArray(req.body)) throw new MalformedPayload('payload is not a dict');
    return [{ topic: 'JSON', content: '```json\n' + pythonJsonDumps(req.body) + '\n```' }];
  },
};
