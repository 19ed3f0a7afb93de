// A queue moves to the process where its poll arrives. A client's /register and its polls usually
// travel on different connections, so behind a round-robin balancer a poll often reaches a process
// other than the queue's; relaying it there (http/queue_forward.ts) costs more than answering it,
// so with forwarding alone a second process adds no capacity for delivering events. Instead the
// process that got the poll asks the queue's holder to hand that one queue over (the marker and
// snapshot of events/handover.ts, for one queue), adopts it and answers the poll itself; the next
// polls on the same keep-alive connection find the queue here.
//
// A queue keeps its id, whose prefix names the process that registered it. That process, and any
// that moved the queue away, remembers where it went (events/whereabouts.ts) and answers a move
// request with "it is at X"; the asking process then asks X. Whatever fails on the way (a process
// unreachable, a marker that does not come back, a peer too old to know the route) leaves the queue
// where it is, and the poll is forwarded as before: never an error, never a lost event.
import type { FastifyInstance } from 'fastify';
import type { Services } from '../services.js';
import { homeNodeOf, type QueueHome } from '../events/directory.js';
import type { EventQueue } from '../events/queues.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { BadEventQueueId } from '../errors.js';
import { answerEmpty, FORWARDED_HEADER, forwardToQueueHome, isForwardedByPeer } from './queue_forward.js';
import { ADOPT_PATH, type AdoptRequest } from './queue_handover.js';

const MOVE_PATH = '/internal/queue-move';

/**
 * The rule against ping-pong: a queue that moved to a process less than this long ago stays there,
 * and polls that reach other processes meanwhile are forwarded to it. A client that opens a new
 * connection for every poll (so its polls alternate between processes) then moves its queue at
 * most once in this period instead of on every poll, while one that keeps its connection moves it
 * once and polls locally from then on.
 */
export const MOVE_HOLD_MS = 5_000;
/**
 * A hold reported by another process is taken as this much shorter here: it was measured before
 * the answer travelled, and a poll forwarded at its very end could find the queue gone on.
 */
const HOLD_MARGIN_MS = 500;
/** How long the holder waits for its marker to come round the bus (the adopter waits as long for it). */
const MARKER_TIMEOUT_MS = 5_000;
/** A move takes at most two marker waits and two requests between processes. */
const ADOPT_TIMEOUT_MS = 12_000;
const ASK_TIMEOUT_MS = 15_000;
/** How many "it is at X" answers a process follows for one poll (each one a process the queue went through). */
const MAX_HOPS = 3;
/** How many other processes are asked when no process named by the id or a whereabout has the queue. */
const MAX_PEERS_ASKED = 16;

interface MoveRequest {
  queue_id: string;
  user_id: number;
  /** The asking process's node id: the queue goes there. */
  to: string;
  /** False only asks where the queue is (a DELETE, or a process that cannot take queues now). */
  move: boolean;
}

type MoveAnswer =
  | { outcome: 'moved' }
  /** The queue stays at the answering process: forward there (without asking again for hold_ms). */
  | { outcome: 'here'; hold_ms: number }
  /** The answering process does not have it, but knows where it went. */
  | { outcome: 'elsewhere'; node: string; hold_ms: number }
  | { outcome: 'unknown' };

/** Where the process with this node id (or the one that took over its queues) answers. */
function nodeHome(services: Services, nodeId: string): Promise<QueueHome | undefined> {
  return services.cluster!.homeOf(`${nodeId}-`);
}

function isMoveRequest(body: unknown): body is MoveRequest {
  if (!body || typeof body !== 'object') return false;
  const b = body as Record<string, unknown>;
  return typeof b.queue_id === 'string' && Number.isSafeInteger(b.user_id) && typeof b.to === 'string' && typeof b.move === 'boolean';
}

function isMoveAnswer(a: unknown): a is MoveAnswer {
  if (!a || typeof a !== 'object') return false;
  const b = a as Record<string, unknown>;
  switch (b.outcome) {
    case 'moved':
    case 'unknown':
      return true;
    case 'here':
      return typeof b.hold_ms === 'number';
    case 'elsewhere':
      return typeof b.node === 'string' && typeof b.hold_ms === 'number';
    default:
      return false;
  }
}

