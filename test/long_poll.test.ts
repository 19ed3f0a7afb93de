// GET /events served by the long-poll fast path (http/long_poll.ts) must answer exactly as the
// route does: the same body, headers and rate limits; anything unusual goes to the route.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client, rawRequest, startTestServer, type TestServer } from './helpers.js';

let t: TestServer;
before(async () => {
  t = await startTestServer({ heartbeatSeconds: 1, rateLimits: { user: { limit: 12, windowSeconds: 60 }, anonymous: { limit: 100, windowSeconds: 60 }, password: { limit: 5, windowSeconds: 60 } } });
});
after(async () => {
  await t.close();
});

test('a plain poll and one the route serves give the same answer and headers; the rate limit counts both', async () => {
  const member = await t.createUser({ name: 'Poller' });
  const reg = await member.post('/register', { event_types: ['message'] });
  assert.equal(reg.status, 200);
  const queueId = reg.body.queue_id as string;
  const sent = await t.owner.post('/messages', { type: 'direct', to: [member.userId], content: 'poll me' });
  assert.equal(sent.status, 200);

  // Plain: queue_id, last_event_id, dont_block only.
  const plain = await member.get('/events', { queue_id: queueId, last_event_id: -1, dont_block: true });
  // The same with a parameter only the route reads (the client's name).
  const routed = await member.get('/events', { queue_id: queueId, last_event_id: -1, dont_block: true, client: 'test' });
  assert.equal(plain.status, 200);
  assert.equal(routed.status, 200);
  assert.deepEqual(plain.body, routed.body);
  assert.equal(plain.body.events.length, 1);
  assert.equal(plain.body.events[0].message.content, 'poll me');
  for (const h of ['content-type', 'x-ratelimit-limit']) assert.equal(plain.headers.get(h), routed.headers.get(h), h);
  assert.equal(plain.headers.get('content-type'), 'application/json; charset=utf-8');
  assert.equal(Number(plain.headers.get('x-ratelimit-remaining')), Number(routed.headers.get('x-ratelimit-remaining')) + 1);

  // A parked plain poll is answered by the next event.
  const parked = member.get('/events', { queue_id: queueId, last_event_id: plain.body.events[0].id });
  await new Promise((r) => setTimeout(r, 100));
  await t.owner.post('/messages', { type: 'direct', to: [member.userId], content: 'wake up' });
  const woken = await parked;
  assert.equal(woken.status, 200);
  assert.deepEqual(woken.body.events.map((e: { message: { content: string } }) => e.message.content), ['wake up']);

  // Used up: the plain poll is refused as the route refuses, with the limit's headers.
  let last;
  for (let i = 0; i < 12; i++) last = await member.get('/events', { queue_id: queueId, dont_block: true });
  assert.equal(last!.status, 429);
  assert.equal(last!.body.code, 'RATE_LIMIT_HIT');
  assert.ok(Number(last!.headers.get('retry-after')) >= 1);
  assert.equal(last!.headers.get('x-ratelimit-remaining'), '0');
});

test('what the plain path does not serve is answered by the route', async () => {
  const member = await t.createUser({ name: 'Edge Poller' });
  const reg = await member.post('/register', { event_types: ['message'] });
  const queueId = reg.body.queue_id as string;

  const wrongKey = new Client(t.url, member.email, 'a'.repeat(32), member.userId);
  const refused = await wrongKey.get('/events', { queue_id: queueId, dont_block: true });
  assert.equal(refused.status, 401);
  assert.match(refused.headers.get('www-authenticate') ?? '', /Basic/);

  const unknown = await member.get('/events', { queue_id: 'no-such-queue', dont_block: true });
  assert.equal(unknown.status, 400);
  assert.equal(unknown.body.code, 'BAD_EVENT_QUEUE_ID');
  assert.equal(unknown.body.queue_id, 'no-such-queue');

  // Someone else's queue is no different from a missing one.
  const other = await t.owner.get('/events', { queue_id: queueId, dont_block: true });
  assert.equal(other.status, 400);
  assert.equal(other.body.code, 'BAD_EVENT_QUEUE_ID');

  const badId = await member.get('/events', { queue_id: queueId, last_event_id: 'x' });
  assert.equal(badId.status, 400);
  assert.match(badId.body.msg, /last_event_id/);

  const extra = await member.get('/events', { queue_id: queueId, dont_block: true, frobnicate: 1 });
  assert.equal(extra.status, 200);
  assert.deepEqual(extra.body.ignored_parameters_unsupported, ['frobnicate']);

  const missing = await rawRequest(t.url, 'GET', '/events?dont_block=true', { headers: { Authorization: member.authHeader } });
  assert.equal(missing.status, 400);
  assert.equal((missing.body as { code: string }).code, 'REQUEST_VARIABLE_MISSING');
});
