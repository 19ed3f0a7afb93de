// Messages: send, render, fetch a window or one message, change flags.
import type { Router } from '../router.js';
import { pathInt } from '../router.js';
import { check } from '../params.js';
import { BadRequest, IncompatibleParameters, InvalidMessage, MissingArgument } from '../../errors.js';
import { MAX_MESSAGE_LENGTH, normalizeContent, sendMessage, type SendTarget } from '../../actions/messages.js';
import { checkEditableFlag, updateMessageFlags } from '../../actions/message_flags.js';
import { accessibleMessage, deleteMessage, editMessage, messageHistory } from '../../actions/message_edit.js';
import { renderMarkdown } from '../../markdown/render.js';
import { parseNarrow, resolveNarrow } from '../../queries/narrow.js';
import { fetchMessages, MAX_MESSAGES_PER_FETCH, type Anchor } from '../../queries/messages.js';
import { formatMessages } from '../shapes/messages.js';

const STREAM_TYPES = new Set(['stream', 'channel']);
const DIRECT_TYPES = new Set(['private', 'direct']);

/** `to` of a channel message: a name (plain or JSON string), an id, or a one-element list of either. */
function channelTarget(raw: string): { streamId?: number; streamName?: string } {
  let v: unknown = raw;
  try {
    v = JSON.parse(raw);
  } catch {
    return { streamName: raw };
  }
  if (Array.isArray(v)) {
    if (v.length !== 1) throw new BadRequest('Invalid channel name or ID');
    v = v[0];
  }
  if (typeof v === 'number' && Number.isSafeInteger(v)) return { streamId: v };
  if (typeof v === 'string') return { streamName: v };
  throw new BadRequest('Invalid channel name or ID');
}

/** `to` of a direct message: a JSON list of user ids or of emails, or comma-separated emails. */
function directTarget(raw: string): { userIds?: number[]; emails?: string[] } {
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    return { emails: raw.split(',').map((s) => s.trim()).filter(Boolean) };
  }
  if (typeof v === 'number') v = [v];
  if (typeof v === 'string') return { emails: v.split(',').map((s) => s.trim()).filter(Boolean) };
  if (!Array.isArray(v)) throw new BadRequest('Invalid user ID or email list');
  if (v.every((x) => typeof x === 'number' && Number.isSafeInteger(x))) return { userIds: v as number[] };
  if (v.every((x) => typeof x === 'string')) return { emails: v as string[] };
  throw new BadRequest('Recipient lists may contain emails or user IDs, but not both.');
}

function parseAnchor(raw: string | undefined, useFirstUnread: boolean): Anchor {
  if (raw === undefined) {
    if (useFirstUnread) return 'first_unread';
    throw new MissingArgument('anchor');
  }
  if (raw === 'newest' || raw === 'oldest' || raw === 'first_unread') return raw;
  if (/^-?\d+$/.test(raw.trim())) {
    const n = Number(raw);
    if (!Number.isSafeInteger(n)) throw new BadRequest('Invalid anchor');
    return Math.max(0, n);
  }
  throw new BadRequest('Invalid anchor');
}

