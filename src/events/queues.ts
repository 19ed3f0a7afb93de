// Event queues, as Zulip's Tornado keeps them: in memory, per process, one per registered client.
// Events arrive from the bus; GET /events long-polls a queue; idle queues are collected.
import { randomBytes } from 'node:crypto';
import type { BusEvent, EventBus } from './bus.js';
import { isControlEvent, type ConfabEvent, type HeartbeatEvent } from './types.js';
import { queueNarrowFilter, type QueueNarrowTerm } from './narrow_filter.js';

export interface QueueOptions {
  userId: number;
  realmId: number;
  /** null: every event type. */
  eventTypes: string[] | null;
  allPublicStreams: boolean;
  clientName: string;
  applyMarkdown: boolean;
  clientGravatar: boolean;
  /** The client_capabilities flag empty_topic_name: false shows the empty topic by its display name. */
  emptyTopicName?: boolean;
  /**
   * The user_settings_object capability: the client reads settings from user_settings events, so
   * the legacy update_display_settings / update_global_notifications events are not for it.
   */
  userSettingsObject?: boolean;
  /** The stream_typing_notifications capability: without it, typing in channels is not sent. */
  streamTypingNotifications?: boolean;
  /** The bulk_message_deletion capability: without it, one delete_message event per message, with message_id. */
  bulkMessageDeletion?: boolean;
  /**
   * The include_deactivated_groups capability: without it, a group's deactivation is a `remove`
   * event and changes to deactivated groups are not sent.
   */
  includeDeactivatedGroups?: boolean;
  /** The archived_channels capability: archiving a channel is not a stream/delete for it (nor unarchiving a create). */
  archivedChannels?: boolean;
  /** The linkifier_url_template capability: without it, no realm_linkifiers events. */
  linkifierUrlTemplate?: boolean;
  /** The register request's narrow: only matching message events are queued. */
  narrow?: QueueNarrowTerm[];
}

/** A queue as one process hands it to another (a graceful stop in a cluster): plain JSON. */
export interface QueueSnapshot {
  id: string;
  opts: QueueOptions;
  events: QueuedEvent[];
  nextEventId: number;
}

/**
 * A queued event is kept as JSON text: an event going to many queues is serialized once, and
 * GET /events writes the stored text as it is.
 */
export interface QueuedEvent {
  id: number;
  json: string;
}

/** An object's fields as JSON text to splice into another object: `"a":1,` ('' when none). */
function fieldsJson(extra: Record<string, unknown> | undefined): string {
  return extra && Object.keys(extra).length ? JSON.stringify(extra).slice(1, -1) + ',' : '';
}

/** Appends fields (given by fieldsJson) and the queue's event id to a serialized object, without re-serializing it. */
function withFields(baseJson: string, extraJson: string, id: number): string {
  return `${baseJson.slice(0, -1)},${extraJson}"id":${id}}`;
}

interface Waiter {
  resolve: (events: QueuedEvent[]) => void;
  timer: NodeJS.Timeout;
}

export class EventQueue {
  readonly id: string;
  readonly opts: QueueOptions;
  events: QueuedEvent[] = [];
  /** The id the next event gets; register reports nextEventId - 1 as last_event_id. */
  nextEventId = 0;
  lastActivity = Date.now();
  waiter: Waiter | null = null;
  /**
   * Set while this queue alone is moving to another process (beginMove): it gets no heartbeat,
   * the one event the other process would not give it, so both copies keep the same event ids.
   */
  moving = false;
  /** When this queue arrived here from another process at a poll's request (0: registered or handed over here). */
  movedInAt = 0;
  /** Built from opts.narrow: false skips an event. */
  readonly filter: ((event: Record<string, unknown>, flags: readonly string[]) => boolean) | undefined;

  constructor(opts: QueueOptions, id: string) {
    this.id = id;
    this.opts = opts;
    this.filter = opts.narrow?.length ? queueNarrowFilter(opts.narrow) : undefined;
  }

  wants(type: string): boolean {
    return this.opts.eventTypes === null || this.opts.eventTypes.includes(type);
  }

  push(event: ConfabEvent | HeartbeatEvent): void {
    this.pushJson(JSON.stringify(event), undefined);
  }

  /** Queues an event given as JSON text of an object, plus fields of this queue's own. */
  pushJson(baseJson: string, extra: Record<string, unknown> | undefined): void {
    this.pushFieldsJson(baseJson, fieldsJson(extra));
  }

  /** pushJson with the extra fields already serialized by fieldsJson. */
  pushFieldsJson(baseJson: string, extraJson: string): void {
    const id = this.nextEventId++;
    this.events.push({ id, json: withFields(baseJson, extraJson, id) });
    this.wake();
  }

