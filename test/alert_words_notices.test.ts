// Alert words in the Notification Bot's messages: Zulip renders every message, internal sends
// included, with the organization's alert words (render_incoming_message), so a notice about a
// rename, a topic move, a new channel or a subscription flags has_alert_word for the recipients
// whose words it contains, as a person's message would.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type Client, openQueue, queuedEvents, testServerFor, NOTIFICATION_BOT, channelId, messagesIn, sendToChannel } from './helpers.js';

const t = testServerFor({ watcher: { name: 'Wanda Watcher' }, other: { name: 'Otto Other' } });

async function addWords(c: Client, words: string[]): Promise<void> {
  const res = await c.post('/users/me/alert_words', { alert_words: words });
  assert.equal(res.status, 200, JSON.stringify(res.body));
}

/** The Notification Bot's messages among a queue's events, with their flags. */
async function botMessages(c: Client, queue: string): Promise<any[]> {
  return messagesIn(await queuedEvents(c, queue)).filter((m) => m.sender_email === NOTIFICATION_BOT);
}

async function flagsOf(c: Client, id: number): Promise<string[]> {
  const res = await c.get(`/messages/${id}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.message.flags;
}

test('a channel-events notice (a rename) flags the subscribers whose alert word it names, in the event and when read', async () => {
  await addWords(t.watcher, ['Zeppelin']);
  const res = await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'hangar' }], principals: [t.owner.userId, t.watcher.userId, t.other.userId] });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const id = await channelId(t.owner, 'hangar');
  const wq = await openQueue(t.watcher, ['message']);
  const oq = await openQueue(t.other, ['message']);
  assert.equal((await t.owner.patch(`/streams/${id}`, { new_name: 'zeppelin yard' })).status, 200);
  const [seen] = await botMessages(t.watcher, wq);
  assert.ok(seen, 'the watcher received the notice');
  assert.match(seen.content, /renamed channel/);
  assert.deepEqual(seen.flags, ['has_alert_word']);
  assert.deepEqual(await flagsOf(t.watcher, seen.id), ['has_alert_word']);
  const [plain] = await botMessages(t.other, oq);
  assert.equal(plain.id, seen.id);
  assert.deepEqual(plain.flags, [], 'no alert word of theirs: no flag');
  // It is among the watcher's alerted messages.
  const alerted = await t.watcher.get('/messages', { anchor: 'newest', num_before: 10, num_after: 0, narrow: JSON.stringify([{ operator: 'is', operand: 'alerted' }]) });
  assert.ok(alerted.body.messages.some((m: any) => m.id === seen.id));
});

test('a topic-move notice flags the alert word it names (the old topic), for each recipient by their own words', async () => {
  await addWords(t.other, ['albatross']);
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'birds' }], principals: [t.owner.userId, t.watcher.userId, t.other.userId] });
  const msg = await sendToChannel(t.owner, 'birds', 'albatross sightings', 'one over the bay');
  const wq = await openQueue(t.watcher, ['message']);
  const oq = await openQueue(t.other, ['message']);
  const res = await t.owner.patch(`/messages/${msg}`, { topic: 'seabirds', propagate_mode: 'change_all', send_notification_to_old_thread: false, send_notification_to_new_thread: true });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const [notice] = await botMessages(t.other, oq);
  assert.ok(notice, 'the move notice reached the other subscriber');
  assert.match(notice.content, /albatross sightings/);
  assert.deepEqual(notice.flags, ['has_alert_word']);
  assert.deepEqual(await flagsOf(t.other, notice.id), ['has_alert_word']);
  const [same] = await botMessages(t.watcher, wq);
  assert.deepEqual(same.flags, [], "the watcher's words are not in it");
});

test('a new channel: its notice flags the alert words (in its description) of those subscribed', async () => {
  await addWords(t.watcher, ['papaya']);
  const wq = await openQueue(t.watcher, ['message']);
  const res = await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'kiwi club', description: 'Papaya and more' }], principals: [t.watcher.userId] });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const [notice] = await botMessages(t.watcher, wq);
  assert.match(notice.content, /channel created by/);
  assert.deepEqual(notice.flags, ['has_alert_word']);
});

test('the direct message "subscribed you to" flags the alert word it names', async () => {
  await addWords(t.other, ['mango']);
  assert.equal((await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'mango grove' }] })).status, 200);
  const oq = await openQueue(t.other, ['message']);
  const res = await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'mango grove' }], principals: [t.other.userId] });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const direct = (await botMessages(t.other, oq)).find((m) => m.type === 'private');
  assert.ok(direct, 'the direct message was sent');
  assert.match(direct.content, /subscribed you to/);
  assert.deepEqual(direct.flags, ['has_alert_word']);
  assert.deepEqual(await flagsOf(t.other, direct.id), ['has_alert_word']);
});