export function registerMessageRoutes(r: Router): void {
  r.post('/messages', async ({ params, services, user, realm, clientName }) => {
    const type = params.str('type');
    const toRaw = params.str('to');
    const content = params.str('content');
    const topicParam = params.optStr('topic');
    const subject = params.optStr('subject');
    const queueId = params.optStr('queue_id');
    const localId = params.optStr('local_id');
    const readBySender = params.optBool('read_by_sender');
    if ((queueId === undefined) !== (localId === undefined)) throw new BadRequest('Missing queue_id or local_id');
    let target: SendTarget;
    if (STREAM_TYPES.has(type)) target = { kind: 'stream', ...channelTarget(toRaw), topic: topicParam ?? subject };
    else if (DIRECT_TYPES.has(type)) target = { kind: 'direct', ...directTarget(toRaw) };
    else throw new BadRequest('Invalid message type');
    return sendMessage(services, user, realm, { target, content, clientName, readBySender, queueId, localId });
  });

  r.post('/messages/render', async ({ params, services, realm }) => {
    const content = params.str('content');
    if (content.length > MAX_MESSAGE_LENGTH) throw new BadRequest(`Message too long (limit: ${MAX_MESSAGE_LENGTH} characters)`);
    const users = await services.cache.users(realm.id);
    return { rendered: renderMarkdown(normalizeContent(content), { users: users.values(), linkifiers: await services.cache.linkifiers(realm.id) }).html };
  });

  r.get('/messages', async ({ params, services, user, realm }) => {
    const anchor = parseAnchor(params.optStr('anchor'), params.bool('use_first_unread_anchor', false));
    const numBefore = params.int('num_before');
    const numAfter = params.int('num_after');
    if (numBefore < 0 || numAfter < 0) throw new BadRequest('Invalid num_before or num_after');
    if (numBefore + numAfter > MAX_MESSAGES_PER_FETCH) throw new BadRequest(`Too many messages requested (maximum ${MAX_MESSAGES_PER_FETCH}).`);
    const includeAnchor = params.bool('include_anchor', true);
    const applyMarkdown = params.bool('apply_markdown', true);
    const clientGravatar = params.bool('client_gravatar', true);
    const allowEmptyTopicName = params.bool('allow_empty_topic_name', false);
    const messageIds = params.optJson('message_ids', check.intList);
    const narrowRaw = params.optJson('narrow', parseNarrow) ?? [];
    if (messageIds !== undefined) throw new IncompatibleParameters(['message_ids']);
    const terms = await resolveNarrow(services, user, narrowRaw);
    const result = await fetchMessages(services, user, { anchor, numBefore, numAfter, includeAnchor, terms });
    const messages = await formatMessages(services, realm, result.rows, { applyMarkdown, clientGravatar, allowEmptyTopicName });
    return {
      anchor: result.anchor,
      found_anchor: result.found_anchor,
      found_oldest: result.found_oldest,
      found_newest: result.found_newest,
      history_limited: result.history_limited,
      messages,
    };
  });

  r.get('/messages/{message_id}', async (ctx) => {
    const { params, services, user, realm } = ctx;
    const id = pathInt(ctx, 'message_id', () => new InvalidMessage());
    const applyMarkdown = params.bool('apply_markdown', true);
    const allowEmptyTopicName = params.bool('allow_empty_topic_name', false);
    // The same access rule as a fetch: the viewer's own row, or open channel history.
    const row = await accessibleMessage(services, user, id);
    const [message] = await formatMessages(services, realm, [row], { applyMarkdown, clientGravatar: false, allowEmptyTopicName });
    return { raw_content: row.content, message };
  });

  r.patch('/messages/{message_id}', async (ctx) => {
    const { params, services, user, realm } = ctx;
    const id = pathInt(ctx, 'message_id', () => new InvalidMessage());
    const mode = params.optStr('propagate_mode') ?? 'change_one';
    if (mode !== 'change_one' && mode !== 'change_later' && mode !== 'change_all') throw new BadRequest('Invalid propagate_mode');
    if (params.optInt('stream_id') !== undefined) throw new BadRequest('Moving messages to another channel is not supported by this server yet.');
    params.optBool('send_notification_to_old_thread');
    params.optBool('send_notification_to_new_thread');
    await editMessage(services, user, realm, id, {
      content: params.optStr('content'),
      topic: params.optStr('topic') ?? params.optStr('subject'),
      propagateMode: mode,
      prevContentSha256: params.optStr('prev_content_sha256'),
    });
    return { detached_uploads: [] };
  });

  r.delete('/messages/{message_id}', async (ctx) => {
    await deleteMessage(ctx.services, ctx.user, ctx.realm, pathInt(ctx, 'message_id', () => new InvalidMessage()));
    return {};
  });

  r.get('/messages/{message_id}/history', async (ctx) => ({
    message_history: await messageHistory(ctx.services, ctx.user, ctx.realm, pathInt(ctx, 'message_id', () => new InvalidMessage())),
  }));

  r.post('/messages/flags', async ({ params, services, user, realm }) => {
    const messages = params.json('messages', check.intList);
    const op = params.str('op');
    if (op !== 'add' && op !== 'remove') throw new BadRequest(`Invalid message flag operation: '${op}'`);
    const flag = checkEditableFlag(params.str('flag'));
    return updateMessageFlags(services, user, realm, messages, op, flag);
  });
}
