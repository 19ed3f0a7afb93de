// The `cpu` figures of `npm run bench`: the server's CPU for one message's send path and for one
// poll answer, measured apart over a fixed amount of work (the server's CPU from /proc, all its
// threads), so that a change's effect on CPU shows even when latency figures scatter with the
// machine's load. The same work against the bare relay gives the floor.
//
//   sends:  N messages sent one after another into the 100-subscriber channel, every subscriber's
//           queue registered and nobody polling (each message its own commit, events queued);
//   polls:  M rounds of one message, then each of the 100 queues polled with dont_block, each
//           answer carrying that one event (with several server processes, an empty answer is
//           followed by a blocking poll); a poll's cost is the round's CPU less one send's.
import { Agent } from 'node:http';
import { apiCallText } from './api_call.js';
import { cpuSeconds, mainThreadCpuSeconds } from './loadgen.js';

/**
 * One kept-alive connection per account, as each client has its own: a queue's register and polls
 * travel on its account's connection (a pool shared by all the queues would hand each poll any
 * idle connection, which behind several server processes lands it on another process at random).
 */
const agents = new Map<string, Agent>();
function agentFor(auth: string): Agent {
  let agent = agents.get(auth);
  if (!agent) agents.set(auth, (agent = new Agent({ keepAlive: true, maxSockets: 1 })));
  return agent;
}

function call(base: string, auth: string, method: 'GET' | 'POST' | 'DELETE', path: string, params: Record<string, string>): Promise<{ status: number; text: string }> {
  return apiCallText(agentFor(auth), base, auth, method, path, params);
}

async function ok(p: Promise<{ status: number; text: string }>, what: string): Promise<any> {
  const res = await p;
  if (res.status !== 200) throw new Error(`${what}: ${res.status} ${res.text.slice(0, 200)}`);
  return JSON.parse(res.text);
}

export interface CpuCost {
  /** Server CPU per message sent, ms. */
  sendMs: number;
  /** Server CPU per poll answering one event, µs. */
  pollUs: number;
  /** The main threads' share of sendMs and of pollUs (the rest: GC helpers, libuv's pool, the checkpoint worker). */
  sendMainMs: number;
  pollMainUs: number;
  messages: number;
  polls: number;
}

interface Queue {
  auth: string;
  id: string;
  last: number;
}

/** Runs both measurements against `base` (Confab or the relay), whose process is `pid`. */
export async function cpuCost(base: string, pid: number, senderAuth: string, channel: string, auths: string[], sends = 500, rounds = 150): Promise<CpuCost> {
  const queues: Queue[] = await Promise.all(
    auths.map(async (auth) => {
      const reg = await ok(call(base, auth, 'POST', '/register', { event_types: '["message"]', apply_markdown: 'false' }), 'register');
      return { auth, id: String(reg.queue_id), last: Number(reg.last_event_id) };
    }),
  );
  let n = 0;
  const send = () => ok(call(base, senderAuth, 'POST', '/messages', { type: 'stream', to: channel, topic: 'cpu cost', content: `cpu cost ${n++}` }), 'send');
  // Each queue's pending events acknowledged and collected, one dont_block poll each. With several
  // server processes the event may still be on its way to the queue's process when the send is
  // answered: an empty answer is followed by a blocking poll, and both count as polls.
  let polls = 0;
  const pollAll = () =>
    Promise.all(
      queues.map(async (q) => {
        let events: { id: number }[] = [];
        for (let attempt = 0; events.length === 0 && attempt < 2; attempt++) {
          polls++;
          const params: Record<string, string> = { queue_id: q.id, last_event_id: String(q.last), ...(attempt === 0 ? { dont_block: 'true' } : {}) };
          events = (await ok(call(base, q.auth, 'GET', '/events', params), 'poll')).events as { id: number }[];
        }
        for (const e of events) q.last = Math.max(q.last, e.id);
        return events.filter((e) => (e as { type?: string }).type !== 'heartbeat').length;
      }),
    );
  try {
    // Warm: code paths compiled, caches filled, the queues empty.
    for (let i = 0; i < 30; i++) await send();
    await pollAll();

    let before = cpuSeconds(pid);
    let mainBefore = mainThreadCpuSeconds(pid);
    for (let i = 0; i < sends; i++) await send();
    const sendMs = ((cpuSeconds(pid) - before) * 1000) / sends;
    const sendMainMs = ((mainThreadCpuSeconds(pid) - mainBefore) * 1000) / sends;
    await pollAll();

    polls = 0;
    before = cpuSeconds(pid);
    mainBefore = mainThreadCpuSeconds(pid);
    for (let i = 0; i < rounds; i++) {
      await send();
      const counts = await pollAll();
      for (const c of counts) if (c !== 1) throw new Error(`a queue received ${c} events for one message, not 1`);
    }
    const answered = polls;
    const roundsMs = (cpuSeconds(pid) - before) * 1000;
    const roundsMainMs = (mainThreadCpuSeconds(pid) - mainBefore) * 1000;
    return {
      sendMs,
      pollUs: ((roundsMs - rounds * sendMs) * 1000) / answered,
      sendMainMs,
      pollMainUs: ((roundsMainMs - rounds * sendMainMs) * 1000) / answered,
      messages: sends,
      polls: answered,
    };
  } finally {
    // Deleted, so that later figures' messages are not also queued for these.
    await Promise.all(queues.map((q) => call(base, q.auth, 'DELETE', '/events', { queue_id: q.id }).catch(() => undefined)));
    for (const agent of agents.values()) agent.destroy();
    agents.clear();
  }
}
