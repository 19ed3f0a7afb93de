// The machine's HTTP floor, run as its own process: a bare Node server answering a fixed JSON body,
// and the least a long-poll relay can do (the floor for send-to-event latency): POST
// /api/v1/register makes a queue, GET /api/v1/events parks until an event is due, POST
// /api/v1/messages appends one message event to every queue and answers — no storage, no auth.
import { createServer, type ServerResponse } from 'node:http';

const body = JSON.stringify({ result: 'success', msg: '', user_id: 1, email: 'floor@example.com', full_name: 'Floor' });

interface Queue {
  id: string;
  events: string[]; // JSON of each event, id last as Confab writes it
  nextId: number;
  parked: ServerResponse | null;
}
const queues = new Map<string, Queue>();
let nextQueue = 0;
let nextMessage = 0;

function json(res: ServerResponse, text: string, status = 200): void {
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

function answer(q: Queue, res: ServerResponse): void {
  json(res, `{"result":"success","msg":"","events":[${q.events.join(',')}],"queue_id":"${q.id}"}`);
}

const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://floor');
  if (url.pathname === '/api/v1/register' && req.method === 'POST') {
    req.resume();
    const q: Queue = { id: String(nextQueue++), events: [], nextId: 0, parked: null };
    queues.set(q.id, q);
    return json(res, JSON.stringify({ result: 'success', msg: '', queue_id: q.id, last_event_id: -1 }));
  }
  if (url.pathname === '/api/v1/events' && req.method === 'GET') {
    const q = queues.get(url.searchParams.get('queue_id') ?? '');
    if (!q) return json(res, '{"result":"error","msg":"Bad event queue ID","code":"BAD_EVENT_QUEUE_ID"}', 400);
    const last = Number(url.searchParams.get('last_event_id') ?? -1);
    q.events = q.events.filter((e) => Number(/"id":(\d+)\}$/.exec(e)![1]) > last);
    if (q.events.length) return answer(q, res);
    q.parked = res;
    return;
  }
  if (url.pathname === '/api/v1/events' && req.method === 'DELETE') {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const q = queues.get(new URLSearchParams(Buffer.concat(chunks).toString()).get('queue_id') ?? '');
      if (q) {
        queues.delete(q.id);
        if (q.parked) json(q.parked, '{"result":"error","msg":"Bad event queue ID","code":"BAD_EVENT_QUEUE_ID"}', 400);
      }
      json(res, '{"result":"success","msg":""}');
    });
    return;
  }
  if (url.pathname === '/api/v1/messages' && req.method === 'POST') {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const content = new URLSearchParams(Buffer.concat(chunks).toString()).get('content') ?? '';
      const id = nextMessage++;
      const message = JSON.stringify({ id, content });
      for (const q of queues.values()) {
        q.events.push(`{"type":"message","message":${message},"id":${q.nextId++}}`);
        if (q.parked) {
          const parked = q.parked;
          q.parked = null;
          answer(q, parked);
        }
      }
      json(res, `{"result":"success","msg":"","id":${id}}`);
    });
    return;
  }
  req.resume();
  res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
});
server.listen(0, '127.0.0.1', () => {
  const addr = server.address();
  process.stdout.write(`listening ${typeof addr === 'object' && addr ? addr.port : 0}\n`);
});
process.on('SIGTERM', () => {
  for (const q of queues.values()) q.parked?.destroy();
  server.close(() => process.exit(0));
});
