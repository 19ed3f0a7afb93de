// A graceful stop in a cluster hands the stopping process's event queues to a running one
// (events/handover.ts), so clients keep their queues through a rolling restart. This is the HTTP
// half: the stopping side posts its snapshot to an internal route of the adopter, which only a
// peer (a request carrying the adopter's announced token) can reach.
import type { FastifyInstance } from 'fastify';
import type { Services } from '../services.js';
import type { QueueSnapshot } from '../events/queues.js';
import { FORWARDED_HEADER, isForwardedByPeer } from './queue_forward.js';

export const ADOPT_PATH = '/internal/queue-handover';
/** Snapshots carry every queue's unread events; far above any realistic size, still bounded. */
const ADOPT_BODY_LIMIT = 256 * 1024 * 1024;
/** How long each side waits for the marker to come round the bus. */
const MARKER_TIMEOUT_MS = 5_000;
const ADOPT_TIMEOUT_MS = 30_000;

export interface AdoptRequest {
  marker: string;
  /** The ids the stopping process answered for: the adopter answers for them from now on. */
  nodes: string[];
  queues: QueueSnapshot[];
  /**
   * Where the stopping process's queues that had moved away went ([queue id, node id]): requests
   * for them that reach the adopter (through the stopping process's id) are sent on from there.
   */
  moved?: Array<[string, string]>;
  /** Set when one queue moves to the process where its poll arrived (http/queue_move.ts), not a stop. */
  move?: boolean;
}

const notFound = { result: 'error', msg: 'Not Found', code: 'NOT_FOUND' };

function isAdoptRequest(body: unknown): body is AdoptRequest {
  if (!body || typeof body !== 'object') return false;
  const b = body as Record<string, unknown>;
  return (
    typeof b.marker === 'string' &&
    Array.isArray(b.nodes) &&
    b.nodes.every((n) => typeof n === 'string') &&
    Array.isArray(b.queues) &&
    b.queues.every((q) => q && typeof q === 'object' && typeof q.id === 'string' && Array.isArray(q.events) && typeof q.nextEventId === 'number' && q.opts && typeof q.opts === 'object') &&
    (b.moved === undefined || (Array.isArray(b.moved) && b.moved.every((m) => Array.isArray(m) && m.length === 2 && typeof m[0] === 'string' && typeof m[1] === 'string'))) &&
    (b.move === undefined || typeof b.move === 'boolean')
  );
}

export function registerQueueHandover(app: FastifyInstance, services: Services): void {
  app.route({
    method: 'POST',
    url: ADOPT_PATH,
    bodyLimit: ADOPT_BODY_LIMIT,
    // Only a peer gets past this, and before the body is read; to anyone else the path does not exist.
    onRequest: async (request, reply) => {
      if (!services.handover || !isForwardedByPeer(services, request)) return reply.status(404).send(notFound);
    },
    handler: async (request, reply) => {
      const handover = services.handover!;
      // A process that is stopping itself hands its queues on instead of taking more.
      if (services.draining || !services.queues.acceptsQueues) return reply.status(503).send({ result: 'error', msg: 'Server is shutting down', code: 'SERVER_DRAINING' });
      if (!isAdoptRequest(request.body)) return reply.status(400).send({ result: 'error', msg: 'Invalid queue hand-over', code: 'BAD_REQUEST' });
      const { marker, nodes, queues, moved, move } = request.body;
      const adopted = await handover.adopt(marker, queues, MARKER_TIMEOUT_MS, move ? Date.now() : 0);
      if (adopted === null) return reply.status(409).send({ result: 'error', msg: 'The hand-over marker never arrived', code: 'BAD_REQUEST' });
      // This process began stopping while it waited for the marker: the sender keeps its queues.
      if (!services.queues.acceptsQueues) return reply.status(503).send({ result: 'error', msg: 'Server is shutting down', code: 'SERVER_DRAINING' });
      // The queues are here now, whatever this process had heard of them before.
      for (const q of queues) handover.whereabouts.delete(q.id);
      const here = services.cluster!.nodeId;
      for (const [queueId, nodeId] of moved ?? []) {
        if (nodeId !== here && !queues.some((q) => q.id === queueId)) handover.whereabouts.set(queueId, nodeId, 0);
      }
      await services.cluster!.addAliases(nodes);
      return reply.send({ result: 'success', msg: '', adopted });
    },
  });
}

/**
 * On a graceful stop: gives this process's queues to another running process. Resolves true when
 * one took them (our queue ids now lead there); false leaves them here, to be closed as before
 * (their clients are told BAD_EVENT_QUEUE_ID and register again).
 */
export async function handOverQueues(services: Services): Promise<boolean> {
  const { cluster, handover } = services;
  if (!cluster || !handover) return false;
  const peers = await cluster.peers();
  if (peers.length === 0) return false;
  // Nobody refreshes our entries now; the adopter overwrites them with its own.
  cluster.stopAnnouncing();
  services.queues.beginHandover();
  // A queue moving to another process right now goes there, not in the snapshot (no new move starts).
  await services.queues.movesSettled();
  // Spread the queues of successive restarts over the survivors.
  const ordered = [...peers].sort(() => Math.random() - 0.5);
  for (const peer of ordered) {
    const snapshot = await handover.snapshotAtMarker(peer.nodeId, MARKER_TIMEOUT_MS);
    if (!snapshot) return false;
    // Queues that had moved away from here are found through our ids too: the adopter learns where they went.
    const body: AdoptRequest = { marker: snapshot.marker, nodes: cluster.answersFor(), queues: snapshot.queues, moved: handover.whereabouts.list() };
    try {
      const res = await fetch(`${peer.url}${ADOPT_PATH}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [FORWARDED_HEADER]: peer.token },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(ADOPT_TIMEOUT_MS),
      });
      if (res.ok) {
        cluster.markHandedOver();
        console.log(`handed ${snapshot.queues.length} event queues over to ${peer.url}`);
        return true;
      }
      console.error(`queue hand-over to ${peer.url} refused: ${res.status} ${await res.text()}`);
    } catch (err) {
      console.error(`queue hand-over to ${peer.url} failed:`, err instanceof Error ? `${err.message}${err.cause ? ` (${String(err.cause)})` : ""}` : err);
    }
  }
  return false;
}
