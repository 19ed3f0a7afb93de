// Where each event queue lives among the workers of one `confab serve` (CONFAB_WORKERS), without
// Redis. The table (node id → the announcement of the worker that answers for it) lives in the
// cluster's primary process (DirectoryTable), which sends it whole to every worker whenever it
// changes (a few entries per worker), so finding a queue's home is a lookup in this worker's copy.
// A worker's entries go when it withdraws them or exits; the ones an adopter took stay.
import { IpcRequests, isIpcMessage, type IpcChannel } from '../lib/ipc.js';
import { homeNodeOf, PeerDirectory, type QueueDirectory, type QueueHome } from './directory.js';

const KIND = 'dir';

/** The table as sent to workers: [node id, token, answering node id, internal address]. */
type TableRow = [string, string, string, string];

export class IpcQueueDirectory extends PeerDirectory implements QueueDirectory {
  private table = new Map<string, QueueHome>();
  private readonly requests: IpcRequests;
  private readonly onMessage = (m: unknown) => {
    if (!isIpcMessage(m, KIND) || !Array.isArray(m.table)) return;
    const table = new Map<string, QueueHome>();
    for (const [node, token, nodeId, url] of m.table as TableRow[]) table.set(node, { token, nodeId, url });
    this.table = table;
  };

  constructor(
    nodeId: string,
    private readonly channel: IpcChannel,
  ) {
    super(nodeId);
    this.requests = new IpcRequests(KIND, channel);
    channel.on('message', this.onMessage);
  }

  async announce(internalUrl: string): Promise<void> {
    this.announced = internalUrl;
    await this.requests.request({ op: 'announce', node: this.nodeId, token: this.token, url: internalUrl });
  }

  async homeOf(queueId: string): Promise<QueueHome | undefined> {
    const node = homeNodeOf(queueId);
    if (!node || (node === this.nodeId && !this.handedOver)) return undefined;
    const home = this.table.get(node);
    // Our own address (a queue we adopted and have since collected): nobody else has it.
    return home && home.token !== this.token ? home : undefined;
  }

  async peers(): Promise<QueueHome[]> {
    const found = new Map<string, QueueHome>();
    for (const home of this.table.values()) if (home.token !== this.token) found.set(home.token, home);
    return [...found.values()];
  }

  async addAliases(nodeIds: string[]): Promise<void> {
    if (this.announced === null) return;
    const nodes = nodeIds.filter((n) => n !== this.nodeId);
    for (const n of nodes) this.aliases.add(n);
    // Answered once the primary has sent the new table to every worker.
    await this.requests.request({ op: 'alias', nodes });
  }

  stopAnnouncing(): void {
    // Nothing to refresh: the primary keeps our entries until we withdraw them or exit.
  }

  async withdraw(): Promise<void> {
    if (this.announced === null) return;
    this.announced = null;
    if (this.handedOver) return;
    await this.requests.request({ op: 'withdraw', nodes: this.answersFor() }).catch(() => undefined);
  }

  async close(): Promise<void> {
    await this.withdraw();
    this.channel.off('message', this.onMessage);
    this.requests.close();
  }
}

/** The primary's table; worker ids are node:cluster's. */
export class DirectoryTable {
  private readonly entries = new Map<string, { home: QueueHome; owner: number }>();
  /** Each worker's own announcement. */
  private readonly own = new Map<number, QueueHome>();

  /**
   * Applies a worker's directory message. Returns false if it was not one; else the answer to
   * send it and whether the table changed (to be sent to every worker before the answer).
   */
  handle(workerId: number, message: unknown): false | { answer: object; changed: boolean } {
    if (!isIpcMessage(message, KIND)) return false;
    let changed = false;
    const nodes = Array.isArray(message.nodes) ? message.nodes.filter((n): n is string => typeof n === 'string') : [];
    if (message.op === 'announce') {
      const home = { token: String(message.token), nodeId: String(message.node), url: String(message.url) };
      this.own.set(workerId, home);
      this.entries.set(home.nodeId, { home, owner: workerId });
      changed = true;
    } else if (message.op === 'alias') {
      const home = this.own.get(workerId);
      for (const node of home ? nodes : []) {
        this.entries.set(node, { home: home!, owner: workerId });
        changed = true;
      }
    } else if (message.op === 'withdraw') {
      for (const node of nodes) {
        if (this.entries.get(node)?.owner !== workerId) continue;
        this.entries.delete(node);
        changed = true;
      }
    }
    return { answer: { confab: KIND, rid: message.rid }, changed };
  }

  /** A worker exited: every id it still answered for is gone (its queues died with it). */
  dropWorker(workerId: number): boolean {
    this.own.delete(workerId);
    let changed = false;
    for (const [node, entry] of this.entries) {
      if (entry.owner !== workerId) continue;
      this.entries.delete(node);
      changed = true;
    }
    return changed;
  }

  /** The message that gives a worker the whole table. */
  message(): object {
    const table: TableRow[] = [...this.entries].map(([node, { home }]) => [node, home.token, home.nodeId, home.url]);
    return { confab: KIND, table };
  }
}
