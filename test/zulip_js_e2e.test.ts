// End to end through the published zulip-js bindings, the way a bot drives a Zulip server: log in
// with a password (fetch_api_key, multipart), register a queue, send, react, edit, read events,
// mark read, delete. Nothing here knows Confab's internals; the bindings speak only the API.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { startTestServer, type TestServer } from './helpers.js';

// zulip-js is CommonJS without types: the calls below are its documented API.
type ZulipClient = any;
const zulip = createRequire(import.meta.url)('zulip-js') as (config: Record<string, string>) => Promise<ZulipClient>;

let t: TestServer;
let bot: ZulipClient;
let botEmail: string;
before(async () => {
  t = await startTestServer();
  botEmail = `bot-author-${Date.now()}@example.com`;
  const created = await t.owner.post('/users', { email: botEmail, password: 'a-Long-enough-password-1', full_name: 'Bot Author' });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  bot = await zulip({ username: botEmail, password: 'a-Long-enough-password-1', realm: t.url });
});
after(async () => {
  await t.close();
});

test('zulip-js: a bot logs in, registers, sends, reacts, edits and reads its events', async () => {
  assert.match(bot.config.apiKey, /^\w{32}$/, 'fetch_api_key answered the bindings');
  const me = await bot.users.me.getProfile();
  assert.equal(me.result, 'success');
  assert.equal(me.email, botEmail);

  const sub = await bot.users.me.subscriptions.add({ subscriptions: JSON.stringify([{ name: 'bots' }]) });
  assert.equal(sub.result, 'success', JSON.stringify(sub));

  const queue = await bot.queues.register({ apply_markdown: 'true', event_types: ['message', 'reaction', 'update_message', 'delete_message', 'update_message_flags'] });
  assert.equal(queue.result, 'success', JSON.stringify(queue));

  const sent = await bot.messages.send({ type: 'stream', to: 'bots', topic: 'status', content: 'Deploy **done** :tada:' });
  assert.equal(sent.result, 'success', JSON.stringify(sent));

  const reacted = await bot.reactions.add({ message_id: sent.id, emoji_name: 'octopus' });
  assert.equal(reacted.result, 'success', JSON.stringify(reacted));
  const edited = await bot.messages.update({ message_id: sent.id, content: 'Deploy **done**, all green' });
  assert.equal(edited.result, 'success', JSON.stringify(edited));

  const fetched = await bot.messages.retrieve({ anchor: 'newest', num_before: 5, num_after: 0, narrow: [{ operator: 'channel', operand: 'bots' }] });
  assert.equal(fetched.result, 'success', JSON.stringify(fetched));
  const message = fetched.messages.find((m: any) => m.id === sent.id);
  assert.equal(message.content, '<p>Deploy <strong>done</strong>, all green</p>');
  assert.deepEqual(
    message.reactions.map((r: any) => [r.emoji_name, r.emoji_code, r.reaction_type, r.user_id]),
    [['octopus', '1f419', 'unicode_emoji', me.user_id]],
  );

  const events = await bot.events.retrieve({ queue_id: queue.queue_id, last_event_id: -1, dont_block: true });
  assert.equal(events.result, 'success', JSON.stringify(events));
  const kinds = events.events.map((e: any) => e.type);
  assert.deepEqual(kinds.filter((k: string) => k !== 'heartbeat'), ['message', 'reaction', 'update_message']);
  assert.match(events.events[0].message.content, /<span aria-label="tada" class="emoji emoji-1f389"/);
  assert.equal(events.events[2].rendered_content, '<p>Deploy <strong>done</strong>, all green</p>');

  const removed = await bot.reactions.remove({ message_id: sent.id, emoji_name: 'octopus' });
  assert.equal(removed.result, 'success', JSON.stringify(removed));
  const again = await bot.reactions.remove({ message_id: sent.id, emoji_name: 'octopus' });
  assert.equal(again.result, 'error');
  assert.equal(again.code, 'REACTION_DOES_NOT_EXIST');

  const deleted = await bot.messages.deleteById({ message_id: sent.id });
  assert.equal(deleted.result, 'success', JSON.stringify(deleted));
  const later = await bot.events.retrieve({ queue_id: queue.queue_id, last_event_id: events.events.at(-1).id, dont_block: true });
  assert.deepEqual(later.events.map((e: any) => e.type), ['reaction', 'delete_message']);
  assert.equal((await bot.queues.deregister({ queue_id: queue.queue_id })).result, 'success');
});

test('zulip-js: a wrong password and an unknown endpoint surface as errors the bindings understand', async () => {
  const failed = await zulip({ username: botEmail, password: 'wrong', realm: t.url });
  assert.equal(failed.config.apiKey, undefined);
  const res = await bot.callEndpoint('/no/such/endpoint', 'GET', {});
  assert.equal(res.result, 'error');
  assert.equal(typeof res.msg, 'string');
});
