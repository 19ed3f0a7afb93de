// Handing a stopping process's event queues to another process of the cluster, so that a rolling
// restart costs clients nothing: not an event, not a re-registration. (Zulip's Tornado writes its
// queues to disk when it stops and reads them back when it starts; with several processes behind a
// round-robin balancer, Confab gives them to a process that is still running instead.)
//
// The order of events is the bus's: Redis delivers every published message to every subscriber
// in one global order. The stopping process publishes a marker naming the adopter; when the marker
// comes back to it, it has applied exactly the events before the marker, and snapshots its queues
// there. The adopter keeps the events it receives after the marker and, when the snapshot arrives,
// applies them to the adopted queues alone, in the same order: the queues continue with the same
// event ids as if they had never moved.
//
// The same steps move a single queue to the process where its polls arrive (http/queue_move.ts):
// the marker, a snapshot of that queue alone, the adopter's events after the marker.
import { randomBytes } from 'node:crypto';
import type { BusEvent, EventBus } from './bus.js';
import type { QueueManager, QueueSnapshot } from './queues.js';
import { Whereabouts } from './whereabouts.js';

export const HANDOVER_EVENT = '__handover';

/** How long an adopter keeps the events after a marker whose snapshot has not arrived. */
const KEEP_MS = 60_000;

interface AfterMarker {
  seen: boolean;
  events: BusEvent[];
  onSeen: Array<() => void>;
  expiry: NodeJS.Timeout | null;
}

export class QueueHandover {
  /** As the adopter: the events after each marker that names this process. */
  private readonly afterMarker = new Map<string, AfterMarker>();
  /** As the stopping process: what to do when its own marker comes back. */
  private readonly ownMarkers = new Map<string, () => void>();

  /** Where queues that moved away from here went (http/queue_move.ts), and where peers said others are. */
  readonly whereabouts: Whereabouts;

  constructor(
    private readonly bus: EventBus,
    private readonly queues: QueueManager,
    private readonly nodeId: string,
    /** How long this process remembers where a queue went: as long as an idle queue lives. */
    whereaboutsKeepMs = 10 * 60_000,
  ) {
    this.whereabouts = new Whereabouts(whereaboutsKeepMs);
    // Subscribed after the queue manager: when a marker arrives, every event before it has
    // already been applied to this process's queues.
    bus.subscribe((e) => this.receive(e));
  }

  private receive(e: BusEvent): void {
    if (e.event.type === HANDOVER_EVENT) {
      const marker = String(e.event.marker);
      const own = this.ownMarkers.get(marker);
      if (own) {
        this.ownMarkers.delete(marker);
        own();
      }
      if (e.event.to === this.nodeId) {
        const entry = this.entry(marker);
        entry.seen = true;
        for (const wake of entry.onSeen.splice(0)) wake();
      }
      return;
    }
    for (const entry of this.afterMarker.values()) if (entry.seen) entry.events.push(e);
  }

  private entry(marker: string): AfterMarker {
    let entry = this.afterMarker.get(marker);
    if (!entry) {
      entry = { seen: false, events: [], onSeen: [], expiry: null };
      // Dropped if the snapshot never comes (the stopping process died meanwhile).
      entry.expiry = setTimeout(() => this.afterMarker.delete(marker), KEEP_MS);
      entry.expiry.unref();
      this.afterMarker.set(marker, entry);
    }
    return entry;
  }

  /**
   * As the stopping process: publishes a marker for the adopter and resolves with this process's
   * queues (or the one named by `only`, for a single queue's move) as they stand at the marker, or
   * null if the marker did not come back in time.
   */
  snapshotAtMarker(adopterNodeId: string, timeoutMs: number, only?: string): Promise<{ marker: string; queues: QueueSnapshot[] } | null> {
    const marker = randomBytes(12).toString('hex');
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.ownMarkers.delete(marker);
        resolve(null);
      }, timeoutMs);
      this.ownMarkers.set(marker, () => {
        clearTimeout(timer);
        resolve({ marker, queues: this.queues.snapshot(only) });
      });
      this.bus.publish({ realmId: 0, userIds: [], event: { type: HANDOVER_EVENT, marker, to: adopterNodeId } });
    });
  }

  /**
   * As the adopter: takes the snapshotted queues (with `movedInAt` for a single queue's move) once
   * the marker has arrived here (waiting up to timeoutMs for it) and resolves with how many were
   * adopted, or null without the marker.
   */
  async adopt(marker: string, snapshots: QueueSnapshot[], timeoutMs: number, movedInAt = 0): Promise<number | null> {
    const entry = this.entry(marker);
    if (!entry.seen) {
      const seen = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), timeoutMs);
        entry.onSeen.push(() => {
          clearTimeout(timer);
          resolve(true);
        });
      });
      if (!seen) {
        this.drop(marker);
        return null;
      }
    }
    // From here to the end, one turn of the event loop: no bus event can fall between the events
    // kept since the marker and the ones that reach the adopted queues directly.
    const adopted = this.queues.adopt(snapshots, entry.events, movedInAt);
    this.drop(marker);
    return adopted;
  }

  private drop(marker: string): void {
    const entry = this.afterMarker.get(marker);
    if (entry?.expiry) clearTimeout(entry.expiry);
    this.afterMarker.delete(marker);
  }
}
