// Simulated people: each holds a live event queue (register, then long-poll forever), and a driver
// makes them send, read, type, edit, react and report presence at a steady rate. Every request's
// latency and every error is recorded; every message event is remembered per queue, so the run can
// prove afterwards that nothing was lost or delivered twice.
import { Agent, request } from 'node:http';
import type { LoadUser } from './seed.js';
import { sleep } from './cluster.js';

// Idle kept-alive sockets are dropped after 20 s, well before HAProxy closes them (its client
// timeout, 75 s), so a request never goes out on a socket the balancer is closing.
const agent = new Agent({ keepAlive: true, maxSockets: Infinity, timeout: 20_000 });

export interface Answer {
  status: number;
  body: any;
}

/** What a request came to when it is not a success: `HTTP 502`, `ECONNRESET`, `BAD_EVENT_QUEUE_ID`… */
function describe(a: Answer): string {
  const code = a.body && typeof a.body === 'object' && typeof a.body.code === 'string' ? a.body.code : '';
  return code && code !== 'BAD_REQUEST' ? code : `HTTP ${a.status}${a.body?.msg ? ` ${String(a.body.msg).slice(0, 60)}` : ''}`;
}

export class Stats {
  phase = 'steady';
  readonly latencies = new Map<string, number[]>();
  /** phase → "op: what" → count */
  readonly errors = new Map<string, Map<string, number>>();
  readonly reRegistered = new Map<string, number>();

  latency(op: string, ms: number): void {
    let l = this.latencies.get(op);
    if (!l) this.latencies.set(op, (l = []));
    l.push(ms);
  }

  error(op: string, what: string): void {
    let m = this.errors.get(this.phase);
    if (!m) this.errors.set(this.phase, (m = new Map()));
    const key = `${op}: ${what}`;
    m.set(key, (m.get(key) ?? 0) + 1);
  }

  errorCount(op?: string): number {
    let n = 0;
    for (const m of this.errors.values()) for (const [k, v] of m) if (!op || k.startsWith(`${op}:`)) n += v;
    return n;
  }
}

export interface SentMessage {
  token: string;
  channelId: number;
  startedAt: number;
  /** Set when the server answered with success. */
  id?: number;
  failed?: string;
}

/** What every client shares: the address, the statistics and the record of sent messages. */
export class World {
  readonly sent = new Map<string, SentMessage>();
  /** Recent message ids per channel, for reactions. */
  readonly recent = new Map<number, number[]>();
  private seq = 0;
  stopping = false;

  constructor(
    public baseUrl: string,
    readonly stats: Stats,
    readonly tag: string,
  ) {}

  nextToken(): string {
    return `${this.tag}-${++this.seq}`;
  }

