// Narrows of GET /messages: parsed from Zulip's two encodings and resolved against the
// organization (channel names, emails) before any SQL is built.
import { BadNarrow, BadRequest, InvalidMessage } from '../errors.js';
import type { Services } from '../services.js';
import type { User } from '../store/users.js';
import { getStreamForViewer, type ViewedStream } from '../store/channels.js';
import { channelAccess } from '../access/channel_access.js';
import { accessibleMessage } from './message_access.js';
import { usersByAddress } from '../shapes/users.js';
import { userAtAddress } from './user_lookup.js';
import { dmGroupMembers, type MessageRow } from '../store/messages.js';
import type { IsOperand, RawTerm, Term } from './terms.js';

// Zulip finds an operator's handler by its name with '-' read as '_', so each of these operators
// answers to both spellings; zulip-terminal 0.7.0 narrows to a direct message conversation with
// `pm_with`. Confab's names use the hyphen.
const UNDERSCORE_SPELLINGS: Record<string, string> = {
  pm_with: 'pm-with',
  group_pm_with: 'group-pm-with',
  dm_including: 'dm-including',
};

function canonicalOperator(operator: string): string {
  return UNDERSCORE_SPELLINGS[operator] ?? operator;
}

export function parseNarrow(v: unknown): RawTerm[] {
  if (!Array.isArray(v)) throw new BadRequest('narrow is not a list');
  return v.map((t) => {
    if (Array.isArray(t)) {
      if (t.length !== 2 || typeof t[0] !== 'string') throw new BadRequest('Invalid narrow');
      return { operator: canonicalOperator(t[0]), operand: t[1], negated: false };
    }
    if (t && typeof t === 'object') {
      const o = t as Record<string, unknown>;
      if (typeof o.operator !== 'string' || !('operand' in o)) throw new BadRequest('Invalid narrow');
      if (o.negated !== undefined && typeof o.negated !== 'boolean') throw new BadRequest('Invalid narrow');
      return { operator: canonicalOperator(o.operator), operand: o.operand, negated: o.negated === true };
    }
    throw new BadRequest('Invalid narrow');
  });
}

const IS_OPERANDS: Record<string, IsOperand> = {
  starred: 'starred',
  mentioned: 'mentioned',
  unread: 'unread',
  dm: 'dm',
  private: 'dm',
  alerted: 'alerted',
  resolved: 'resolved',
  followed: 'followed',
  muted: 'muted',
};

const HAS_OPERANDS = new Set(['link', 'image', 'attachment', 'reaction']);

/** Zulip's largest message id (a 32-bit signed integer). */
const MAX_MESSAGE_ID = 2147483647;

function operandString(t: RawTerm): string {
  if (typeof t.operand !== 'string') throw new BadRequest('operand is not a string');
  return t.operand;
}

function isStringOrInt(v: unknown): v is string | number {
  return typeof v === 'string' || (typeof v === 'number' && Number.isSafeInteger(v));
}

/** A message id operand (id, with): digits or an integer. */
function messageIdOperand(v: unknown): number | undefined {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : NaN;
  return Number.isSafeInteger(n) && n >= 0 && n <= MAX_MESSAGE_ID ? n : undefined;
}