/** The queues of this process that are moving to another one, each with the move's end. */
const moving = new WeakMap<EventQueue, Promise<void>>();

/** As the holder: hands the queue to the asking process if the rules allow, or says where it is. */
async function answerMove(services: Services, req: MoveRequest): Promise<MoveAnswer> {
  const { queues } = services;
  const handover = services.handover!;
  const queue = queues.get(req.queue_id, req.user_id);
  if (!queue) {
    const went = handover.whereabouts.get(req.queue_id);
    return went ? { outcome: 'elsewhere', node: went.nodeId, hold_ms: went.heldUntil - Date.now() } : { outcome: 'unknown' };
  }
  const stay: MoveAnswer = { outcome: 'here', hold_ms: 0 };
  const inProgress = moving.get(queue);
  if (inProgress) {
    // Moving elsewhere right now: answer once that is settled, with where the queue is then.
    await inProgress;
    return answerMove(services, req);
  }
  if (!req.move || services.draining || !queues.acceptsQueues || req.to === services.cluster!.nodeId) return stay;
  const held = queue.movedInAt + MOVE_HOLD_MS - Date.now();
  if (held > 0) return { outcome: 'here', hold_ms: held };
  // Marked before anything is awaited: a second request for this queue waits for this move.
  queues.beginMove(queue);
  let moved = false;
  let settled = () => {};
  moving.set(queue, new Promise<void>((resolve) => (settled = resolve)));
  try {
    const to = await nodeHome(services, req.to);
    // Only to a live process under its own id (not one whose id another process took over).
    if (!to || to.nodeId !== req.to) return stay;
    const snapshot = await handover.snapshotAtMarker(req.to, MARKER_TIMEOUT_MS, queue.id);
    if (!snapshot || snapshot.queues.length !== 1) return stay;
    const body: AdoptRequest = { marker: snapshot.marker, nodes: [], queues: snapshot.queues, move: true };
    const res = await fetch(`${to.url}${ADOPT_PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [FORWARDED_HEADER]: to.token },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(ADOPT_TIMEOUT_MS),
    });
    moved = res.ok && ((await res.json()) as { adopted?: number }).adopted === 1;
  } catch {
    moved = false;
  } finally {
    // Dropped here only once the adopter has it; otherwise it goes on here as if nothing happened.
    queues.endMove(queue, moved);
    if (moved) handover.whereabouts.set(queue.id, req.to, MOVE_HOLD_MS);
    moving.delete(queue);
    settled();
  }
  if (!moved) return stay;
  return { outcome: 'moved' };
}

export function registerQueueMove(app: FastifyInstance, services: Services): void {
  app.route({
    method: 'POST',
    url: MOVE_PATH,
    // Only a peer gets past this, and before the body is read; to anyone else the path does not exist.
    onRequest: async (request, reply) => {
      if (!services.handover || !isForwardedByPeer(services, request)) {
        return reply.status(404).send({ result: 'error', msg: 'Not Found', code: 'NOT_FOUND' });
      }
    },
    handler: async (request, reply) => {
      if (!isMoveRequest(request.body)) return reply.status(400).send({ result: 'error', msg: 'Invalid queue move', code: 'BAD_REQUEST' });
      return reply.send({ result: 'success', msg: '', ...(await answerMove(services, request.body)) });
    },
  });
}

async function ask(home: QueueHome, req: MoveRequest): Promise<MoveAnswer | null> {
  try {
    const res = await fetch(`${home.url}${MOVE_PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [FORWARDED_HEADER]: home.token },
      body: JSON.stringify(req),
      signal: AbortSignal.timeout(ASK_TIMEOUT_MS),
    });
    if (!res.ok) return null;
    const answer: unknown = await res.json();
    return isMoveAnswer(answer) ? answer : null;
  } catch (err) {
    // Nothing listens there: the process is gone (its announcement outlives it a few seconds), and
    // its queues with it. Anything else (a timeout) leaves it unknown whether it has the queue.
    return (err as { cause?: { code?: string } }).cause?.code === 'ECONNREFUSED' ? { outcome: 'unknown' } : null;
  }
}

/**
 * The queue, now here; the process to forward to; 'gone' when every process asked answered and
 * none has it; or null when that is not certain (forward by the id, as before).
 */
export type Found = { queue: EventQueue } | { holder: QueueHome } | 'gone' | null;