  call(user: LoadUser, method: string, path: string, params: Record<string, string> = {}, timeoutMs = 30_000): Promise<Answer> {
    const body = method === 'GET' ? undefined : new URLSearchParams(params).toString();
    const qs = method === 'GET' && Object.keys(params).length ? `?${new URLSearchParams(params)}` : '';
    const auth = 'Basic ' + Buffer.from(`${user.email}:${user.apiKey}`).toString('base64');
    return new Promise((resolve, reject) => {
      const req = request(
        `${this.baseUrl}/api/v1${path}${qs}`,
        {
          method,
          agent,
          timeout: timeoutMs,
          headers: { Authorization: auth, ...(body !== undefined ? { 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Length': Buffer.byteLength(body) } : {}) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', reject);
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString();
            let parsed: unknown = text;
            try {
              parsed = JSON.parse(text);
            } catch {
              // An HTML error page from the balancer: kept as text.
            }
            resolve({ status: res.statusCode ?? 0, body: parsed });
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.on('error', reject);
      if (body !== undefined) req.write(body);
      req.end();
    });
  }

  /** One timed request: its latency is recorded under op, a failure counted as an error. */
  async timed(op: string, user: LoadUser, method: string, path: string, params: Record<string, string> = {}): Promise<Answer | null> {
    const started = performance.now();
    try {
      const a = await this.call(user, method, path, params);
      if (a.status === 200) {
        this.stats.latency(op, performance.now() - started);
        return a;
      }
      this.stats.error(op, describe(a));
      return a;
    } catch (err) {
      this.stats.error(op, (err as NodeJS.ErrnoException).code ?? (err as Error).message);
      return null;
    }
  }

  static destroyConnections(): void {
    agent.destroy();
  }
}

/**
 * The pause before retrying after the n-th failure in a row: doubling from 250 ms to 8 s, with
 * jitter, as Zulip's clients do, so a crowd that lost its process does not all come back at once.
 */
export function backoff(failures: number): number {
  const ceiling = Math.min(8000, 250 * 2 ** Math.min(failures, 5));
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

const TOKEN = /\b(L[0-9a-z]+-\d+)\b/;
const EMOJI = ['thumbs_up', 'heart', 'tada', 'smile', 'eyes', 'rocket', 'check', 'octopus'];

export class LoadClient {
  queueId = '';
  lastEventId = -1;
  /** max_message_id when the current queue was registered: it gets every message after that. */
  queueMax = -1;
  /** max_message_id at the first registration: from there on, every message must reach this person. */
  firstMax = -1;
  readonly seen = new Set<number>();
  private queueSeen = new Set<number>();
  duplicates = 0;
  outOfOrder = 0;
  reRegistrations = 0;
  private lastInQueue = 0;
  readonly own: { id: number; token: string }[] = [];
  private reacted = new Set<string>();
  private presenceUpdateId = -1;
  private polling: Promise<void> | null = null;

  constructor(
    readonly user: LoadUser,
    private readonly world: World,
  ) {}

  private async registerOnce(): Promise<boolean> {
    const a = await this.world.timed('register', this.user, 'POST', '/register', {
      event_types: JSON.stringify(['message', 'update_message', 'reaction', 'typing']),
      fetch_event_types: JSON.stringify(['message']),
    });
    if (!a || a.status !== 200) return false;
    this.queueId = a.body.queue_id;
    this.lastEventId = a.body.last_event_id;
    this.queueMax = a.body.max_message_id;
    this.queueSeen = new Set();
    this.lastInQueue = 0;
    return true;
  }

  /** Registers, retrying (with a pause) until it works. */
  async register(): Promise<void> {
    for (let failures = 0; !(await this.registerOnce()); failures++) {
      if (this.world.stopping) return;
      await sleep(backoff(failures));
    }
  }

  async start(): Promise<void> {
    await this.register();
    this.firstMax = this.queueMax;
    this.polling = this.pollLoop();
  }

  async stopped(): Promise<void> {
    await this.polling;
  }

  private async pollLoop(): Promise<void> {
    let failures = 0;
    while (!this.world.stopping) {
      let a: Answer;
      try {
        a = await this.world.call(this.user, 'GET', '/events', { queue_id: this.queueId, last_event_id: String(this.lastEventId) }, 90_000);
      } catch (err) {
        if (this.world.stopping) return;
        this.world.stats.error('poll', (err as NodeJS.ErrnoException).code ?? (err as Error).message);
        await sleep(backoff(failures++));
        continue;
      }
      if (a.status === 200) {
        failures = 0;
        for (const e of a.body.events as any[]) {
          this.lastEventId = Math.max(this.lastEventId, e.id);
          if (e.type === 'message') this.receive(e.message);
        }
        continue;
      }
      if (a.status === 400 && a.body?.code === 'BAD_EVENT_QUEUE_ID') {
        // The queue's process is gone: register again, then fetch what the lost queue would have brought.
        const stats = this.world.stats;
        stats.reRegistered.set(stats.phase, (stats.reRegistered.get(stats.phase) ?? 0) + 1);
        this.reRegistrations++;
        const from = this.queueMax;
        await this.register();
        await this.catchUp(from, this.queueMax);
        continue;
      }
      if (this.world.stopping) return;
      this.world.stats.error('poll', describe(a));
      await sleep(backoff(failures++));
    }
  }

  private receive(m: { id: number; content: string }): void {
    if (this.queueSeen.has(m.id)) this.duplicates++;
    this.queueSeen.add(m.id);
    if (m.id < this.lastInQueue) this.outOfOrder++;
    this.lastInQueue = Math.max(this.lastInQueue, m.id);
    if (!this.seen.has(m.id)) {
      this.seen.add(m.id);
      const token = TOKEN.exec(m.content)?.[1];
      const sent = token ? this.world.sent.get(token) : undefined;
      if (sent) this.world.stats.latency('delivery', Date.now() - sent.startedAt);
    }
  }

  /** Messages with ids in (from, to], through GET /messages, as a client catches up after a lost queue. */
  private async catchUp(from: number, to: number): Promise<void> {
    let anchor = Math.max(from, 0);
    let failures = 0;
    while (anchor < to && !this.world.stopping) {
      const a = await this.world.timed('catch-up', this.user, 'GET', '/messages', {
        anchor: String(anchor),
        include_anchor: 'false',
        num_before: '0',
        num_after: '200',
        apply_markdown: 'false',
      });
      if (!a || a.status !== 200) {
        await sleep(backoff(failures++));
        continue;
      }
      const msgs = a.body.messages as { id: number }[];
      for (const m of msgs) if (m.id <= to) this.seen.add(m.id);
      if (a.body.found_newest || msgs.length === 0) return;
      anchor = msgs[msgs.length - 1]!.id;
    }
  }

  private channel(): number {
    return this.user.channels[Math.floor(Math.random() * this.user.channels.length)]!;
  }

  async send(): Promise<void> {
    const channelId = this.channel();
    const token = this.world.nextToken();
    const sent: SentMessage = { token, channelId, startedAt: Date.now() };
    this.world.sent.set(token, sent);
    const a = await this.world.timed('send', this.user, 'POST', '/messages', {
      type: 'stream',
      to: String(channelId),
      topic: `topic ${Math.floor(Math.random() * 5)}`,
      content: `${token} hello from ${this.user.email}`,
    });
    if (a?.status === 200) {
      sent.id = a.body.id;
      this.own.push({ id: a.body.id, token });
      const recent = this.world.recent.get(channelId) ?? [];
      recent.push(a.body.id);
      if (recent.length > 20) recent.shift();
      this.world.recent.set(channelId, recent);
    } else {
      sent.failed = a ? describe(a) : 'network';
    }
  }

  async read(): Promise<void> {
    await this.world.timed('read', this.user, 'GET', '/messages', {
      anchor: 'newest',
      num_before: '30',
      num_after: '0',
      narrow: JSON.stringify([{ operator: 'channel', operand: this.channel() }]),
    });
  }

  async typing(): Promise<void> {
    await this.world.timed('typing', this.user, 'POST', '/typing', { type: 'stream', stream_id: String(this.channel()), topic: 'topic 0', op: 'start' });
  }

  async edit(): Promise<void> {
    const mine = this.own[Math.floor(Math.random() * this.own.length)];
    if (!mine) return;
    const { id, token } = mine;
    await this.world.timed('edit', this.user, 'PATCH', `/messages/${id}`, { content: `${token} edited by ${this.user.email}` });
  }

  async react(): Promise<void> {
    const recent = this.world.recent.get(this.channel());
    if (!recent?.length) return;
    const id = recent[Math.floor(Math.random() * recent.length)]!;
    const emoji = EMOJI[Math.floor(Math.random() * EMOJI.length)]!;
    const key = `${id}:${emoji}`;
    if (this.reacted.has(key)) return;
    this.reacted.add(key);
    await this.world.timed('reaction', this.user, 'POST', `/messages/${id}/reactions`, { emoji_name: emoji });
  }

  async presence(): Promise<void> {
    const a = await this.world.timed('presence', this.user, 'POST', '/users/me/presence', {
      status: 'active',
      new_user_input: 'true',
      slim_presence: 'true',
      last_update_id: String(this.presenceUpdateId),
    });
    if (a?.status === 200 && typeof a.body.presence_last_update_id === 'number') this.presenceUpdateId = a.body.presence_last_update_id;
  }
}
