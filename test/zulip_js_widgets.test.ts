// Through the published zulip-js bindings: a poll made by one client is voted on by another, and
// the first sees the vote arrive; a wrong API key is the 401 UNAUTHORIZED the bindings report.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { startTestServer, type TestServer } from './helpers.js';

type ZulipClient = any;
const zulip = createRequire(import.meta.url)('zulip-js') as (config: Record<string, string>) => Promise<ZulipClient>;

let t: TestServer;
let asker: ZulipClient;
let voter: ZulipClient;

before(async () => {
  t = await startTestServer();
  const a = await t.createUser({ name: 'Pat Poller' });
  const v = await t.createUser({ name: 'Val Voter' });
  asker = await zulip({ username: a.email, apiKey: a.apiKey, realm: t.url });
  voter = await zulip({ username: v.email, apiKey: v.apiKey, realm: t.url });
  for (const c of [asker, voter]) assert.equal((await c.users.me.subscriptions.add({ subscriptions: JSON.stringify([{ name: 'lunch' }]) })).result, 'success');
});
after(async () => {
  await t.close();
});

test('zulip-js: a poll made in one client is voted on in another', async () => {
  const queue = await asker.queues.register({ event_types: ['submessage'] });
  assert.equal(queue.result, 'success', JSON.stringify(queue));
  const sent = await asker.messages.send({ type: 'stream', to: 'lunch', topic: 'friday', content: '/poll Where?\nNoodles\nTacos' });
  assert.equal(sent.result, 'success', JSON.stringify(sent));

  const seen = await voter.messages.retrieve({ anchor: sent.id, num_before: 0, num_after: 0, narrow: [] });
  const widget = JSON.parse(seen.messages[0].submessages[0].content);
  assert.deepEqual(widget, { widget_type: 'poll', extra_data: { question: 'Where?', options: ['Noodles', 'Tacos'] } });

  const vote = JSON.stringify({ type: 'vote', key: 'canned,1', vote: 1 });
  const res = await voter.callEndpoint('/submessage', 'POST', { message_id: sent.id, msg_type: 'widget', content: vote });
  assert.equal(res.result, 'success', JSON.stringify(res));
  const events = await asker.events.retrieve({ queue_id: queue.queue_id, last_event_id: -1, dont_block: true });
  const got = events.events.filter((e: any) => e.type === 'submessage');
  assert.deepEqual(got.map((e: any) => [e.message_id, e.content]), [[sent.id, vote]]);
});

test('zulip-js: a wrong API key answers UNAUTHORIZED', async () => {
  const wrong = await zulip({ username: voter.config.username, apiKey: 'x'.repeat(32), realm: t.url });
  const res = await wrong.users.me.getProfile();
  assert.deepEqual([res.result, res.code, res.msg], ['error', 'UNAUTHORIZED', 'Invalid API key']);
});
