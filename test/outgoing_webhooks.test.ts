// Outgoing-webhook bots at work, against real HTTP endpoints started here: what Confab POSTs in
// Zulip's and Slack's formats, the bot's reply, no reply, timeouts, 5xx and refused connections
// (retried, then reported to the bot's owner), a send never waiting for the endpoint, and a
// queued delivery surviving a restart and being made once by two processes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, startTestServer, type TestServer } from './helpers.js';
import { startServer, type RunningServer } from '../src/app.js';
import { pendingWebhookEventCount } from '../src/store/outgoing_webhooks.js';

interface Received {
  headers: IncomingMessage['headers'];
  body: string;
}

type Answer = { status?: number; body?: string; hang?: boolean } | 'hang';

/** A webhook endpoint: records every request and answers as the test says. */
class Endpoint {
  readonly requests: Received[] = [];
  answer: (req: Received, n: number) => Answer = () => ({ body: '{}' });
  private held: ServerResponse[] = [];
  /** The most requests held open at once. */
  maxHeld = 0;
  private constructor(private readonly server: Server) {}

  static async start(port = 0): Promise<Endpoint> {
    const server = createServer();
    const ep = new Endpoint(server);
    server.on('request', (req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (d: string) => (body += d));
      req.on('end', () => {
        const r = { headers: req.headers, body };
        ep.requests.push(r);
        const a = ep.answer(r, ep.requests.length);
        if (a === 'hang' || a.hang) {
          ep.held.push(res);
          ep.maxHeld = Math.max(ep.maxHeld, ep.held.length);
          // A client that gave up (timeout) no longer counts.
          res.on('close', () => ep.held.splice(ep.held.indexOf(res) >>> 0, ep.held.includes(res) ? 1 : 0));
          return;
        }
        res.writeHead(a.status ?? 200, { 'Content-Type': 'application/json' });
        res.end(a.body ?? '');
      });
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    return ep;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  /** Answers every held request. */
  release(body = '{}'): void {
    for (const res of this.held.splice(0)) {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(body);
    }
  }

  async close(): Promise<void> {
    for (const res of this.held.splice(0)) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

async function waitFor<T>(what: string, fn: () => Promise<T | undefined | false> | T | undefined | false, ms = 8000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const TIMEOUT_MS = 400;
let t: TestServer;
let owner: Client;
let sender: Client;
const endpoints: Endpoint[] = [];
before(async () => {
  t = await startTestServer({ outgoingWebhooks: { timeoutMs: TIMEOUT_MS, pollMs: 50, retryDelayMs: 30 } });
  owner = await t.createUser({ name: 'Oscar Owner' });
  sender = await t.createUser({ name: 'Sally Sender' });
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'bots' }], principals: [owner.userId, sender.userId] });
});
after(async () => {
  for (const e of endpoints) await e.close();
  await t.close();
});

async function endpoint(): Promise<Endpoint> {
  const e = await Endpoint.start();
  endpoints.push(e);
  return e;
}

let botCounter = 0;
async function makeBot(url: string, interfaceType = 1): Promise<{ id: number; name: string; email: string; token: string }> {
  const n = ++botCounter;
  const name = `Hook Bot ${n}`;
  const res = await owner.post('/bots', { full_name: name, short_name: `hook${n}`, bot_type: 3, payload_url: JSON.stringify(url), interface_type: interfaceType });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const reg = await owner.post('/register', { fetch_event_types: ['realm_bot'] });
  const bot = reg.body.realm_bots.find((b: any) => b.user_id === res.body.user_id);
  return { id: bot.user_id, name, email: bot.email, token: bot.services[0].token };
}

async function topicMessages(c: Client, topic: string): Promise<any[]> {
  const res = await c.get('/messages', {
    anchor: 'newest',
    num_before: 50,
    num_after: 0,
    apply_markdown: false,
    narrow: [
      { operator: 'channel', operand: 'bots' },
      { operator: 'topic', operand: topic },
    ],
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.messages;
}

async function dmMessages(c: Client, withUsers: number | number[]): Promise<any[]> {
  const operand = Array.isArray(withUsers) ? withUsers : [withUsers];
  const res = await c.get('/messages', { anchor: 'newest', num_before: 50, num_after: 0, apply_markdown: false, narrow: [{ operator: 'dm', operand }] });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.messages;
}

const pending = () => pendingWebhookEventCount(t.server.services.database.db);

test("Zulip format: a mention in a channel POSTs Zulip's JSON; the answer's content is the bot's reply in the topic", async () => {
  const ep = await endpoint();
  ep.answer = () => ({ body: JSON.stringify({ content: 'pong from the bot' }) });
  const bot = await makeBot(ep.url);
  const sent = await sender.post('/messages', { type: 'stream', to: 'bots', topic: 'ping', content: `@**${bot.name}** ping` });
  assert.equal(sent.status, 200);
  const reply = await waitFor('the reply', async () => (await topicMessages(sender, 'ping')).find((m) => m.sender_id === bot.id));
  assert.equal(reply.content, 'pong from the bot');
  assert.equal(reply.client, 'OutgoingWebhookResponse');

  assert.equal(ep.requests.length, 1);
  const r = ep.requests[0]!;
  assert.equal(r.headers['content-type'], 'application/json');
  assert.match(String(r.headers['user-agent']), /^ZulipOutgoingWebhook\//);
  const p = JSON.parse(r.body);
  assert.deepEqual(Object.keys(p).sort(), ['bot_email', 'bot_full_name', 'data', 'message', 'token', 'trigger']);
  assert.equal(p.bot_email, bot.email);
  assert.equal(p.bot_full_name, bot.name);
  assert.equal(p.token, bot.token);
  assert.equal(p.trigger, 'mention');
  assert.equal(p.data, `@**${bot.name}** ping`);
  const m = p.message;
  assert.equal(m.id, sent.body.id);
  assert.equal(m.sender_id, sender.userId);
  assert.equal(m.sender_email, sender.email);
  assert.equal(m.sender_full_name, 'Sally Sender');
  assert.equal(m.content, `@**${bot.name}** ping`, 'content is the Markdown');
  assert.match(m.rendered_content, new RegExp(`<span class="user-mention" data-user-id="${bot.id}">@${bot.name}</span> ping`));
  assert.equal(m.type, 'stream');
  assert.equal(m.display_recipient, 'bots');
  assert.equal(m.subject, 'ping');
  assert.equal(typeof m.stream_id, 'number');
  assert.equal(typeof m.timestamp, 'number');
  assert.deepEqual(m.reactions, []);
  assert.equal(m.sender_realm_str !== undefined, true);
  await waitFor('the queue to empty', async () => (await pending()) === 0);
});

test('a direct message triggers direct_message; the reply goes to the same conversation', async () => {
  const ep = await endpoint();
  ep.answer = () => ({ body: JSON.stringify({ content: 'hello in private' }) });
  const bot = await makeBot(ep.url);
  const sent = await sender.post('/messages', { type: 'direct', to: JSON.stringify([bot.id]), content: 'hi bot' });
  assert.equal(sent.status, 200, JSON.stringify(sent.body));
  const reply = await waitFor('the reply', async () => (await dmMessages(sender, bot.id)).find((m) => m.sender_id === bot.id));
  assert.equal(reply.content, 'hello in private');
  assert.deepEqual(reply.display_recipient.map((u: any) => u.id).sort(), [sender.userId, bot.id].sort());
  const p = JSON.parse(ep.requests[0]!.body);
  assert.equal(p.trigger, 'direct_message');
  assert.equal(p.message.type, 'private');
  assert.deepEqual(p.message.display_recipient.map((u: any) => u.id).sort(), [sender.userId, bot.id].sort());
  // A group conversation with the bot triggers it too, and the reply reaches everyone in it.
  const group = await sender.post('/messages', { type: 'direct', to: JSON.stringify([bot.id, owner.userId]), content: 'all of us' });
  assert.equal(group.status, 200);
  const groupReply = await waitFor('the group reply', async () =>
    (await dmMessages(owner, [sender.userId, bot.id])).find((m) => m.sender_id === bot.id),
  );
  assert.equal(groupReply.content, 'hello in private');
});

test('response_not_required (and an empty answer) post nothing; messages from bots and unmentioned messages trigger nothing', async () => {
  const ep = await endpoint();
  ep.answer = (_r, n) => ({ body: n === 1 ? JSON.stringify({ response_not_required: true, content: 'ignored' }) : '{}' });
  const bot = await makeBot(ep.url);
  await sender.post('/messages', { type: 'stream', to: 'bots', topic: 'quiet', content: `@**${bot.name}** shh` });
  await sender.post('/messages', { type: 'stream', to: 'bots', topic: 'quiet', content: `@**${bot.name}** again` });
  await waitFor('two requests', () => ep.requests.length === 2);
  await waitFor('the queue to empty', async () => (await pending()) === 0);
  // Silent mentions and plain messages do not call the bot; nor does another bot mentioning it.
  await sender.post('/messages', { type: 'stream', to: 'bots', topic: 'quiet', content: `@_**${bot.name}** silent, and plain text` });
  const generic = await owner.post('/bots', { full_name: 'Chatty Generic', short_name: 'chatty' });
  const asGeneric = new Client(t.url, (await owner.get(`/users/${generic.body.user_id}`)).body.user.email, generic.body.api_key, generic.body.user_id);
  assert.equal((await asGeneric.post('/messages', { type: 'stream', to: 'bots', topic: 'quiet', content: `@**${bot.name}** from a bot` })).status, 200);
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(ep.requests.length, 2);
  assert.deepEqual((await topicMessages(sender, 'quiet')).filter((m) => m.sender_id === bot.id), []);
});

test('Slack format: the form fields of Slack outgoing webhooks; the answer is `text`; direct messages are refused', async () => {
  const ep = await endpoint();
  ep.answer = () => ({ body: JSON.stringify({ text: 'slack style reply' }) });
  const bot = await makeBot(ep.url, 2);
  const sent = await sender.post('/messages', { type: 'stream', to: 'bots', topic: 'slack', content: `@**${bot.name}** deploy` });
  const reply = await waitFor('the reply', async () => (await topicMessages(sender, 'slack')).find((m) => m.sender_id === bot.id));
  assert.equal(reply.content, 'slack style reply');
  const r = ep.requests[0]!;
  assert.equal(r.headers['content-type'], 'application/x-www-form-urlencoded');
  const f = new URLSearchParams(r.body);
  const streamId = (await sender.get('/get_stream_id', { stream: 'bots' })).body.stream_id;
  assert.deepEqual(
    [...f.keys()],
    ['token', 'team_id', 'team_domain', 'channel_id', 'channel_name', 'thread_ts', 'timestamp', 'user_id', 'user_name', 'text', 'trigger_word', 'service_id'],
  );
  assert.equal(f.get('token'), bot.token);
  assert.equal(f.get('team_id'), `T${t.realmId}`);
  assert.equal(f.get('team_domain'), new URL(t.url).host);
  assert.equal(f.get('channel_id'), `C${streamId}`);
  assert.equal(f.get('channel_name'), 'bots');
  assert.match(f.get('timestamp')!, /^\d+$/);
  assert.equal(f.get('user_id'), `U${sender.userId}`);
  assert.equal(f.get('user_name'), 'Sally Sender');
  assert.equal(f.get('text'), `@**${bot.name}** deploy`);
  assert.equal(f.get('trigger_word'), 'mention');
  assert.equal(f.get('service_id'), String(bot.id));
  assert.ok(sent.body.id);

  await sender.post('/messages', { type: 'direct', to: JSON.stringify([bot.id]), content: 'private?' });
  const refusal = await waitFor('the refusal', async () => (await dmMessages(sender, bot.id)).find((m) => m.sender_id === bot.id));
  assert.equal(refusal.content, "Failure! Slack outgoing webhooks don't support direct messages.");
  assert.equal(ep.requests.length, 1, 'no request for a direct message');
});

test('sending never waits for the endpoint: the send answers while the endpoint holds the request', async () => {
  const ep = await endpoint();
  ep.answer = () => 'hang';
  const bot = await makeBot(ep.url);
  const started = Date.now();
  const sent = await sender.post('/messages', { type: 'stream', to: 'bots', topic: 'slow', content: `@**${bot.name}** take your time` });
  assert.equal(sent.status, 200);
  await waitFor('the request', () => ep.requests.length === 1);
  assert.ok(Date.now() - started < TIMEOUT_MS + 2000);
  // Should the wait outlast the time limit, the retry gets the same answer.
  ep.answer = () => ({ body: JSON.stringify({ content: 'done, eventually' }) });
  ep.release(JSON.stringify({ content: 'done, eventually' }));
  const reply = await waitFor('the late reply', async () => (await topicMessages(sender, 'slow')).find((m) => m.sender_id === bot.id));
  assert.equal(reply.content, 'done, eventually');
});

test('a slow endpoint holds at most two deliveries: other bots are still answered at once', async () => {
  const slow = await endpoint();
  slow.answer = () => 'hang';
  const quick = await endpoint();
  quick.answer = () => ({ body: JSON.stringify({ content: 'quick answer' }) });
  const slowBot = await makeBot(slow.url);
  const quickBot = await makeBot(quick.url);
  for (let i = 0; i < 10; i++) await sender.post('/messages', { type: 'stream', to: 'bots', topic: 'crowd', content: `@**${slowBot.name}** ${i}` });
  await sender.post('/messages', { type: 'stream', to: 'bots', topic: 'crowd', content: `@**${quickBot.name}** me too` });
  const reply = await waitFor('the quick reply', async () => (await topicMessages(sender, 'crowd')).find((m) => m.sender_id === quickBot.id));
  assert.equal(reply.content, 'quick answer');
  assert.equal(slow.maxHeld, 2, 'two requests to the slow endpoint at a time');
  slow.answer = () => ({ body: '{}' });
  slow.release();
  await waitFor('the queue to empty', async () => (await pending()) === 0);
  assert.equal(new Set(slow.requests.map((r) => JSON.parse(r.body).message.id)).size, 10);
});

test('a scheduled message that mentions the bot calls it when it is sent', async () => {
  const ep = await endpoint();
  ep.answer = () => ({ body: JSON.stringify({ content: 'on time' }) });
  const bot = await makeBot(ep.url);
  const streamId = (await sender.get('/get_stream_id', { stream: 'bots' })).body.stream_id;
  const res = await sender.post('/scheduled_messages', {
    type: 'stream',
    to: streamId,
    topic: 'scheduled',
    content: `@**${bot.name}** wake up`,
    scheduled_delivery_timestamp: Math.floor(Date.now() / 1000) + 1,
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(ep.requests.length, 0);
  const reply = await waitFor('the reply', async () => (await topicMessages(sender, 'scheduled')).find((m) => m.sender_id === bot.id));
  assert.equal(reply.content, 'on time');
  assert.equal(JSON.parse(ep.requests[0]!.body).trigger, 'mention');
});

/** The owner's direct messages from the bot (its failure notices). */
async function ownerNotices(botId: number): Promise<any[]> {
  return (await dmMessages(owner, botId)).filter((m) => m.sender_id === botId);
}

test('a timeout is retried three times, then the topic hears "Bot is unavailable" and the owner why', async () => {
  const ep = await endpoint();
  ep.answer = () => 'hang';
  const bot = await makeBot(ep.url);
  const sent = await sender.post('/messages', { type: 'stream', to: 'bots', topic: 'timeout', content: `@**${bot.name}** are you there` });
  const [notice] = await waitFor('the owner notice', async () => {
    const n = await ownerNotices(bot.id);
    return n.length ? n : undefined;
  }, 15000);
  assert.equal(ep.requests.length, 4, 'one attempt and three retries');
  const streamId = (await sender.get('/get_stream_id', { stream: 'bots' })).body.stream_id;
  assert.equal(
    notice.content,
    `[A message](${t.url}/#narrow/channel/${streamId}-bots/topic/timeout/near/${sent.body.id}) to your bot @_**${bot.name}** triggered an outgoing webhook.\n` +
      `Request timed out after ${TIMEOUT_MS / 1000} seconds.`,
  );
  const inTopic = (await topicMessages(sender, 'timeout')).filter((m) => m.sender_id === bot.id);
  assert.deepEqual(inTopic.map((m) => m.content), ['Failure! Bot is unavailable']);
  assert.equal(await pending(), 0);
});

test('a 500 is retried; a 500 that stays reports the status and the payload; a 500 that passes gets its reply', async () => {
  const ep = await endpoint();
  ep.answer = () => ({ status: 500, body: 'boom' });
  const bot = await makeBot(ep.url);
  await sender.post('/messages', { type: 'stream', to: 'bots', topic: 'errors', content: `@**${bot.name}** break` });
  const [notice] = await waitFor('the owner notice', async () => {
    const n = await ownerNotices(bot.id);
    return n.length ? n : undefined;
  });
  assert.equal(ep.requests.length, 4);
  assert.match(notice.content, /triggered an outgoing webhook\.\nThe webhook got a response with status code \*500\*\.\nThe response contains the following payload:\n```\nb'boom'\n```$/);
  assert.deepEqual((await topicMessages(sender, 'errors')).filter((m) => m.sender_id === bot.id).map((m) => m.content), ['Failure! Third party responded with 500']);

  // Failing twice, then answering: the reply arrives and nobody is told of the failures.
  const flaky = await endpoint();
  flaky.answer = (_r, n) => (n <= 2 ? { status: 503, body: 'busy' } : { body: JSON.stringify({ content: 'third time lucky' }) });
  const bot2 = await makeBot(flaky.url);
  await sender.post('/messages', { type: 'stream', to: 'bots', topic: 'flaky', content: `@**${bot2.name}** try` });
  const reply = await waitFor('the reply', async () => (await topicMessages(sender, 'flaky')).find((m) => m.sender_id === bot2.id));
  assert.equal(reply.content, 'third time lucky');
  assert.equal(flaky.requests.length, 3);
  assert.deepEqual(await ownerNotices(bot2.id), []);

  // A 4xx is not retried.
  const gone = await endpoint();
  gone.answer = () => ({ status: 404, body: 'no such hook' });
  const bot3 = await makeBot(gone.url);
  await sender.post('/messages', { type: 'stream', to: 'bots', topic: 'gone', content: `@**${bot3.name}** hello?` });
  const [n404] = await waitFor('the 404 notice', async () => {
    const n = await ownerNotices(bot3.id);
    return n.length ? n : undefined;
  });
  assert.match(n404.content, /status code \*404\*/);
  assert.equal(gone.requests.length, 1);
});

test('an answer that is not JSON is reported in the topic and to the owner', async () => {
  const ep = await endpoint();
  ep.answer = () => ({ body: 'this is not json' });
  const bot = await makeBot(ep.url);
  await sender.post('/messages', { type: 'stream', to: 'bots', topic: 'garbage', content: `@**${bot.name}** talk` });
  const [notice] = await waitFor('the owner notice', async () => {
    const n = await ownerNotices(bot.id);
    return n.length ? n : undefined;
  });
  assert.match(notice.content, /The outgoing webhook server attempted to send a message in Zulip, but that request resulted in the following error:\n> Invalid JSON in response/);
  assert.deepEqual((await topicMessages(sender, 'garbage')).filter((m) => m.sender_id === bot.id).map((m) => m.content), ['Failure! Invalid JSON in response']);
});

test('a reply that cannot be posted (the channel was archived meanwhile) is reported to the owner with the error', async () => {
  const ep = await endpoint();
  ep.answer = () => 'hang';
  const bot = await makeBot(ep.url);
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'closing' }], principals: [sender.userId] });
  await sender.post('/messages', { type: 'stream', to: 'closing', topic: 'last words', content: `@**${bot.name}** quick` });
  await waitFor('the request', () => ep.requests.length === 1);
  const streamId = (await t.owner.get('/get_stream_id', { stream: 'closing' })).body.stream_id;
  assert.equal((await t.owner.delete(`/streams/${streamId}`)).status, 200);
  ep.answer = () => ({ body: JSON.stringify({ content: 'too late' }) });
  ep.release(JSON.stringify({ content: 'too late' }));
  const [notice] = await waitFor('the owner notice', async () => {
    const n = await ownerNotices(bot.id);
    return n.length ? n : undefined;
  });
  assert.match(
    notice.content,
    /triggered an outgoing webhook\.\nThe outgoing webhook server attempted to send a message in Zulip, but that request resulted in the following error:\n> Not authorized to send to channel 'closing'\nThe response contains the following payload:\n```\n'\{"content":"too late"\}'\n```$/,
  );
  await waitFor('the queue to empty', async () => (await pending()) === 0);
});

test('a refused connection is retried, then the owner hears "Is my bot server down?"', async () => {
  const ep = await Endpoint.start();
  const url = ep.url;
  await ep.close();
  const bot = await makeBot(url);
  await sender.post('/messages', { type: 'direct', to: JSON.stringify([bot.id]), content: 'knock knock' });
  const [notice] = await waitFor('the owner notice', async () => {
    const n = await ownerNotices(bot.id);
    return n.length ? n : undefined;
  });
  assert.match(notice.content, /^\[A message\]\(http:\/\/127\.0\.0\.1:\d+\/#narrow\/dm\/\d+,\d+-dm\/near\/\d+\) to your bot @_\*\*Hook Bot \d+\*\* triggered an outgoing webhook\.\nA connection error occurred\. Is my bot server down\?$/);
  const inConversation = (await dmMessages(sender, bot.id)).filter((m) => m.sender_id === bot.id);
  assert.deepEqual(inConversation.map((m) => m.content), ['Failure! Bot is unavailable']);
  assert.equal(await pending(), 0);
});

test('PATCH /bots/{bot_id}: the next delivery goes to the new URL', async () => {
  const first = await endpoint();
  const second = await endpoint();
  second.answer = () => ({ body: JSON.stringify({ content: 'from the new home' }) });
  const bot = await makeBot(first.url);
  assert.equal((await owner.patch(`/bots/${bot.id}`, { service_payload_url: JSON.stringify(second.url) })).status, 200);
  await sender.post('/messages', { type: 'stream', to: 'bots', topic: 'moved', content: `@**${bot.name}** where are you` });
  const reply = await waitFor('the reply', async () => (await topicMessages(sender, 'moved')).find((m) => m.sender_id === bot.id));
  assert.equal(reply.content, 'from the new home');
  assert.equal(first.requests.length, 0);
});

/** Another server process (in this test process) on the test server's database. */
async function secondServer(): Promise<RunningServer> {
  const config = t.server.services.config;
  // A longer time limit: the held request must still be open when the server stops.
  return startServer({ ...config, databaseUrl: t.databaseUrl, port: 0, outgoingWebhooks: { ...config.outgoingWebhooks, timeoutMs: 10_000 } });
}

test('a delivery survives a restart: the row waits in the database and the next server makes it', async () => {
  const ep = await endpoint();
  ep.answer = () => 'hang';
  const bot = await makeBot(ep.url);
  // A first server takes the delivery, then stops while the endpoint holds the request.
  const first = await secondServer();
  await t.server.close();
  const asSender = new Client(first.url, sender.email, sender.apiKey, sender.userId);
  await asSender.post('/messages', { type: 'stream', to: 'bots', topic: 'restart', content: `@**${bot.name}** survive this` });
  await waitFor('the request', () => ep.requests.length === 1);
  await first.close();
  const db = await import('../src/store/db.js');
  const probe = await db.openDatabase(t.databaseUrl);
  assert.equal(await pendingWebhookEventCount(probe.db), 1, 'the delivery is still queued');
  await probe.close();

  ep.answer = () => ({ body: JSON.stringify({ content: 'back after the restart' }) });
  const next = await secondServer();
  try {
    const asSender2 = new Client(next.url, sender.email, sender.apiKey, sender.userId);
    const reply = await waitFor('the reply', async () => (await topicMessages(asSender2, 'restart')).find((m) => m.sender_id === bot.id));
    assert.equal(reply.content, 'back after the restart');
    assert.equal(ep.requests.length, 2);

    // Two processes polling one queue: each delivery is made once. (The bot exists before the
    // second process starts: without Redis, caches do not hear of each other's changes.)
    const counting = await endpoint();
    const bot2 = await makeBotVia(next.url, counting.url);
    const other = await secondServer();
    try {
      const ids: number[] = [];
      for (let i = 0; i < 12; i++) {
        const via = i % 2 ? other.url : next.url;
        const c = new Client(via, sender.email, sender.apiKey, sender.userId);
        ids.push((await c.post('/messages', { type: 'stream', to: 'bots', topic: 'twice', content: `@**${bot2.name}** number ${i}` })).body.id);
      }
      await waitFor('every delivery', () => counting.requests.length >= 12);
      await new Promise((r) => setTimeout(r, 300));
      const seen = counting.requests.map((r) => JSON.parse(r.body).message.id).sort((a: number, b: number) => a - b);
      assert.deepEqual(seen, ids.sort((a, b) => a - b));
    } finally {
      await other.close();
    }
  } finally {
    await next.close();
  }
});

async function makeBotVia(baseUrl: string, hookUrl: string): Promise<{ id: number; name: string }> {
  const c = new Client(baseUrl, owner.email, owner.apiKey, owner.userId);
  const n = ++botCounter;
  const name = `Hook Bot ${n}`;
  const res = await c.post('/bots', { full_name: name, short_name: `hook${n}`, bot_type: 3, payload_url: JSON.stringify(hookUrl) });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return { id: res.body.user_id, name };
}
