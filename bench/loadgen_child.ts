// One child process of the load generator (bench/loadgen.ts): either the sender or one share of
// the long-polling pollers. Kept apart from the bench process so the client's own work runs on
// its own processes and its CPU can be read from /proc, not hidden in the figures it measures.
//
// Every message's content is `bench <seq> <stamp>`: seq numbers the sender's messages from 0,
// stamp is the time (ms, CLOCK_MONOTONIC, which every process on the machine shares) the message
// was due (fixed rate) or sent (saturated). A poller measures send-to-event latency the moment
// the answer holding the event has been read, in its own process.
import { Agent, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { ChildCommand, ChildReport, PollerSetup, SenderSetup } from './loadgen.js';

// CLOCK_MONOTONIC in ms, read directly each time: an offset between performance.now() and it, taken
// once, was off by up to ~10 ms when the process lost the CPU between the two reads (the check in
// loadgen.ts caught events "arriving before they were sent").
const mono = () => Number(process.hrtime.bigint()) / 1e6;

/** Resolves once the message is written to the IPC channel (a big report takes a while). */
function report(msg: ChildReport): Promise<void> {
  return new Promise((resolve, reject) => process.send!(msg, undefined, undefined, (err) => (err ? reject(err) : resolve())));
}

/** A form-encoded request through a keep-alive Agent; resolves with status and body text. */
function formCall(agent: Agent, base: string, auth: string, method: string, path: string, form: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${base}${path}`,
      { method, agent, headers: { Authorization: auth, 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Length': Buffer.byteLength(form) } },
      (res) => {
        let body = '';
        res.setEncoding('latin1');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(form);
  });
}

const registerForm = new URLSearchParams({ event_types: '["message"]', apply_markdown: 'false' }).toString();

/**
 * One keep-alive connection speaking just enough HTTP/1.1 for the generator's two requests: a
 * request written as one string, one at a time, an answer framed by Content-Length (Confab and the
 * relay always send it; anything else is an error, never a guess). No per-request objects beyond
 * the answer's text: node:http's client costs several times more per request, and at 100 events
 * per message that cost would be the generator's, inside every latency it measures.
 */
class Connection {
  private socket: Socket | null = null;
  private buf: Buffer | null = null;
  private waiting: { resolve: (a: { status: number; body: string }) => void; reject: (e: Error) => void } | null = null;

  constructor(
    private readonly host: string,
    private readonly port: number,
  ) {}

  request(request: string): Promise<{ status: number; body: string }> {
    if (!this.socket || this.socket.destroyed) this.open();
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.socket!.write(request);
    });
  }

  close(): void {
    this.socket?.destroy();
    this.socket = null;
  }

  private open(): void {
    const socket = connect(this.port, this.host);
    socket.setNoDelay(true);
    this.buf = null;
    socket.on('data', (chunk: Buffer) => {
      this.buf = this.buf ? Buffer.concat([this.buf, chunk]) : chunk;
      this.parse();
    });
    const fail = (err: Error) => {
      const w = this.waiting;
      this.waiting = null;
      w?.reject(err);
    };
    socket.on('error', fail);
    socket.on('close', () => fail(new Error('connection closed with a poll outstanding')));
    this.socket = socket;
  }

  private parse(): void {
    const buf = this.buf!;
    const headEnd = buf.indexOf('\r\n\r\n');
    if (headEnd < 0) return;
    const head = buf.toString('latin1', 0, headEnd);
    const length = /\r\ncontent-length: *(\d+)/i.exec(head);
    if (!length) {
      this.waiting?.reject(new Error(`answer without Content-Length: ${head.slice(0, 300)}`));
      this.waiting = null;
      this.close();
      return;
    }
    const end = headEnd + 4 + Number(length[1]);
    if (buf.length < end) return;
    const body = buf.toString('latin1', headEnd + 4, end);
    this.buf = buf.length > end ? buf.subarray(end) : null;
    const w = this.waiting;
    this.waiting = null;
    if (!w) throw new Error('an answer nobody asked for');
    w.resolve({ status: Number(head.slice(9, 12)), body });
  }
}

// ---- the sender ---------------------------------------------------------------------------

async function runSender(setup: SenderSetup): Promise<void> {
  const url = new URL(setup.base);
  // Idle keep-alive connections; a send takes one or opens another, up to a cap (as a browser
  // or an Agent would), past which it waits for one: that wait counts in its latency.
  const idle: Connection[] = [];
  const open: Connection[] = [];
  const waiting: Array<(c: Connection) => void> = [];
  const maxConnections = setup.rate ? 256 : setup.senders;
  const take = async (): Promise<Connection> => {
    const c = idle.pop();
    if (c) return c;
    if (open.length < maxConnections) {
      const fresh = new Connection(url.hostname, Number(url.port));
      open.push(fresh);
      return fresh;
    }
    return new Promise((resolve) => waiting.push(resolve));
  };
  const give = (c: Connection) => {
    const next = waiting.shift();
    if (next) next(c);
    else idle.push(c);
  };
  const head = `POST /api/v1/messages HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: ${setup.auth}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: `;
  const prefix = new URLSearchParams({ type: 'stream', to: setup.channel, topic: 'bench' }).toString() + '&content=bench+';
  const ids: number[] = []; // seq → the server's message id, for the pollers' order check
  const answerMs: number[] = [];
  let seq = 0;
  const sendOne = async (stamp: number) => {
    const s = seq++;
    const form = `${prefix}${s}+${stamp.toFixed(3)}`; // ASCII: its length is its byte length
    const t0 = performance.now();
    const conn = await take();
    const res = await conn.request(`${head}${form.length}\r\n\r\n${form}`);
    answerMs.push(performance.now() - t0);
    give(conn);
    const id = /"id":(\d+)/.exec(res.body);
    if (res.status !== 200 || !id) throw new Error(`send ${s} failed: ${res.status} ${res.body.slice(0, 200)}`);
    ids[s] = Number(id[1]);
  };
  const started = mono();
  const stopAt = started + setup.seconds * 1000;
  if (setup.rate) {
    // Open loop: every message that is due goes now, stamped with when it was due, so a server
    // that falls behind shows it in the latency (timers fire at best every millisecond).
    const interval = 1000 / setup.rate;
    const inFlight: Array<Promise<void>> = [];
    for (let i = 0; mono() < stopAt; ) {
      for (let due = started + i * interval; due <= mono(); due = started + ++i * interval) inFlight.push(sendOne(due));
      await new Promise((r) => setTimeout(r, Math.max(0, started + i * interval - mono())));
    }
    await Promise.all(inFlight);
  } else {
    await Promise.all(
      Array.from({ length: setup.senders }, async () => {
        while (mono() < stopAt) await sendOne(mono());
      }),
    );
  }
  const elapsed = (mono() - started) / 1000;
  for (const c of open) c.close();
  answerMs.sort((a, b) => a - b);
  await report({ type: 'sent', sent: seq, elapsed, answerP50: answerMs[Math.floor(answerMs.length / 2)] ?? NaN, ids });
}

// ---- the pollers --------------------------------------------------------------------------

interface PolledQueue {
  auth: string;
  queueId: string;
  last: number;
  /** The seq of every message event received, in arrival order. */
  seqs: number[];
}

const CONTENT = '"content":"bench ';
const TAIL = '}],"queue_id"';

let stopping = false;
let draining: { sent: number; ids: number[]; done: () => void } | null = null;

/** Reads one answer: the seq and latency of each message event, and the last event id. */
function take(q: PolledQueue, body: string, latencies: number[], now: number): void {
  for (let i = body.indexOf(CONTENT); i >= 0; i = body.indexOf(CONTENT, i)) {
    i += CONTENT.length;
    const space = body.indexOf(' ', i);
    const quote = body.indexOf('"', space);
    q.seqs.push(Number(body.slice(i, space)));
    latencies.push(now - Number(body.slice(space + 1, quote)));
  }
  if (body.includes('"events":[]')) return;
  // The answer's last event ends `"id":N}],"queue_id"` (Confab and the relay both write id last).
  const tail = body.lastIndexOf(TAIL);
  const idAt = tail < 0 ? -1 : body.lastIndexOf('"id":', tail);
  const last = idAt < 0 ? NaN : Number(body.slice(idAt + 5, tail));
  if (!Number.isInteger(last) || last <= q.last) throw new Error(`cannot read the last event id of ${body.slice(-200)}`);
  q.last = last;
}

/**
 * Lost, duplicated and out-of-order deliveries of one queue, against what the sender sent. Out of
 * order is by the server's message ids, which a client expects to rise along its queue; `reordered`
 * counts deliveries in another order than `reference` (the first queue of this process) got the
 * same messages, which tells a server that reorders per queue from one whose ids merely do not
 * follow its commit order (PostgreSQL's sequences under concurrent sends).
 */
function check(q: PolledQueue, sent: number, ids: number[], reference?: Int32Array) {
  const seen = new Uint8Array(sent);
  let distinct = 0;
  let duplicated = 0;
  let outOfOrder = 0;
  let reordered = 0;
  let unknown = 0;
  let highest = -1;
  let latest = -1;
  for (const s of q.seqs) {
    if (!(s >= 0 && s < sent)) {
      unknown++;
      continue;
    }
    if (seen[s]) {
      duplicated++;
      continue;
    }
    seen[s] = 1;
    distinct++;
    if (ids[s]! < highest) outOfOrder++;
    else highest = ids[s]!;
    const position = reference ? reference[s]! : -1;
    if (position >= 0 && position < latest) reordered++;
    else latest = Math.max(latest, position);
  }
  return { lost: sent - distinct, duplicated, outOfOrder, reordered, unknown };
}

/** seq → the position at which `q` first received it, -1 if never. */
function arrivalOrder(q: PolledQueue, sent: number): Int32Array {
  const order = new Int32Array(sent).fill(-1);
  q.seqs.forEach((s, i) => {
    if (s >= 0 && s < sent && order[s] === -1) order[s] = i;
  });
  return order;
}

function allArrived(queues: PolledQueue[]): boolean {
  const d = draining!;
  return queues.every((q) => q.seqs.length >= d.sent && check(q, d.sent, d.ids).lost === 0);
}

async function runPoller(setup: PollerSetup): Promise<void> {
  const url = new URL(setup.base);
  const agent = new Agent({ keepAlive: true, maxSockets: 16 });
  const queues: PolledQueue[] = await Promise.all(
    setup.auths.map(async (auth) => {
      const res = await formCall(agent, setup.base, auth, 'POST', '/api/v1/register', registerForm);
      const reg = JSON.parse(res.body);
      if (res.status !== 200) throw new Error(`register failed: ${res.body.slice(0, 200)}`);
      return { auth, queueId: String(reg.queue_id), last: Number(reg.last_event_id), seqs: [] };
    }),
  );
  const latencies: number[] = [];
  let polls = 0;
  const host = `Host: ${url.host}\r\n`;
  const conns: Connection[] = [];
  const loops = queues.map(async (q) => {
    const conn = new Connection(url.hostname, Number(url.port));
    conns.push(conn);
    const prefix = `GET /api/v1/events?queue_id=${encodeURIComponent(q.queueId)}&last_event_id=`;
    const headers = ` HTTP/1.1\r\n${host}Authorization: ${q.auth}\r\n\r\n`;
    try {
      while (!stopping) {
        const res = await conn.request(prefix + q.last + headers);
        const now = mono();
        polls++;
        if (res.status !== 200) throw new Error(`poll failed: ${res.status} ${res.body.slice(0, 200)}`);
        take(q, res.body, latencies, now);
        if (draining && allArrived(queues)) draining.done();
      }
    } catch (err) {
      if (!stopping) throw err;
    } finally {
      conn.close();
    }
  });
  // A poll that fails fails the child at once (a loop only ends early by throwing).
  const failed = Promise.race(loops.map((l) => l.then(() => new Promise<never>(() => undefined))));
  const drain = await Promise.race([
    failed,
    new Promise<{ sent: number; ids: number[]; waitMs: number }>((resolve) => {
      process.on('message', (m: ChildCommand) => {
        if (m.type === 'drain') resolve(m);
      });
      void report({ type: 'ready' });
    }),
  ]);
  // Wait until every queue has every message the sender was told succeeded, or the deadline.
  await Promise.race([
    failed,
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, drain.waitMs);
      draining = {
        sent: drain.sent,
        ids: drain.ids,
        done: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      if (allArrived(queues)) draining.done();
    }),
  ]);
  stopping = true;
  const totals = { lost: 0, duplicated: 0, outOfOrder: 0, reordered: 0, unknown: 0 };
  const reference = arrivalOrder(queues[0]!, drain.sent);
  for (const q of queues) {
    const c = check(q, drain.sent, drain.ids, reference);
    totals.reordered += c.reordered;
    totals.lost += c.lost;
    totals.duplicated += c.duplicated;
    totals.outOfOrder += c.outOfOrder;
    totals.unknown += c.unknown;
  }
  // The queues go, so the next phase starts clean; then the parked polls' connections close.
  // (A server too far behind to answer within 5 s keeps them: the report matters more.)
  const deletes = Promise.all(queues.map((q) => formCall(agent, setup.base, q.auth, 'DELETE', '/api/v1/events', `queue_id=${encodeURIComponent(q.queueId)}`).catch(() => undefined)));
  await Promise.race([deletes, new Promise((r) => setTimeout(r, 5000))]);
  for (const c of conns) c.close();
  await Promise.allSettled(loops);
  agent.destroy();
  await report({ type: 'polled', queues: queues.length, polls, events: latencies.length, latencies: latencies.map((l) => Math.round(l * 100) / 100), ...totals });
}

// ---- the child's life ---------------------------------------------------------------------

// The bench process owns this child: if it goes, so does the child (no orphan keeps polling).
process.on('disconnect', () => process.exit(1));
process.once('message', (m: ChildCommand) => {
  const run = m.type === 'sender' ? runSender(m) : m.type === 'poller' ? runPoller(m) : Promise.reject(new Error(`unexpected ${m.type}`));
  run.then(
    () => process.exit(0),
    async (err: unknown) => {
      await report({ type: 'error', message: err instanceof Error ? err.stack ?? err.message : String(err) }).catch(() => undefined);
      process.exit(1);
    },
  );
  // Whatever happens, a child ends: the bench process gives it a hard deadline too.
  setTimeout(() => {
    void report({ type: 'error', message: `child past its deadline of ${m.deadlineMs} ms` }).finally(() => process.exit(1));
  }, m.deadlineMs).unref();
});