async function userIdsFromOperand(services: Services, viewer: User, operand: unknown, operator: string): Promise<number[]> {
  // The system bots (Notification Bot, Welcome Bot) count, as Zulip resolves users "including cross-realm".
  const users = new Map([...(await services.cache.users(viewer.realm_id)), ...(await services.cache.systemBots())]);
  const byAddress = usersByAddress(users.values(), viewer, services.emailDomains);
  let items: unknown[];
  if (Array.isArray(operand)) items = operand;
  else if (typeof operand === 'number') items = [operand];
  else if (typeof operand === 'string') items = operand.split(',').map((s) => s.trim()).filter(Boolean);
  else throw new BadNarrow(`Invalid narrow operator: invalid operand for ${operator}`);
  const ids: number[] = [];
  for (const item of items) {
    // A user the cached ones lack (made in another process a moment ago) is read through.
    const id =
      typeof item === 'number'
        ? (users.has(item) ? item : (await services.cache.user(viewer.realm_id, item))?.id)
        : typeof item === 'string'
          ? (await userAtAddress(services, viewer, item, byAddress))?.id
          : undefined;
    if (id === undefined) {
      // Zulip names the whole operand for a conversation ('unknown user in a@x,b@y' or
      // 'unknown user in [1, 2]', Python's list form), the single user for the other operators.
      if (operator === 'dm' || operator === 'pm-with') {
        const whole = Array.isArray(operand) ? `[${operand.map((x) => (typeof x === 'string' ? `'${x}'` : String(x))).join(', ')}]` : String(operand);
        throw new BadNarrow(`Invalid narrow operator: unknown user in ${whole}`);
      }
      throw new BadNarrow(`Invalid narrow operator: unknown user ${String(item)}`);
    }
    ids.push(id);
  }
  return ids;
}

/** Resolves names and emails; a channel the viewer may not see is as unknown as a missing one. */
export async function resolveNarrow(services: Services, viewer: User, rawTerms: RawTerm[]): Promise<Term[]> {
  const db = services.database.db;
  const raw = await replaceWith(services, viewer, rawTerms);
  const out: Term[] = [];
  for (const t of raw) {
    const op = t.operator;
    const negated = t.negated;
    switch (op) {
      case 'channel':
      case 'stream': {
        let found: ViewedStream | undefined;
        if (typeof t.operand === 'number' || (typeof t.operand === 'string' && /^\d+$/.test(t.operand))) {
          found = await getStreamForViewer(db, viewer.realm_id, viewer.id, { id: Number(t.operand) });
        }
        if (!found && typeof t.operand === 'string') found = await getStreamForViewer(db, viewer.realm_id, viewer.id, { name: t.operand });
        if (found) {
          const graph = await services.cache.groupGraph(viewer.realm_id);
          if (!channelAccess(graph, viewer, found.stream, found.subscribed).metadata) found = undefined;
        }
        // Zulip repeats the operand as given; it reveals nothing the client did not send.
        if (!found) throw new BadNarrow(`Invalid narrow operator: unknown channel ${String(t.operand)}`);
        out.push({ kind: 'channel', stream: found.stream, subscribed: found.subscribed, negated });
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
        const operand = operandString(t);
        const what = IS_OPERANDS[operand];
        if (!what) throw new BadNarrow(`Invalid narrow operator: unknown 'is' operand ${operand}`);
        out.push({ kind: 'is', what, negated });
        break;
      }
      case 'has': {
        const operand = operandString(t);
        if (!HAS_OPERANDS.has(operand)) throw new BadNarrow(`Invalid narrow operator: unknown 'has' operand ${operand}`);
        out.push({ kind: 'has', what: operand as 'link' | 'image' | 'attachment' | 'reaction', negated });
        break;
      }
      case 'in': {
        const operand = operandString(t);
        if (operand === 'home') out.push({ kind: 'in_home', negated });
        else if (operand !== 'all') throw new BadNarrow(`Invalid narrow operator: unknown 'in' operand ${operand}`);
        break;
      }
      case 'near':
        // Only an anchor hint for clients: it does not filter.
        if (!isStringOrInt(t.operand)) throw new BadRequest('operand is not a string');
        break;
      case 'id': {
        if (!isStringOrInt(t.operand)) throw new BadRequest('operand is not a string or integer');
        const id = messageIdOperand(t.operand);
        if (id === undefined) throw new BadNarrow('Invalid narrow operator: Invalid message ID');
        out.push({ kind: 'id', id, negated });
        break;
      }
      case 'dm-including':
      case 'group-pm-with': {
        if (!isStringOrInt(t.operand)) throw new BadRequest('operand is not a string or integer');
        const ids = await userIdsFromOperand(services, viewer, t.operand, op);
        if (ids.length !== 1) throw new BadNarrow(`Invalid narrow operator: unknown user ${String(t.operand)}`);
        out.push({ kind: 'dm_including', userId: ids[0]!, groupsOnly: op === 'group-pm-with', negated });
        break;
      }
      case 'channels':
      case 'streams':
        operandString(t);
        // web-public reads no history for a logged-in viewer: only messages they received (Zulip's ok_to_include_history).
        if (t.operand === 'public') out.push({ kind: 'channels_public', negated });
        else if (t.operand === 'web-public') out.push({ kind: 'channels_web_public', negated });
        else throw new BadNarrow(`Invalid narrow operator: unknown channels operand ${String(t.operand)}`);
        break;
      case 'search':
        if (typeof t.operand !== 'string') throw new BadRequest('operand is not a string');
        if (!t.operand.trim()) throw new BadRequest('operand cannot be blank.');
        out.push({ kind: 'search', text: t.operand.trim().slice(0, 1000), negated });
        break;
      default:
        throw new BadNarrow(`Invalid narrow operator: unknown operator ${op}`);
    }
  }
  return out;
}

