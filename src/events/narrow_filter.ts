// The `narrow` of POST /register: a queue registered with one only receives the message events
// that match it. Zulip supports channel, topic and sender terms here, and `is` with dm (private),
// starred, unread, mentioned, alerted and resolved, judged from the message and the recipient's
// flags; other `is` operands do not filter. Full-text search is not judged here: clients ask
// GET /messages/matches_narrow.
import { BadRequest } from '../errors.js';

export interface QueueNarrowTerm {
  operator: string;
  operand: string;
}

const SUPPORTED = new Set(['stream', 'channel', 'topic', 'is', 'sender']);

export function parseQueueNarrow(raw: unknown[]): QueueNarrowTerm[] {
  return raw.map((term) => {
    let operator: unknown;
    let operand: unknown;
    if (Array.isArray(term) && term.length === 2) [operator, operand] = term;
    else if (term && typeof term === 'object') ({ operator, operand } = term as Record<string, unknown>);
    if (typeof operator !== 'string' || typeof operand !== 'string') throw new BadRequest('Invalid narrow');
    if (!SUPPORTED.has(operator)) throw new BadRequest(`Operator ${operator} not supported.`);
    if (operator === 'is' && operand === 'followed') throw new BadRequest(`Operand ${operand} not supported.`);
    return { operator, operand };
  });
}

export function queueNarrowFilter(terms: QueueNarrowTerm[]): (event: Record<string, unknown>, flags: readonly string[]) => boolean {
  return (event, flags) => {
    if (event.type !== 'message') return true;
    const m = event.message as Record<string, unknown> | undefined;
    if (!m) return false;
    return terms.every((t) => {
      switch (t.operator) {
        case 'stream':
        case 'channel':
          return m.type === 'stream' && String(m.display_recipient).toLowerCase() === t.operand.toLowerCase();
        case 'topic':
          return m.type === 'stream' && String(m.subject).toLowerCase() === t.operand.toLowerCase();
        case 'sender':
          return String(m.sender_email).toLowerCase() === t.operand.toLowerCase();
        case 'is':
          switch (t.operand) {
            case 'private':
            case 'dm':
              return m.type === 'private';
            case 'starred':
              return flags.includes('starred');
            case 'unread':
              return !flags.includes('read');
            case 'mentioned':
            case 'alerted':
              return flags.includes('mentioned');
            case 'resolved':
              return m.type === 'stream' && String(m.subject).startsWith('✔ ');
            default:
              return true;
          }
        default:
          return true;
      }
    });
  };
}