  /** Drops every event up to and including lastEventId (the client has them). */
  acknowledge(lastEventId: number): void {
    if (this.events.length && this.events[0]!.id <= lastEventId) {
      let i = 0;
      while (i < this.events.length && this.events[i]!.id <= lastEventId) i++;
      this.events.splice(0, i);
    }
  }

  private wake(): void {
    const w = this.waiter;
    if (!w) return;
    this.waiter = null;
    clearTimeout(w.timer);
    // Let events published in the same tick join this response.
    setImmediate(() => w.resolve(this.events.slice()));
  }

  /** Answers a parked long-poll with nothing: a newer poll on the same queue replaces it. */
  releaseWaiter(): void {
    const w = this.waiter;
    if (!w) return;
    this.waiter = null;
    clearTimeout(w.timer);
    w.resolve([]);
  }
}

/** A message event as this queue asked for it: raw Markdown, gravatar URLs left out, empty topic name. */
function messageForQueue(event: Record<string, unknown>, o: QueueOptions, rawContent: string | undefined): Record<string, unknown> {
  const message = event.message as Record<string, unknown> | undefined;
  if (!message) return event;
  const changes: Record<string, unknown> = {};
  if (!o.applyMarkdown && rawContent !== undefined) {
    changes.content = rawContent;
    changes.content_type = 'text/x-markdown';
  }
  if (o.clientGravatar) changes.avatar_url = null;
  if (o.emptyTopicName === false && message.type === 'stream' && message.subject === '') changes.subject = 'general chat';
  return Object.keys(changes).length ? { ...event, message: { ...message, ...changes } } : event;
}

/** The fields that name a topic in events other than `message`. */
const TOPIC_FIELDS: Record<string, readonly string[]> = {
  update_message: ['subject', 'orig_subject', 'topic'],
  delete_message: ['topic'],
  typing: ['topic'],
  user_topic: ['topic_name'],
};

/** For clients without empty_topic_name: the empty topic by its display name (Zulip's rule since level 334). */
function withTopicDisplayNames(event: Record<string, unknown>, type: string): Record<string, unknown> {
  const fields = TOPIC_FIELDS[type];
  if (!fields?.some((f) => event[f] === '')) return event;
  const out = { ...event };
  for (const f of fields) if (out[f] === '') out[f] = 'general chat';
  return out;
}

export class QueueManager {
  private queues = new Map<string, EventQueue>();
  private byUser = new Map<number, Set<EventQueue>>();
  private byRealmPublic = new Map<number, Set<EventQueue>>();
  private gcTimer: NodeJS.Timeout;
  /** Set by close(): no poll parks any more (a stopping process must not wait a heartbeat for one). */
  private closed = false;
  /**
   * Set while this process hands its queues to another (beginHandover): from the snapshot on, the
   * adopting process applies the same events in the same order and so gives them the same ids; a
   * heartbeat is the one event only this process would add, so none is queued any more.
   */
  private handingOver = false;
  /** Queues moving to another process one by one (beginMove to endMove), and who waits for none to be. */
  private moves = 0;
  private readonly onMovesSettled: Array<() => void> = [];

  constructor(
    bus: EventBus,
    private readonly heartbeatMs = 50_000,
    private readonly idleTimeoutMs = 10 * 60_000,
    /** Starts every queue id: the process's id when several processes share the work (events/cluster.ts). */
    private readonly idPrefix = '',
  ) {
    bus.subscribe((e) => this.deliver(e));
    // A queue that may have missed an event is dropped: its client's next poll gets
    // BAD_EVENT_QUEUE_ID and registers again, as Zulip's clients do for a lost queue.
    bus.onLoss?.(() => this.dropAll());
    this.gcTimer = setInterval(() => this.collectIdle(), Math.min(60_000, this.idleTimeoutMs / 2));
    this.gcTimer.unref();
  }

  /** False once the process is handing its queues over or has closed them: a new queue would be lost. */
  get acceptsQueues(): boolean {
    return !this.closed && !this.handingOver;
  }

  register(opts: QueueOptions): EventQueue {
    return this.add(new EventQueue(opts, `${this.idPrefix}${Date.now().toString(36)}:${randomBytes(12).toString('hex')}`));
  }

  private add(q: EventQueue): EventQueue {
    const opts = q.opts;
    this.queues.set(q.id, q);
    let set = this.byUser.get(opts.userId);
    if (!set) this.byUser.set(opts.userId, (set = new Set()));
    set.add(q);
    if (opts.allPublicStreams) {
      let pub = this.byRealmPublic.get(opts.realmId);
      if (!pub) this.byRealmPublic.set(opts.realmId, (pub = new Set()));
      pub.add(q);
    }
    return q;
  }

  /** The queue, if it exists and belongs to this user. */
  get(queueId: string, userId: number): EventQueue | undefined {
    const q = this.queues.get(queueId);
    return q && q.opts.userId === userId ? q : undefined;
  }

