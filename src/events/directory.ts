// Where each event queue lives when several processes serve one organization: the interface that
// the forwarding of long-polls (http/queue_forward.ts) and the hand-over of a stopping process's
// queues (http/queue_handover.ts) use. Two implementations: RedisQueueDirectory (events/cluster.ts),
// for processes on any machines joined by Redis, and IpcQueueDirectory (events/ipc_directory.ts),
// for the workers of one `confab serve` (CONFAB_WORKERS), whose table the cluster's primary keeps.

import { randomBytes } from 'node:crypto';
import { constantTimeEqual } from '../lib/secrets.js';

/** A queue id made by a clustered process: `<node id>-<local id>`. */
const NODE_PREFIX = /^([0-9a-f]{16})-/;

export function homeNodeOf(queueId: string): string | undefined {
  return NODE_PREFIX.exec(queueId)?.[1];
}

/** Where a queue's home process answers, and the token it accepts on requests forwarded to it. */
export interface QueueHome {
  url: string;
  token: string;
  /** The id of the process that answers (not always the queue's: it may have adopted the queue). */
  nodeId: string;
}

export interface QueueDirectory {
  /**
   * Announced with this process's address: a request forwarded here carries it, which tells this
   * process that a peer has already counted the request against the sender's rate limit. Clients
   * never see it, so a client cannot claim to be a peer.
   */
  readonly token: string;
  /** This process's id, the first part of every queue id it makes. */
  readonly nodeId: string;
  /** Long-polls this process is relaying to other homes, so a stopping process can answer them at once. */
  readonly relaying: Set<AbortController>;
  /** Set once this process stops relaying: a poll that still arrives for another home is answered empty. */
  relayingStopped: boolean;
  /** Publishes this process's internal address and keeps it current until withdraw(). */
  announce(internalUrl: string): Promise<void>;
  /** A queue's home process, or undefined when it is gone, unknown or this process. */
  homeOf(queueId: string): Promise<QueueHome | undefined>;
  /** The other live processes (each once, however many ids it answers for). */
  peers(): Promise<QueueHome[]>;
  /** This process's id and those it answers for, which an adopter of its queues must answer for. */
  answersFor(): string[];
  /** After adopting another process's queues: its ids now lead here. */
  addAliases(nodeIds: string[]): Promise<void>;
  /** Stops refreshing our entries: an adopter is about to take them over. */
  stopAnnouncing(): void;
  /** Our queues went to another process: its entries for our ids stay when we withdraw. */
  markHandedOver(): void;
  /** Whether a request's forwarding header is this process's own token (compared in constant time). */
  isPeerToken(value: string | undefined): boolean;
  /** Stops announcing: new requests for this process's queues are told the queue is gone. */
  withdraw(): Promise<void>;
  close(): Promise<void>;
}

/**
 * What both directories keep the same way: this process's peer token, the polls it relays, the
 * ids it answers for, and whether its queues went elsewhere. Subclasses say where the table lives.
 */
export abstract class PeerDirectory {
  readonly token = randomBytes(24).toString('hex');
  readonly relaying = new Set<AbortController>();
  relayingStopped = false;
  /** Other processes' ids whose queues this process adopted: announced with our address too. */
  protected readonly aliases = new Set<string>();
  /** Set once this process's queues (and its aliases') went to another process, which now answers for them. */
  protected handedOver = false;
  /** The internal address this process announced, until it withdraws it. */
  protected announced: string | null = null;

  constructor(readonly nodeId: string) {}

  answersFor(): string[] {
    return [this.nodeId, ...this.aliases];
  }

  markHandedOver(): void {
    this.handedOver = true;
  }

  isPeerToken(value: string | undefined): boolean {
    if (!value) return false;
    return constantTimeEqual(value, this.token);
  }
}
