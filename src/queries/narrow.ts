// Narrows of GET /messages: parsed from Zulip's two encodings and resolved against the
// organization (channel names, emails) before any SQL is built.
import { BadNarrow, BadRequest } from '../errors.js';
import type { Services } from '../services.js';
import type { User } from '../store/users.js';
import type { Stream } from '../store/channels.js';
import { getStream, getStreamByName, isSubscribed } from '../store/channels.js';
import { channelAccess } from '../actions/channel_access.js';

export interface RawTerm {
  operator: string;
  operand: unknown;
  negated: boolean;
}

export type Term =
  | { kind: 'channel'; stream: Stream; negated: boolean }
  | { kind: 'topic'; topic: string; negated: boolean }
  | { kind: 'dm'; userIds: number[]; negated: boolean }
  | { kind: 'sender'; userId: number; negated: boolean }
  | { kind: 'is'; what: 'starred' | 'mentioned' | 'unread' | 'dm' | 'alerted' | 'resolved'; negated: boolean }
  | { kind: 'id'; id: number; negated: boolean }
  | { kind: 'channels_public'; negated: boolean }
  | { kind: 'search'; text: string; negated: boolean }
  | { kind: 'empty' };

export function parseNarrow(v: unknown): RawTerm[] {
  if (!Array.isArray(v)) throw new BadRequest('narrow is not a list');
  return v.map((t) => {
    if (Array.isArray(t)) {
      if (t.length !== 2 || typeof t[0] !== 'string') throw new BadRequest('Invalid narrow');
      return { operator: t[0], operand: t[1], negated: false };
    }
    if (t && typeof t === 'object') {
      const o = t as Record<string, unknown>;
      if (typeof o.operator !== 'string' || !('operand' in o)) throw new BadRequest('Invalid narrow');
      if (o.negated !== undefined && typeof o.negated !== 'boolean') throw new BadRequest('Invalid narrow');
      return { operator: o.operator, operand: o.operand, negated: o.negated === true };
    }
    throw new BadRequest('Invalid narrow');
  });
}

const IS_OPERANDS: Record<string, Extract<Term, { kind: 'is' }>['what']> = {
  starred: 'starred',
  mentioned: 'mentioned',
  unread: 'unread',
  dm: 'dm',
  private: 'dm',
  alerted: 'alerted',
  resolved: 'resolved',
};

async function userIdsFromOperand(services: Services, viewer: User, operand: unknown, operator: string): Promise<number[]> {
  const users = await services.cache.users(viewer.realm_id);
  const byEmail = new Map([...users.values()].map((u) => [u.email.toLowerCase(), u.id]));
  let items: unknown[];
  if (Array.isArray(operand)) items = operand;
  else if (typeof operand === 'number') items = [operand];
  else if (typeof operand === 'string') items = operand.split(',').map((s) => s.trim()).filter(Boolean);
  else throw new BadNarrow(`Invalid narrow operator: invalid operand for ${operator}`);
  return items.map((item) => {
    const id = typeof item === 'number' ? (users.has(item) ? item : undefined) : typeof item === 'string' ? byEmail.get(item.toLowerCase()) : undefined;
    if (id === undefined) throw new BadNarrow(`Invalid narrow operator: unknown user ${String(item)}`);
    return id;
  });
}

/** Resolves names and emails; a channel the viewer may not see is as unknown as a missing one. */
export async function resolveNarrow(services: Services, viewer: User, raw: RawTerm[]): Promise<Term[]> {
  const db = services.database.db;
  const out: Term[] = [];
  for (const t of raw) {
    const op = t.operator;
    const negated = t.negated;
    switch (op) {
      case 'channel':
      case 'stream': {
        let stream: Stream | undefined;
        if (typeof t.operand === 'number' || (typeof t.operand === 'string' && /^\d+$/.test(t.operand))) {
          stream = await getStream(db, viewer.realm_id, Number(t.operand));
        }
        if (!stream && typeof t.operand === 'string') stream = await getStreamByName(db, viewer.realm_id, t.operand);
        if (stream) {
          const graph = await services.cache.groupGraph(viewer.realm_id);
          const subscribed = await isSubscribed(db, viewer.id, stream.id);
          if (!channelAccess(graph, viewer, stream, subscribed).metadata) stream = undefined;
        }
        if (!stream) throw new BadNarrow('Invalid narrow operator: unknown channel');
        out.push({ kind: 'channel', stream, negated });
        break;
      }
      case 'topic':
      case 'subject':
        if (typeof t.operand !== 'string') throw new BadNarrow('Invalid narrow operator: invalid topic');
        out.push({ kind: 'topic', topic: t.operand, negated });
        break;
      case 'dm':
      case 'pm-with': {
        const ids = await userIdsFromOperand(services, viewer, t.operand, op);
        out.push({ kind: 'dm', userIds: ids, negated });
        break;
      }
      case 'sender': {
        if (t.operand === 'me') {
          out.push({ kind: 'sender', userId: viewer.id, negated });
          break;
        }
        const ids = await userIdsFromOperand(services, viewer, t.operand, op);
        if (ids.length !== 1) throw new BadNarrow('Invalid narrow operator: invalid sender');
        out.push({ kind: 'sender', userId: ids[0]!, negated });
        break;
      }
      case 'is': {
        const what = typeof t.operand === 'string' ? IS_OPERANDS[t.operand] : undefined;
        if (!what) throw new BadNarrow(`Invalid narrow operator: unknown 'is' operand ${String(t.operand)}`);
        out.push({ kind: 'is', what, negated });
        break;
      }
      case 'id': {
        const id = typeof t.operand === 'number' ? t.operand : typeof t.operand === 'string' && /^\d+$/.test(t.operand) ? Number(t.operand) : NaN;
        if (!Number.isSafeInteger(id)) throw new BadNarrow('Invalid narrow operator: invalid message ID');
        out.push({ kind: 'id', id, negated });
        break;
      }
      case 'channels':
      case 'streams':
        if (t.operand !== 'public') throw new BadNarrow(`Invalid narrow operator: unknown channels operand ${String(t.operand)}`);
        out.push({ kind: 'channels_public', negated });
        break;
      case 'search':
        if (typeof t.operand !== 'string') throw new BadNarrow('Invalid narrow operator: invalid search');
        if (t.operand.trim()) out.push({ kind: 'search', text: t.operand.trim().slice(0, 200), negated });
        break;
      default:
        throw new BadNarrow(`Invalid narrow operator: unknown operator ${op}`);
    }
  }
  return out;
}
