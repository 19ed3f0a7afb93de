// A long-poll (or queue deletion) for a queue that lives in another process of the cluster, and
// does not move here (http/queue_move.ts: it moved just now, or the move failed), is passed to that
// process and its answer relayed unchanged, so a round-robin balancer can send any
// request anywhere. The home process checks the credentials again; a request is forwarded once at
// most (the header below), so two processes can never bounce a request between them.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Services } from '../services.js';
import type { QueueHome } from '../events/cluster.js';

export const FORWARDED_HEADER = 'x-confab-forwarded';

const SHUTDOWN = 'process stopping';

/**
 * A stopping process answers the long-polls it is relaying with no events, as the home process does
 * with a poll it releases: the client polls again elsewhere and keeps its queue. (Waiting for them
 * could hold the shutdown for a whole heartbeat interval.)
 */
export function endForwardedPolls(services: Services): void {
  if (!services.cluster) return;
  services.cluster.relayingStopped = true;
  for (const abort of services.cluster.relaying) abort.abort(SHUTDOWN);
}

/**
 * Whether a peer process forwarded this request to us (and so has counted it against the sender's
 * rate limit already): its header carries the token this process announced.
 */
export function isForwardedByPeer(services: Services, request: FastifyRequest): boolean {
  const value = request.headers[FORWARDED_HEADER];
  return typeof value === 'string' && !!services.cluster?.isPeerToken(value);
}

export function answerEmpty(reply: FastifyReply, queueId: string): void {
  reply.type('application/json; charset=utf-8').send(`{"result":"success","msg":"","events":[],"queue_id":${JSON.stringify(queueId)}}`);
}

/** Header names passed on to the home process. */
const PASSED_HEADERS = ['authorization', 'user-agent', 'x-forwarded-for'];

/**
 * Forwards the request to the queue's home process (`holder` when known: a queue that moved away
 * from the process its id names, http/queue_move.ts) and relays its answer. Resolves false (nothing
 * sent) when there is no other home to ask, or it cannot be reached: the caller answers that the
 * queue does not exist.
 */
export async function forwardToQueueHome(services: Services, queueId: string, request: FastifyRequest, reply: FastifyReply, holder?: QueueHome): Promise<boolean> {
  const cluster = services.cluster;
  // A request that already carries the header is never forwarded again, whatever its value: two
  // processes can never bounce one between them.
  if (!cluster || request.headers[FORWARDED_HEADER] !== undefined) return false;
  let home = holder ?? (await cluster.homeOf(queueId));
  if (!home) return false;
  if (cluster.relayingStopped && request.method === 'GET') {
    answerEmpty(reply, queueId);
    return true;
  }
  const headers: Record<string, string> = { [FORWARDED_HEADER]: home.token };
  for (const name of PASSED_HEADERS) {
    const v = request.headers[name];
    if (typeof v === 'string') headers[name] = v;
  }
  // The parameters travel in the query string, whichever way the client sent them.
  const fields = new URLSearchParams();
  const merged = { ...((request.query ?? {}) as Record<string, unknown>), ...(isPlainObject(request.body) ? request.body : {}) };
  for (const [k, v] of Object.entries(merged)) fields.set(k, typeof v === 'string' ? v : JSON.stringify(v));
  const path = (request.raw.url ?? '').split('?')[0]!;
  const abort = new AbortController();
  const onClose = () => abort.abort();
  reply.raw.once('close', onClose);
  // A parked poll answers within the heartbeat interval; allow that plus a margin.
  const timer = setTimeout(() => abort.abort(), (services.config.heartbeatSeconds + 15) * 1000);
  cluster.relaying.add(abort);
  try {
    let res: Response;
    try {
      res = await fetch(`${home.url}${path}?${fields.toString()}`, { method: request.method, headers, signal: abort.signal });
    } catch (err) {
      // The home may have just handed its queues to another process and stopped, after we read
      // where the queue lives: read it once more, and ask the new home if there is one.
      const moved = abort.signal.aborted ? undefined : await cluster.homeOf(queueId);
      if (!moved || moved.token === home.token) throw err;
      home = moved;
      headers[FORWARDED_HEADER] = home.token;
      res = await fetch(`${home.url}${path}?${fields.toString()}`, { method: request.method, headers, signal: abort.signal });
    }
    const text = await res.text();
    if (!reply.raw.destroyed) {
      reply.code(res.status).type(res.headers.get('content-type') ?? 'application/json; charset=utf-8').send(text);
    }
    return true;
  } catch {
    if (abort.signal.reason === SHUTDOWN && request.method === 'GET' && !reply.raw.destroyed) {
      answerEmpty(reply, queueId);
      return true;
    }
    // The home died between its last announcement and now (or the client left): its queues are gone.
    return reply.raw.destroyed;
  } finally {
    clearTimeout(timer);
    cluster.relaying.delete(abort);
    reply.raw.off('close', onClose);
  }
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Buffer.isBuffer(v) && !Array.isArray(v);
}
