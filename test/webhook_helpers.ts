// Shared setup of the incoming-webhook tests: a server, a channel the owner reads, an incoming-
// webhook bot, and a poster that sends a service's payload the way the service does.
import { rawRequest, startTestServer, type ApiResponse, type Client, type TestServer } from './helpers.js';

export interface WebhookFixture {
  t: TestServer;
  owner: Client;
  streamId: number;
  streamName: string;
  bot: { id: number; apiKey: string; email: string };
  /** POSTs a payload to /api/v1/external/{name} with the bot's key and the channel. */
  post(name: string, payload: unknown, opts?: { headers?: Record<string, string>; query?: Record<string, string>; raw?: string; contentType?: string; stream?: string | null }): Promise<ApiResponse>;
  /** The newest `count` messages the owner can see, oldest first, as raw Markdown. */
  latest(count?: number): Promise<Array<{ id: number; topic: string; content: string; sender_id: number; type: string; display_recipient: unknown }>>;
  close(): Promise<void>;
}

export async function webhookFixture(streamName = 'alerts'): Promise<WebhookFixture> {
  const t = await startTestServer();
  const owner = t.owner;
  const sub = await owner.post('/users/me/subscriptions', { subscriptions: [{ name: streamName }] });
  if (sub.status !== 200) throw new Error(JSON.stringify(sub.body));
  const streamId = (await owner.get('/get_stream_id', { stream: streamName })).body.stream_id as number;
  const created = await owner.post('/bots', { full_name: 'Hook Bot', short_name: 'hook', bot_type: 2 });
  if (created.status !== 200) throw new Error(JSON.stringify(created.body));
  const botEmail = (await owner.get(`/users/${created.body.user_id}`)).body.user.email as string;
  const bot = { id: created.body.user_id as number, apiKey: created.body.api_key as string, email: botEmail };
  return {
    t,
    owner,
    streamId,
    streamName,
    bot,
    post(name, payload, opts = {}) {
      const q = new URLSearchParams({ api_key: bot.apiKey, ...(opts.stream === null ? {} : { stream: opts.stream ?? streamName }), ...(opts.query ?? {}) });
      const body = opts.raw ?? JSON.stringify(payload);
      return rawRequest(t.url, 'POST', `/api/v1/external/${name}?${q}`, {
        headers: { 'Content-Type': opts.contentType ?? 'application/json', 'User-Agent': 'WebhookTest/1.0', ...(opts.headers ?? {}) },
        body,
      });
    },
    async latest(count = 1) {
      const res = await owner.get('/messages', { anchor: 'newest', num_before: count, num_after: 0, apply_markdown: false });
      if (res.status !== 200) throw new Error(JSON.stringify(res.body));
      return (res.body.messages as any[]).map((m) => ({ id: m.id, topic: m.subject, content: m.content, sender_id: m.sender_id, type: m.type, display_recipient: m.display_recipient }));
    },
    close: () => t.close(),
  };
}
