// Where queues that left this process went, and where other processes said a queue is: a queue
// that moved (http/queue_move.ts) keeps its id, whose prefix names the process that registered it,
// so that process (and any other that learned it) remembers the process it went to. In memory,
// each entry kept as long as an idle queue is, counted from its last use.

export interface Whereabout {
  /** The process that holds (or last held) the queue: its own node id, which the directory resolves. */
  nodeId: string;
  /** Until when that process keeps the queue whatever happens (it moved there just now): polls are forwarded there meanwhile. */
  heldUntil: number;
}

interface Entry extends Whereabout {
  expires: number;
}

export class Whereabouts {
  private readonly entries = new Map<string, Entry>();
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly keepMs: number) {
    this.timer = setInterval(() => this.sweep(), Math.min(60_000, Math.max(1_000, keepMs / 2)));
    this.timer.unref();
  }

  get(queueId: string): Whereabout | undefined {
    const e = this.entries.get(queueId);
    if (!e) return undefined;
    const now = Date.now();
    if (e.expires < now) {
      this.entries.delete(queueId);
      return undefined;
    }
    e.expires = now + this.keepMs;
    return { nodeId: e.nodeId, heldUntil: e.heldUntil };
  }

  set(queueId: string, nodeId: string, heldForMs: number): void {
    const now = Date.now();
    this.entries.set(queueId, { nodeId, heldUntil: now + Math.max(0, heldForMs), expires: now + this.keepMs });
  }

  delete(queueId: string): void {
    this.entries.delete(queueId);
  }

  /** Every entry, for a process that takes over this one's queues (a graceful stop). */
  list(): Array<[string, string]> {
    return [...this.entries].map(([q, e]) => [q, e.nodeId]);
  }

  private sweep(): void {
    const now = Date.now();
    for (const [q, e] of this.entries) if (e.expires < now) this.entries.delete(q);
  }

  close(): void {
    clearInterval(this.timer);
  }
}
