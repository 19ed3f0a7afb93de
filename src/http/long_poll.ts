// GET /api/v1/events, the long-poll every client repeats after each answer, served straight from
// Node's request handler when it is the plain case: credentials in the header, only queue_id,
// last_event_id and dont_block, a queue of this process. At light load every event is one such
// request and answer, so what each costs is most of what delivery costs; here it skips Fastify's
// routing, hooks and reply pipeline. Anything else (an error, a queue of another process, other
// parameters, a process that is stopping) goes on to Fastify and the route in routes/events.ts,
// which answer exactly as before.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import type { Services } from '../services.js';
import { authenticate } from './auth.js';
import { BOT_TYPE } from '../store/users.js';
import { FORWARDED_HEADER } from './queue_forward.js';
import { RateLimitExceeded, rateLimitHeaders } from '../lib/rate_limit.js';
import type { QueuedEvent } from '../events/queues.js';

const PATH = '/api/v1/events';
const INTEGER = /^-?\d+$/;

/** The success answer of GET /events around the events' stored JSON (also used by the route). */
export function eventsBody(events: readonly QueuedEvent[], queueId: string, tail = ''): string {
  let joined = '';
  for (let i = 0; i < events.length; i++) joined += (i ? ',' : '') + events[i]!.json;
  return `{"result":"success","msg":"","events":[${joined}],"queue_id":${JSON.stringify(queueId)}${tail}}`;
}

interface PollParams {
  queueId: string;
  lastEventId: number | null;
  dontBlock: boolean;
}

/** The parameters when they are exactly the plain case; undefined sends the request to Fastify. */
function plainParams(search: string): PollParams | undefined {
  const query = parseQuery(search);
  for (const key of Object.keys(query)) if (key !== 'queue_id' && key !== 'last_event_id' && key !== 'dont_block') return undefined;
  const { queue_id: queueId, last_event_id: lastEventId, dont_block: dontBlock } = query;
  // A repeated parameter (an array here) or an unusual value is the route's to answer.
  if (typeof queueId !== 'string' || !queueId) return undefined;
  if (lastEventId !== undefined && !(typeof lastEventId === 'string' && INTEGER.test(lastEventId) && Number.isSafeInteger(Number(lastEventId)))) return undefined;
  if (dontBlock !== undefined && dontBlock !== 'true' && dontBlock !== 'false') return undefined;
  return { queueId, lastEventId: lastEventId === undefined ? null : Number(lastEventId), dontBlock: dontBlock === 'true' };
}

/**
 * Serves the request if it is a plain long-poll; false (having written nothing and read nothing)
 * when Fastify should handle it.
 */
export async function serveLongPoll(services: Services, req: IncomingMessage, res: ServerResponse): Promise<boolean> {
  if (req.method !== 'GET' || services.draining || req.headers[FORWARDED_HEADER] !== undefined) return false;
  const url = req.url ?? '';
  const q = url.indexOf('?');
  if (q !== PATH.length || !url.startsWith(PATH)) return false;
  const params = plainParams(url.slice(q + 1));
  if (!params) return false;
  let login;
  try {
    login = await authenticate(services, req);
  } catch {
    return false; // the route answers the refusal, with its challenge header
  }
  const { user } = login;
  if (user.is_bot && user.bot_type === BOT_TYPE.incoming_webhook) return false;
  const queue = services.queues.get(params.queueId, user.id);
  if (!queue) return false; // another process's queue, or none: the route forwards or refuses
  const headers: Record<string, string> = { 'Content-Type': 'application/json; charset=utf-8' };
  const limiter = services.rateLimiter;
  if (limiter) {
    try {
      Object.assign(headers, rateLimitHeaders(await limiter.hit(`user:${user.id}`, limiter.config.user)));
    } catch (err) {
      if (!(err instanceof RateLimitExceeded)) throw err;
      const body = JSON.stringify(err.toBody());
      res.writeHead(err.status, { ...headers, ...err.headers(), 'Content-Length': String(Buffer.byteLength(body)) });
      res.end(body);
      return true;
    }
  }
  // A 'close' before the answer is written means the client hung up while parked.
  const onClose = () => services.queues.abandon(queue);
  res.once('close', onClose);
  try {
    const events = await services.queues.poll(queue, params.lastEventId, params.dontBlock);
    if (res.destroyed) return true;
    const body = eventsBody(events, queue.id);
    headers['Content-Length'] = String(Buffer.byteLength(body));
    res.writeHead(200, headers);
    res.end(body);
  } finally {
    res.off('close', onClose);
  }
  return true;
}