  delete(queue: EventQueue): void {
    queue.releaseWaiter();
    this.queues.delete(queue.id);
    this.byUser.get(queue.opts.userId)?.delete(queue);
    this.byRealmPublic.get(queue.opts.realmId)?.delete(queue);
  }

  /** Queues of a user, e.g. to tell whether they have a client online. */
  queuesOf(userId: number): EventQueue[] {
    return [...(this.byUser.get(userId) ?? [])];
  }

  /**
   * Waits for events after lastEventId. Resolves at once with pending events, with [] when
   * dontBlock is set, or with a heartbeat after the idle interval.
   */
  poll(queue: EventQueue, lastEventId: number | null, dontBlock: boolean): Promise<QueuedEvent[]> {
    queue.lastActivity = Date.now();
    if (lastEventId !== null) queue.acknowledge(lastEventId);
    if (queue.events.length || dontBlock || this.closed) return Promise.resolve(queue.events.slice());
    queue.releaseWaiter();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        if (this.handingOver || queue.moving) return; // answered (with nothing) when the hand-over or move ends
        queue.waiter = null;
        queue.push({ type: 'heartbeat' });
        resolve(queue.events.slice());
      }, this.heartbeatMs);
      queue.waiter = {
        resolve: (events) => {
          queue.lastActivity = Date.now();
          resolve(events);
        },
        timer,
      };
    });
  }

  /** The client went away while its poll was parked. */
  abandon(queue: EventQueue): void {
    queue.releaseWaiter();
    queue.lastActivity = Date.now();
  }

  /** Queues the event for the queues it is for (among `only`, when given). */
  private deliver(e: BusEvent, only?: ReadonlySet<EventQueue>): void {
    const event = e.event;
    if (isControlEvent(event)) return;
    const type = event.type;
    const targets = new Set<EventQueue>();
    for (const userId of e.userIds) for (const q of this.byUser.get(userId) ?? []) if (!only || only.has(q)) targets.add(q);
    if (e.publicStreamId !== undefined) for (const q of this.byRealmPublic.get(e.realmId) ?? []) if (!only || only.has(q)) targets.add(q);
    // The event's JSON for each variant queues ask for (Markdown or source, gravatar URLs or not),
    // made once however many queues receive it.
    const variants = new Map<number, string>();
    const topicFields = TOPIC_FIELDS[type] !== undefined;
    const recipients = new Set(e.userIds);
    // Per-user fields shared by many recipients (a message's flags) are serialized once per object.
    const extraJson = new Map<Record<string, unknown>, string>();
    for (const q of targets) {
      if (q.opts.realmId !== e.realmId || !q.wants(type)) continue;
      if (q.opts.userSettingsObject && (type === 'update_display_settings' || type === 'update_global_notifications')) continue;
      // Clients that asked for user_topic by name get no legacy muted_topics events (Zulip 6.0+).
      if (type === 'muted_topics' && q.opts.eventTypes?.includes('user_topic')) continue;
      if (type === 'realm_linkifiers' && q.opts.linkifierUrlTemplate === false) continue;
      if (e.channelArchiving && q.opts.archivedChannels) continue;
      if (event.type === 'user_group' && q.opts.includeDeactivatedGroups === false) {
        if (event.op === 'update') {
          const data = event.data as { deactivated?: boolean };
          if (data.deactivated === true && !e.deactivatedGroup) q.push({ type: 'user_group', op: 'remove', group_id: event.group_id });
          if (data.deactivated === true || (e.deactivatedGroup && data.deactivated !== false)) continue;
        } else if (e.deactivatedGroup) continue; // members or subgroups of a group such a client no longer has
      }
      if (event.type === 'typing' && q.opts.streamTypingNotifications === false && event.message_type === 'stream') continue;
      const own = e.perUser?.[q.opts.userId];
      const perQueue = e.perQueue?.[q.id];
      let extra: Record<string, unknown> | undefined = own && !perQueue ? own : { ...own, ...perQueue };
      if (type === 'message' && !recipients.has(q.opts.userId) && !('flags' in extra)) extra = { ...extra, flags: ['read', 'historical'] };
      if (q.filter && !q.filter(event, Array.isArray(extra.flags) ? (extra.flags as string[]) : [])) continue;
      if (event.type === 'delete_message' && q.opts.bulkMessageDeletion === false) {
        // Zulip's form for clients without bulk_message_deletion: one event per message.
        // The empty topic is named as in the bulk form for clients without empty_topic_name.
        const { message_ids: ids, ...rest } = q.opts.emptyTopicName === false ? (withTopicDisplayNames(event, type) as typeof event) : event;
        for (const id of ids) q.pushFieldsJson(JSON.stringify({ ...rest, message_id: id }), fieldsJson(extra));
        continue;
      }
      // The variant as bits (a number: no string made per queue): what each kind of event depends on.
      const key =
        type === 'message'
          ? (q.opts.applyMarkdown ? 1 : 0) | (q.opts.clientGravatar ? 2 : 0) | (q.opts.emptyTopicName !== false ? 4 : 0)
          : topicFields && q.opts.emptyTopicName !== false
            ? 4
            : 0;
      let json = variants.get(key);
      if (json === undefined) {
        json = JSON.stringify(type === 'message' ? messageForQueue(event, q.opts, e.rawContent) : q.opts.emptyTopicName === false ? withTopicDisplayNames(event, type) : event);
        variants.set(key, json);
      }
      if (extra === own && own) {
        let text = extraJson.get(own);
        if (text === undefined) extraJson.set(own, (text = fieldsJson(own)));
        q.pushFieldsJson(json, text);
      } else {
        q.pushFieldsJson(json, fieldsJson(extra));
      }
    }
  }

  /**
   * Starts handing this process's queues to another: parked polls stay parked without their
   * heartbeat (they are answered with nothing when close() ends the hand-over), new polls park the
   * same way. Events keep arriving until snapshot().
   */
  beginHandover(): void {
    this.handingOver = true;
    for (const q of this.queues.values()) if (q.waiter) clearTimeout(q.waiter.timer);
  }

  /** Every queue (or the one named) as plain JSON, for adopt() in another process. */
  snapshot(only?: string): QueueSnapshot[] {
    const chosen = only === undefined ? [...this.queues.values()] : [this.queues.get(only)].filter((q) => q !== undefined);
    // Copies: events keep arriving (and being acknowledged) here until the process stops.
    return chosen.map((q) => ({ id: q.id, opts: q.opts, events: q.events.slice(), nextEventId: q.nextEventId }));
  }

  /**
   * Starts moving one queue to another process (http/queue_move.ts): like beginHandover for that
   * queue alone. Its events keep arriving, and polls keep being answered from it, until endMove.
   */
  beginMove(queue: EventQueue): void {
    queue.moving = true;
    this.moves++;
    if (queue.waiter) clearTimeout(queue.waiter.timer);
  }

  /**
   * Resolves once no queue is moving. A process that hands all its queues over waits for this
   * after beginHandover (which lets no new move start): a queue snapshotted while it moves would
   * live on in two processes, whose heartbeats would give different events the same id.
   */
  movesSettled(): Promise<void> {
    return this.moves === 0 ? Promise.resolve() : new Promise((resolve) => this.onMovesSettled.push(resolve));
  }

  /**
   * Ends a move: a moved queue is dropped here (a poll parked on it is answered with nothing, and
   * the client's next poll finds it at its new process); one that stays answers its parked poll
   * with nothing too, since that poll has lost its heartbeat timer.
   */
  endMove(queue: EventQueue, moved: boolean): void {
    queue.moving = false;
    if (--this.moves === 0) for (const resolve of this.onMovesSettled.splice(0)) resolve();
    if (moved) this.delete(queue);
    else queue.releaseWaiter();
  }

  /**
   * Takes over queues another process snapshotted, then applies the bus events that came after
   * its snapshot (`since`, in bus order) to them alone; events after that reach them like any
   * queue's. `movedInAt` is set for a queue that moved here at a poll's request. Runs in one turn of the event loop, so no event falls between the two.
   */
  adopt(snapshots: QueueSnapshot[], since: BusEvent[], movedInAt = 0): number {
    // A process handing its own queues over has taken its snapshot or is about to: a queue adopted
    // now could miss it and be lost.
    if (!this.acceptsQueues) return 0;
    const adopted = new Set<EventQueue>();
    for (const s of snapshots) {
      if (this.queues.has(s.id)) continue;
      const q = new EventQueue(s.opts, s.id);
      q.events = s.events;
      q.nextEventId = s.nextEventId;
      q.movedInAt = movedInAt;
      adopted.add(this.add(q));
    }
    for (const e of since) this.deliver(e, adopted);
    return adopted.size;
  }

  /** Drops every queue of this process (their events can no longer be trusted complete). */
  dropAll(): void {
    for (const q of [...this.queues.values()]) this.delete(q);
  }

  private collectIdle(): void {
    const cutoff = Date.now() - this.idleTimeoutMs;
    for (const q of this.queues.values()) if (!q.waiter && q.lastActivity < cutoff) this.delete(q);
  }

  close(): void {
    this.closed = true;
    clearInterval(this.gcTimer);
    for (const q of this.queues.values()) q.releaseWaiter();
    this.queues.clear();
    this.byUser.clear();
    this.byRealmPublic.clear();
  }
}
