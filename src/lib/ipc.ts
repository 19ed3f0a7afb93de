// The channel between a worker of `confab serve` (CONFAB_WORKERS) and the cluster's primary process
// (cli/primary.ts): Node's IPC pipe that node:cluster opens with each worker. Bus events travel as
// strings (events/ipc_bus.ts); everything else as small objects tagged `confab: <kind>`, and a
// request carries an id its answer repeats.

/** What a worker talks to: `process` in a worker; a stand-in in tests. */
export interface IpcChannel {
  send(message: unknown): boolean;
  on(event: 'message', listener: (message: unknown) => void): unknown;
  on(event: 'disconnect', listener: () => void): unknown;
  off(event: 'message', listener: (message: unknown) => void): unknown;
  off(event: 'disconnect', listener: () => void): unknown;
  readonly connected: boolean;
}

/** The worker's own channel to the primary, or null outside a worker. */
export function primaryChannel(): IpcChannel | null {
  return typeof process.send === 'function' ? (process as unknown as IpcChannel) : null;
}

export interface IpcMessage {
  confab: string;
  /** A request's id, repeated by its answer; absent on a message nobody answers. */
  rid?: number;
  [field: string]: unknown;
}

export function isIpcMessage(m: unknown, kind: string): m is IpcMessage {
  return typeof m === 'object' && m !== null && (m as IpcMessage).confab === kind;
}

export class IpcClosed extends Error {
  constructor() {
    super('the channel to the primary process is closed');
  }
}

/** Requests of one kind from a worker to the primary, each resolved by the answer with its id. */
export class IpcRequests {
  private next = 1;
  private readonly pending = new Map<number, { resolve: (m: IpcMessage) => void; reject: (e: unknown) => void }>();
  private readonly onMessage = (m: unknown) => {
    if (!isIpcMessage(m, this.kind) || m.rid === undefined) return;
    const p = this.pending.get(m.rid);
    if (!p) return;
    this.pending.delete(m.rid);
    p.resolve(m);
  };
  private readonly onDisconnect = () => this.failAll();

  constructor(
    private readonly kind: string,
    private readonly channel: IpcChannel,
  ) {
    channel.on('message', this.onMessage);
    channel.on('disconnect', this.onDisconnect);
  }

  request(body: Record<string, unknown>): Promise<IpcMessage> {
    if (!this.channel.connected) return Promise.reject(new IpcClosed());
    const rid = this.next++;
    return new Promise((resolve, reject) => {
      this.pending.set(rid, { resolve, reject });
      try {
        this.channel.send({ ...body, confab: this.kind, rid });
      } catch (err) {
        this.pending.delete(rid);
        reject(err);
      }
    });
  }

  /** A message that expects no answer. */
  tell(body: Record<string, unknown>): void {
    if (this.channel.connected) this.channel.send({ ...body, confab: this.kind });
  }

  private failAll(): void {
    for (const p of this.pending.values()) p.reject(new IpcClosed());
    this.pending.clear();
  }

  close(): void {
    this.channel.off('message', this.onMessage);
    this.channel.off('disconnect', this.onDisconnect);
    this.failAll();
  }
}