/**
 * Zulip's `with` operator: the narrow becomes the conversation (channel and topic, or the direct
 * message group) of the message it names, keeping the other terms. A message the viewer cannot
 * read leaves a narrow that already names a conversation as it is; otherwise it is an error.
 */
async function replaceWith(services: Services, viewer: User, raw: RawTerm[]): Promise<RawTerm[]> {
  const withTerms = raw.filter((t) => t.operator === 'with');
  if (withTerms.length === 0) return raw;
  if (withTerms.length > 1) throw new BadNarrow("Invalid narrow operator combination: Duplicate 'with' operators.");
  const rest = raw.filter((t) => t.operator !== 'with');
  const id = isStringOrInt(withTerms[0]!.operand) ? messageIdOperand(withTerms[0]!.operand) : undefined;
  if (id === undefined) throw new BadNarrow("Invalid narrow operator: Invalid 'with' operator");
  let message: MessageRow | undefined;
  try {
    message = await accessibleMessage(services, viewer, id);
  } catch (err) {
    if (!(err instanceof InvalidMessage)) throw err;
  }
  if (!message) {
    const has = (ops: string[]) => rest.some((t) => ops.includes(t.operator) && !t.negated);
    if ((has(['channel', 'stream']) && has(['topic', 'subject'])) || has(['dm', 'pm-with'])) return rest;
    throw new BadNarrow("Invalid narrow operator: Invalid 'with' operator");
  }
  const others = rest.filter((t) => !['stream', 'channel', 'topic', 'subject', 'dm', 'pm-with'].includes(t.operator));
  if (message.recipient_type === 'stream') {
    return [{ operator: 'channel', operand: message.stream_id, negated: false }, { operator: 'topic', operand: message.topic, negated: false }, ...others];
  }
  const members = (await dmGroupMembers(services.database.db, [message.dm_group_id!])).get(message.dm_group_id!) ?? [];
  const userIds = members.length > 1 ? members.filter((u) => u !== viewer.id) : members;
  return [{ operator: 'dm', operand: userIds, negated: false }, ...others];
}

/**
 * Zulip refuses a narrow that asks for channel messages and direct messages at once. Negated
 * terms do not count, except that "not a direct message" means a channel message.
 */
export function checkNarrowKinds(terms: Term[]): void {
  const channel = terms.some(
    (t) => (t.kind !== 'empty' && !t.negated && ['channel', 'topic', 'channels_public', 'channels_web_public'].includes(t.kind)) || (t.kind === 'is' && t.what === 'dm' && t.negated),
  );
  const direct = terms.some((t) => t.kind !== 'empty' && !t.negated && (t.kind === 'dm' || t.kind === 'dm_including' || (t.kind === 'is' && t.what === 'dm')));
  if (channel && direct) throw new BadNarrow('Invalid narrow operator: No message can be both a channel message and direct message');
}