/**
 * For a request about a queue this process does not hold: brings the queue here (`move`, for a
 * GET /events) or finds the process that holds it.
 */
export async function findQueue(services: Services, queueId: string, userId: number, move: boolean): Promise<Found> {
  const { cluster, handover } = services;
  if (!cluster || !handover) return null;
  const req: MoveRequest = { queue_id: queueId, user_id: userId, to: cluster.nodeId, move: move && !services.draining && services.queues.acceptsQueues };
  const known = handover.whereabouts.get(queueId);
  if (known && known.heldUntil > Date.now()) {
    // It moved there just now and stays for a while: forward without asking.
    const home = await nodeHome(services, known.nodeId);
    if (home) return { holder: home };
  }
  const asked = new Set<string>();
  let unsure = false;
  // Reads one answer: the result, or undefined to go on looking (at `next`, if set).
  let next: string | undefined;
  const settle = (home: QueueHome, answer: MoveAnswer | null): Found | undefined => {
    next = undefined;
    if (answer === null) unsure = true;
    if (answer?.outcome === 'moved') {
      handover.whereabouts.delete(queueId);
      const queue = services.queues.get(queueId, userId);
      return queue ? { queue } : null;
    }
    if (answer?.outcome === 'here') {
      if (answer.hold_ms > HOLD_MARGIN_MS) handover.whereabouts.set(queueId, home.nodeId, answer.hold_ms - HOLD_MARGIN_MS);
      return { holder: home };
    }
    // (A process that says the queue went here, which it has not, knows no better than we do.)
    if (answer?.outcome === 'elsewhere' && answer.node !== cluster.nodeId) {
      handover.whereabouts.set(queueId, answer.node, answer.hold_ms - HOLD_MARGIN_MS);
      next = answer.node;
    }
    return undefined;
  };
  next = known?.nodeId ?? homeNodeOf(queueId);
  for (let hop = 0; next !== undefined && hop < MAX_HOPS; hop++) {
    const home = await nodeHome(services, next);
    if (!home || asked.has(home.token)) break;
    asked.add(home.token);
    const found = settle(home, await ask(home, req));
    if (found !== undefined) return found;
  }
  // A move whose answer got lost on the way may have brought the queue here all the same.
  const arrived = services.queues.get(queueId, userId);
  if (arrived) return { queue: arrived };
  if (known) handover.whereabouts.delete(queueId);
  // Nobody on the queue's trail has it: the process that registered it died, or forgot where it
  // went (it remembers as long as an idle queue lives). The queue may still be alive elsewhere.
  const peers = (await cluster.peers()).filter((p) => !asked.has(p.token)).slice(0, MAX_PEERS_ASKED);
  const answers = await Promise.all(peers.map((p) => ask(p, req)));
  for (let i = 0; i < peers.length; i++) {
    const answer = answers[i]!;
    if (answer === null) unsure = true;
    if (answer?.outcome !== 'moved' && answer?.outcome !== 'here') continue;
    const found = settle(peers[i]!, answer);
    if (found) return found;
  }
  return unsure ? null : 'gone';
}

/**
 * A GET /events (`move`) or DELETE /events for a queue this process does not hold: resolves with
 * the queue once it has moved here, or 'answered' when the request was forwarded to the process
 * that holds it and its answer relayed. Throws BAD_EVENT_QUEUE_ID when no process has it.
 */
export async function queueElsewhere(services: Services, queueId: string, userId: number, request: FastifyRequest, reply: FastifyReply, move: boolean): Promise<EventQueue | 'answered'> {
  if (request.headers[FORWARDED_HEADER] === undefined) {
    const found = await findQueue(services, queueId, userId, move);
    if (found === 'gone') throw new BadEventQueueId(queueId);
    if (found && 'queue' in found) return found.queue;
    if (await forwardToQueueHome(services, queueId, request, reply, found?.holder)) return 'answered';
  } else if (move && isForwardedByPeer(services, request) && (services.handover?.whereabouts.get(queueId)?.heldUntil ?? 0) > Date.now()) {
    // Relayed here by a peer just as the queue moved on: nothing for now, and the client's next
    // poll finds the queue where it went.
    answerEmpty(reply, queueId);
    return 'answered';
  }
  throw new BadEventQueueId(queueId);
}
