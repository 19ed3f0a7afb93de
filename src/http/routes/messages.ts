// Messages: send, render, fetch a window or one message, change flags.
import type { Router } from '../router.js';
import { pathInt } from '../router.js';
import { check, type Params } from '../../lib/params.js';
import { BadRequest, IncompatibleParameters, InvalidMessage, MissingArgument } from '../../errors.js';
import { sendMessage, type SendTarget } from '../../actions/messages.js';
import { MAX_MESSAGE_LENGTH, normalizeContent } from '../../lib/message_text.js';
import { checkEditableFlag, updateFlagsForNarrow, updateMessageFlags } from '../../actions/message_flags.js';
import { editMessage } from '../../actions/message_edit.js';
import { accessibleMessage, messageHistory } from '../../queries/message_access.js';
import { deleteMessage } from '../../actions/message_delete.js';
import { renderMarkdown } from '../../markdown/render.js';
import { messageRenderContext } from '../../actions/render_context.js';
import { sendMessageEditTyping } from '../../actions/typing.js';
import { checkNarrowKinds, parseNarrow, resolveNarrow } from '../../queries/narrow.js';
import type { RawTerm } from '../../queries/terms.js';
import { matchFields } from '../../queries/search.js';
import { readReceipts } from '../../actions/read_receipts.js';
import { fetchMessages, MAX_MESSAGES_PER_FETCH, type Anchor } from '../../queries/messages.js';
import { formatMessages } from '../../shapes/messages.js';
import { EMPTY_TOPIC_DISPLAY_NAME } from '../../lib/message_text.js';

const STREAM_TYPES = new Set(['stream', 'channel']);
const DIRECT_TYPES = new Set(['private', 'direct']);
/** Zulip's LARGER_THAN_MAX_MESSAGE_ID: anchors above it mean "newest". */
const LARGER_THAN_MAX_MESSAGE_ID = 10000000000000000;

/** `to` of a channel message: a name (plain or JSON string), an id, or a one-element list of either. */
function channelTarget(raw: string): { streamId?: number; streamName?: string } {
  // A plain name cannot start a JSON value: skip the parse (and the exception it would throw).
  if (!/^\s*[-\d"[{tfn]/.test(raw)) return { streamName: raw };
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    return { streamName: raw };
  }
  if (Array.isArray(v)) {
    if (v.length !== 1) throw new BadRequest('Expected exactly one channel');
    v = v[0];
  }
  if (typeof v === 'number' && Number.isSafeInteger(v)) return { streamId: v };
  if (typeof v === 'string') return { streamName: v };
  throw new BadRequest('Invalid data type for channel');
}

/**
 * `to` of a direct message: a JSON list of user ids or of emails, or emails separated by commas
 * (plain or as a JSON string). The first element decides which kind the list must be.
 */
function directTarget(raw: string): { userIds?: number[]; emails?: string[] } {
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    v = raw;
  }
  if (typeof v === 'string') v = v.split(',');
  if (!Array.isArray(v)) throw new BadRequest('Invalid data type for recipients');
  if (v.length === 0) return { userIds: [] };
  const mixed = () => new BadRequest('Recipient lists may contain emails or user IDs, but not both.');
  if (typeof v[0] === 'string') {
    if (!v.every((x) => typeof x === 'string')) throw mixed();
    return { emails: [...new Set((v as string[]).map((e) => e.trim()))].filter(Boolean) };
  }
  if (typeof v[0] !== 'number' || !Number.isSafeInteger(v[0])) throw new BadRequest('Invalid data type for recipients');
  if (!v.every((x) => typeof x === 'number' && Number.isSafeInteger(x))) throw mixed();
  return { userIds: [...new Set(v as number[])] };
}

/** What get_messages_backend's IncompatibleParametersError names when message_ids comes with a window. */
const WINDOW_PARAMETERS = ['num_before', 'num_after', 'anchor', 'message_ids', 'include_anchor', 'use_first_unread_anchor'];

