// Alert words (and the has_alert_word flag) and topic visibility policies.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openQueue, queuedEvents, startTestServer, type Client, type TestServer } from './helpers.js';

let t: TestServer;
let ann: Client;
before(async () => {
  t = await startTestServer();
  ann = await t.createUser({ name: 'Ann Alert' });
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'news' }], principals: [t.owner.userId, ann.userId] });
});
after(async () => {
  await t.close();
});

test('alert words: add, list, remove, events, and the flag on matching messages', async () => {
  const q = await openQueue(ann, ['alert_words']);
  const add = await ann.post('/users/me/alert_words', { alert_words: ['Deploy', 'outage', ' deploy ', ''] });
  assert.equal(add.status, 200);
  assert.deepEqual(add.body.alert_words, ['Deploy', 'outage']);
  assert.deepEqual((await ann.get('/users/me/alert_words')).body.alert_words, ['Deploy', 'outage']);
  const hit = await t.owner.post('/messages', { type: 'stream', to: 'news', topic: 't', content: 'The DEPLOY starts now' });
  const miss = await t.owner.post('/messages', { type: 'stream', to: 'news', topic: 't', content: 'redeployment is not the word' });
  assert.ok((await ann.get(`/messages/${hit.body.id}`)).body.message.flags.includes('has_alert_word'));
  assert.ok(!(await ann.get(`/messages/${miss.body.id}`)).body.message.flags.includes('has_alert_word'));
  const alerted = await ann.get('/messages', { anchor: 'newest', num_before: 10, num_after: 0, narrow: [{ operator: 'is', operand: 'alerted' }] });
  assert.deepEqual(alerted.body.messages.map((m: any) => m.id), [hit.body.id]);
  const del = await ann.delete('/users/me/alert_words', { alert_words: ['DEPLOY'] });
  assert.deepEqual(del.body.alert_words, ['outage']);
  const evs = await queuedEvents(ann, q);
  assert.deepEqual(evs.map((e: any) => e.alert_words), [['Deploy', 'outage'], ['outage']]);
  assert.equal((await ann.post('/users/me/alert_words', { alert_words: ['x'.repeat(101)] })).status, 400);
  assert.equal((await ann.post('/users/me/alert_words', { alert_words: '"not a list"' })).status, 400);
  // As Zulip's add_alert_words: the limit counts characters of the word as sent, before trimming.
  const padded = await ann.post('/users/me/alert_words', { alert_words: [` ${'y'.repeat(100)}`] });
  assert.deepEqual([padded.status, padded.body.msg], [400, 'alert_words[0] is too long (limit: 100 characters)']);
  const smiles = '😀'.repeat(100);
  assert.deepEqual((await ann.post('/users/me/alert_words', { alert_words: [smiles] })).body.alert_words, ['outage', smiles]);
  // remove_alert_words takes the words as sent: a padded one names no word.
  assert.deepEqual((await ann.delete('/users/me/alert_words', { alert_words: [' outage ', smiles] })).body.alert_words, ['outage']);
  const state = await ann.post('/register', { fetch_event_types: ['alert_words'] });
  assert.deepEqual(state.body.alert_words, ['outage']);
});

test('topic visibility: mute, follow, reset, with events and /register state', async () => {
  const id = (await ann.get('/get_stream_id', { stream: 'news' })).body.stream_id;
  const q = await openQueue(ann, ['user_topic']);
  assert.equal((await ann.post('/user_topics', { stream_id: id, topic: 'noise', visibility_policy: 1 })).status, 200);
  assert.equal((await ann.post('/user_topics', { stream_id: id, topic: 'signal', visibility_policy: 3 })).status, 200);
  let state = await ann.post('/register', { fetch_event_types: ['user_topic'] });
  assert.deepEqual(
    state.body.user_topics.map((u: any) => [u.topic_name, u.visibility_policy]).sort(),
    [['noise', 1], ['signal', 3]],
  );
  assert.equal((await ann.post('/user_topics', { stream_id: id, topic: 'noise', visibility_policy: 0 })).status, 200);
  state = await ann.post('/register', { fetch_event_types: ['user_topic'] });
  assert.deepEqual(state.body.user_topics.map((u: any) => u.topic_name), ['signal']);
  const evs = await queuedEvents(ann, q);
  assert.deepEqual(evs.map((e: any) => [e.topic_name, e.visibility_policy]), [['noise', 1], ['signal', 3], ['noise', 0]]);
  assert.equal((await ann.post('/user_topics', { stream_id: id, topic: 'x', visibility_policy: 7 })).status, 400);
  assert.equal((await ann.post('/user_topics', { stream_id: 999999, topic: 'x', visibility_policy: 1 })).status, 400);
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'closed' }], invite_only: true });
  const closed = (await t.owner.get('/get_stream_id', { stream: 'closed' })).body.stream_id;
  assert.equal((await ann.post('/user_topics', { stream_id: closed, topic: 'x', visibility_policy: 1 })).status, 400);
});

test('topic visibility: the legacy muted_topics before user_topic, and nothing for the policy a topic already has', async () => {
  const id = (await ann.get('/get_stream_id', { stream: 'news' })).body.stream_id;
  // A client that asks for every event type gets both forms, in Zulip's order (do_set_user_topic_visibility_policy).
  const reg = await ann.post('/register', { fetch_event_types: ['message'] });
  assert.equal((await ann.post('/user_topics', { stream_id: id, topic: 'quiet', visibility_policy: 1 })).status, 200);
  assert.equal((await ann.post('/user_topics', { stream_id: id, topic: 'quiet', visibility_policy: 1 })).status, 200);
  assert.equal((await ann.post('/user_topics', { stream_id: id, topic: 'never-set', visibility_policy: 0 })).status, 200);
  const evs = (await ann.get('/events', { queue_id: reg.body.queue_id, last_event_id: -1, dont_block: true })).body.events.filter((e: any) => e.type !== 'heartbeat');
  assert.deepEqual(evs.map((e: any) => e.type), ['muted_topics', 'user_topic']);
  assert.deepEqual([evs[1].topic_name, evs[1].visibility_policy], ['quiet', 1]);
});
