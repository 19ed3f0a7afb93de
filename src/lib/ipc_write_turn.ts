// The write turn of the workers of one `confab serve` (CONFAB_WORKERS) on one SQLite file: the
// primary process hands it to one worker at a time, and only the holder begins a write transaction.
// Without it each worker's group commit (store/db.ts) tried BEGIN IMMEDIATE and, finding the lock
// taken, tried again on a timer: the lock sat idle between a commit and the other worker's next
// try, the worker that had just committed often took it again at once, and each batch was small.
// With it the waiting worker's batch keeps growing until the grant and begins the moment it
// arrives; turns alternate in the order asked. SQLite's lock stays the real guard (a BEGIN
// IMMEDIATE that finds it taken, by the command line say, still waits as before); the turn only
// orders the workers. PostgreSQL has row locks and many connections: its workers take no turn.
//
// Worker → primary: `{confab: 'turn', op: 'ask'}`, and after COMMIT (or a failed batch)
// `{op: 'release'}`; primary → worker: `{op: 'grant'}`. Turns go in the order asked. A worker that dies holding the turn or waiting for it is
// dropped when the primary sees it exit (dropWorker), and the turn goes to the next one.
import { isIpcMessage, type IpcChannel } from './ipc.js';

const KIND = 'turn';

/** What the group commit waits for before it begins a write transaction. */
export interface WriteTurn {
  /** Resolves once this process may begin. */
  acquire(): Promise<void>;
  /** After the transaction ended (committed or not). */
  release(): void;
}

/** The worker's side. If the primary is gone the worker is stopping: it writes on the lock alone. */
export class IpcWriteTurn implements WriteTurn {
  private granted: (() => void) | null = null;
  private readonly onMessage = (m: unknown) => {
    if (!isIpcMessage(m, KIND) || m.op !== 'grant') return;
    this.wake();
  };
  private readonly onDisconnect = () => this.wake();

  constructor(private readonly channel: IpcChannel) {
    channel.on('message', this.onMessage);
    channel.on('disconnect', this.onDisconnect);
  }

  acquire(): Promise<void> {
    if (!this.channel.connected) return Promise.resolve();
    return new Promise<void>((resolve) => {
      this.granted = resolve;
      try {
        this.channel.send({ confab: KIND, op: 'ask' });
      } catch {
        this.wake();
      }
    });
  }

  release(): void {
    if (this.channel.connected) this.channel.send({ confab: KIND, op: 'release' });
  }

  private wake(): void {
    const granted = this.granted;
    this.granted = null;
    granted?.();
  }

  close(): void {
    this.channel.off('message', this.onMessage);
    this.channel.off('disconnect', this.onDisconnect);
    this.wake();
  }
}

/** The primary's side: who holds the turn and who waits for it, in the order they asked. */
export class WriteTurnTable {
  private holder: number | null = null;
  private readonly waiting: number[] = [];

  /** @param grant sends the grant to a worker (by its cluster id). */
  constructor(private readonly grant: (workerId: number) => void) {}

  /** Handles a worker's turn message; false if it was not one. */
  handle(workerId: number, message: unknown): boolean {
    if (!isIpcMessage(message, KIND)) return false;
    if (message.op === 'release') {
      if (this.holder === workerId) this.passOn();
    } else if (message.op === 'ask') {
      this.ask(workerId);
    }
    return true;
  }

  /** A worker exited: it holds and waits for nothing any more. True if it held the turn. */
  dropWorker(workerId: number): boolean {
    const i = this.waiting.indexOf(workerId);
    if (i >= 0) this.waiting.splice(i, 1);
    if (this.holder !== workerId) return false;
    this.passOn();
    return true;
  }

  /** For tests: the holder and the waiting workers, in order. */
  state(): { holder: number | null; waiting: number[] } {
    return { holder: this.holder, waiting: [...this.waiting] };
  }

  private ask(workerId: number): void {
    if (this.holder === workerId) {
      // Asked again while holding (it cannot have seen its grant yet if it asks twice): grant again.
      this.grant(workerId);
    } else if (this.holder === null) {
      this.holder = workerId;
      this.grant(workerId);
    } else if (!this.waiting.includes(workerId)) {
      this.waiting.push(workerId);
    }
  }

  private passOn(): void {
    this.holder = this.waiting.shift() ?? null;
    if (this.holder !== null) this.grant(this.holder);
  }
}