/**
 * Zulip's parse_anchor_value; use_first_unread_anchor (the legacy spelling) wins over anchor. A
 * missing anchor is its own JsonableError (a sentence, BAD_REQUEST), not a missing-argument error.
 */
function parseAnchor(raw: string | undefined, useFirstUnread: boolean, params: Params): Anchor {
  if (useFirstUnread) return 'first_unread';
  if (raw === undefined) throw new BadRequest("Missing 'anchor' argument.");
  if (raw === 'newest' || raw === 'oldest' || raw === 'first_unread') return raw;
  if (raw === 'date') return { date: parseAnchorDate(params.optStr('anchor_date')) };
  if (!/^\s*-?\d+\s*$/.test(raw)) throw new BadRequest('Invalid anchor');
  const n = Number(raw);
  if (n <= 0) return 0;
  return n >= LARGER_THAN_MAX_MESSAGE_ID ? 'newest' : n;
}

/** anchor_date: an ISO 8601 date (midnight UTC) or date and time (UTC unless it says otherwise). */
function parseAnchorDate(raw: string | undefined): number {
  if (raw === undefined) throw new MissingArgument('anchor_date');
  const m = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)(Z|[+-]\d{2}:?\d{2})?)?$/i.exec(raw.trim());
  const ms = m ? Date.parse(`${m[1]}T${m[2] ?? '00:00'}${m[3] ?? 'Z'}`) : NaN;
  if (!Number.isFinite(ms)) throw new BadRequest('Invalid anchor_date');
  return Math.floor(ms / 1000);
}

function nonNegative(params: Params, name: string, required = false): number {
  const n = required ? params.int(name) : (params.optInt(name) ?? 0);
  if (n < 0) throw new BadRequest(`${name} is too small`);
  return n;
}

/**
 * Narrow terms as Zulip cleans them before use: legacy [operator, operand] pairs must be two
 * strings, and a topic named like the empty topic's display name means the empty topic.
 */
function cleanNarrow(v: unknown, name: string): RawTerm[] {
  if (Array.isArray(v)) {
    for (const t of v) {
      if (Array.isArray(t) && (t.length !== 2 || t.some((x) => typeof x !== 'string'))) throw new BadRequest(`Invalid ${name}: element is not a string pair`);
    }
  }
  return parseNarrow(v).map((t) => ((t.operator === 'topic' || t.operator === 'subject') && t.operand === EMPTY_TOPIC_DISPLAY_NAME ? { ...t, operand: '' } : t));
}

export function registerMessageRoutes(r: Router): void {
  r.post('/messages', async ({ params, services, user, realm, clientName }) => {
    const type = params.str('type');
    const toRaw = params.str('to');
    const content = params.str('content', { max: Infinity });
    const topic = params.optStrOrAlias('topic', 'subject');
    const queueId = params.optStr('queue_id');
    const localId = params.optStr('local_id');
    const readBySender = params.optBool('read_by_sender');
    // Local echo needs both: the queue to tell, and the id the client gave its copy.
    if (queueId !== undefined && localId === undefined) throw new MissingArgument('local_id');
    if (localId !== undefined && queueId === undefined) throw new MissingArgument('queue_id');
    let target: SendTarget;
    if (STREAM_TYPES.has(type)) target = { kind: 'stream', ...channelTarget(toRaw), topic };
    else if (DIRECT_TYPES.has(type)) target = { kind: 'direct', ...directTarget(toRaw) };
    else throw new BadRequest('Invalid type');
    return sendMessage(services, user, realm, { target, content, clientName, readBySender, queueId, localId });
  });

  r.post('/messages/render', async ({ params, services, user, realm }) => {
    const content = params.str('content', { max: Infinity });
    if (content.length > MAX_MESSAGE_LENGTH) throw new BadRequest(`Message too long (limit: ${MAX_MESSAGE_LENGTH} characters)`);
    // Zulip renders whatever it is given: blank text is no error here, only empty HTML.
    if (content.trim() === '') return { rendered: '' };
    const normalized = normalizeContent(content);
    return { rendered: renderMarkdown(normalized, await messageRenderContext(services, realm, user, normalized)).html };
  });

  r.get('/messages', async ({ params, services, user, realm }) => {
    const messageIds = params.optJson('message_ids', check.intList);
    const rawAnchor = params.optStr('anchor');
    const useFirstUnread = params.bool('use_first_unread_anchor', false);
    const requestedBefore = nonNegative(params, 'num_before');
    const requestedAfter = nonNegative(params, 'num_after');
    const includeAnchor = params.bool('include_anchor', true);
    if (messageIds !== undefined) {
      // get_messages_backend: a set of messages instead of a window. Only a window that asks for
      // something (a nonzero count, an anchor) conflicts, and the error names every window parameter.
      if (requestedBefore || requestedAfter || rawAnchor !== undefined || useFirstUnread) throw new IncompatibleParameters(WINDOW_PARAMETERS);
      if (messageIds.length > MAX_MESSAGES_PER_FETCH) throw new BadRequest(`Too many messages requested (maximum ${MAX_MESSAGES_PER_FETCH}).`);
    }
    const anchor = messageIds ? 0 : parseAnchor(rawAnchor, useFirstUnread, params);
    const numBefore = requestedBefore;
    const numAfter = messageIds ? messageIds.length : requestedAfter;
    if (numBefore + numAfter > MAX_MESSAGES_PER_FETCH) throw new BadRequest(`Too many messages requested (maximum ${MAX_MESSAGES_PER_FETCH}).`);
    if (!messageIds && numBefore > 0 && numAfter > 0 && !includeAnchor) throw new BadRequest('The anchor can only be excluded at an end of the range');
    const applyMarkdown = params.bool('apply_markdown', true);
    const clientGravatar = params.bool('client_gravatar', true);
    const allowEmptyTopicName = params.bool('allow_empty_topic_name', false);
    const narrowRaw = params.optJson('narrow', cleanNarrow) ?? [];
    const terms = await resolveNarrow(services, user, narrowRaw);
    checkNarrowKinds(terms);
    const ids = messageIds && [...new Set(messageIds)];
    const result = await fetchMessages(services, user, { anchor, numBefore, numAfter, includeAnchor: ids ? false : includeAnchor, terms, messageIds: ids });
    // The narrow's channels were read with it: their names need no second lookup.
    const narrowStreams = terms.flatMap((t) => (t.kind === 'channel' ? [t.stream] : []));
    const messages = await formatMessages(services, realm, result.rows, { applyMarkdown, clientGravatar, allowEmptyTopicName }, narrowStreams);
    if (result.search) {
      // A search narrow: each message also carries its content and topic with the matches highlighted.
      result.rows.forEach((row, i) => Object.assign(messages[i]!, matchFields(row.rendered_content, row.topic, result.search)));
    }
    // Requested by id, the messages are not a window: no anchor, nothing promised about the ends.
    if (ids) return { found_anchor: false, found_oldest: false, found_newest: false, history_limited: false, messages };
    return {
      anchor: result.anchor,
      found_anchor: result.found_anchor,
      // Zulip: an anchor at 0 (oldest, or any id below 1) has nothing before it.
      found_oldest: result.found_oldest || anchor === 0,
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
    const [message] = await formatMessages(services, realm, [row], { applyMarkdown, clientGravatar: true, allowEmptyTopicName });
    return { raw_content: row.content, message };
  });

  r.patch('/messages/{message_id}', async (ctx) => {
    const { params, services, user, realm } = ctx;
    const id = pathInt(ctx, 'message_id', () => new InvalidMessage());
    const mode = params.optStr('propagate_mode') ?? 'change_one';
    if (mode !== 'change_one' && mode !== 'change_later' && mode !== 'change_all') throw new BadRequest('Invalid propagate_mode');
    const { detachedUploads } = await editMessage(services, user, realm, id, {
      content: params.optStr('content', { max: Infinity }),
      topic: params.optStrOrAlias('topic', 'subject'),
      streamId: params.optInt('stream_id'),
      propagateMode: mode,
      prevContentSha256: params.optStr('prev_content_sha256'),
      notifyOld: params.bool('send_notification_to_old_thread', false),
      notifyNew: params.bool('send_notification_to_new_thread', true),
    });
    return { detached_uploads: detachedUploads };
  });

  r.delete('/messages/{message_id}', async (ctx) => {
    await deleteMessage(ctx.services, ctx.user, ctx.realm, pathInt(ctx, 'message_id', () => new InvalidMessage()));
    return {};
  });

  r.get('/messages/{message_id}/history', async (ctx) => ({
    message_history: await messageHistory(
      ctx.services,
      ctx.user,
      ctx.realm,
      pathInt(ctx, 'message_id', () => new InvalidMessage()),
      ctx.params.bool('allow_empty_topic_name', false),
    ),
  }));

  r.post('/messages/{message_id}/typing', async (ctx) => {
    const id = pathInt(ctx, 'message_id', () => new InvalidMessage());
    const op = ctx.params.str('op');
    if (op !== 'start' && op !== 'stop') throw new BadRequest('Invalid op');
    await sendMessageEditTyping(ctx.services, ctx.user, ctx.realm, id, op);
    return {};
  });

  r.post('/messages/flags', async ({ params, services, user, realm }) => {
    const messages = params.json('messages', check.intList);
    // Zulip checks the flag before the operation.
    const flag = checkEditableFlag(params.str('flag'));
    const op = params.str('op');
    if (op !== 'add' && op !== 'remove') throw new BadRequest(`Invalid message flag operation: '${op}'`);
    const result = await updateMessageFlags(services, user, realm, messages, op, flag);
    // Zulip echoes the requested ids, kept only for older clients; which ones changed is told by
    // the update_message_flags event.
    return { ...result, messages };
  });

  r.get('/messages/matches_narrow', async ({ params, services, user }) => {
    const msgIds = [...new Set(params.json('msg_ids', check.intList))];
    const narrowRaw = params.json('narrow', cleanNarrow);
    const terms = await resolveNarrow(services, user, narrowRaw);
    checkNarrowKinds(terms);
    const out: Record<string, { match_content: string; match_subject: string }> = {};
    // Only messages the viewer received (their own rows), as Zulip checks them; in chunks under bind limits.
    for (let i = 0; i < msgIds.length; i += 1000) {
      const ids = msgIds.slice(i, i + 1000);
      const result = await fetchMessages(services, user, { anchor: 0, numBefore: 0, numAfter: ids.length, includeAnchor: false, terms, messageIds: ids, allowHistory: false });
      for (const row of result.rows) out[String(row.id)] = matchFields(row.rendered_content, row.topic, result.search);
    }
    return { messages: out };
  });

  r.post('/messages/flags/narrow', async ({ params, services, user, realm }) => {
    const anchor = parseAnchor(params.str('anchor'), false, params);
    const includeAnchor = params.bool('include_anchor', true);
    const numBefore = nonNegative(params, 'num_before', true);
    const numAfter = nonNegative(params, 'num_after', true);
    const narrowRaw = params.json('narrow', cleanNarrow);
    const op = params.str('op');
    const flag = checkEditableFlag(params.str('flag'));
    if (op !== 'add' && op !== 'remove') throw new BadRequest(`Invalid message flag operation: '${op}'`);
    const terms = await resolveNarrow(services, user, narrowRaw);
    checkNarrowKinds(terms);
    return updateFlagsForNarrow(services, user, realm, { anchor, includeAnchor, numBefore, numAfter, terms }, op, flag);
  });

  r.get('/messages/{message_id}/read_receipts', async (ctx) => ({
    user_ids: await readReceipts(ctx.services, ctx.user, ctx.realm, pathInt(ctx, 'message_id', () => new InvalidMessage())),
  }));
}
