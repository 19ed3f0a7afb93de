// The finer rules of sending: wildcard mentions in big channels and topics, and the automatic
// follow/unmute of topics with its response field and user_topic events.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { postToChannel, startTestServer, type Client, type TestServer } from './helpers.js';

let t: TestServer;
let member: Client;
let crowd: Client[] = [];
before(async () => {
  t = await startTestServer();
  member = await t.createUser({ name: 'Mel Member' });
  crowd = [];
  for (let i = 0; i < 16; i++) crowd.push(await t.createUser({ name: `Crowd ${i}` }));
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'big' }], principals: [t.owner.userId, member.userId, ...crowd.map((c) => c.userId)] });
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'small' }], principals: [t.owner.userId, member.userId] });
});
after(async () => {
  await t.close();
});

test('channel wildcard mentions in a channel of more than 15 subscribers need permission', async () => {
  for (const wildcard of ['all', 'everyone', 'channel', 'stream']) {
    const res = await postToChannel(member, 'big', 'wild', `hey @**${wildcard}**`);
    assert.equal(res.status, 400, wildcard);
    assert.equal(res.body.code, 'STREAM_WILDCARD_MENTION_NOT_ALLOWED');
    assert.equal(res.body.msg, 'You do not have permission to use channel wildcard mentions in this channel.');
  }
  const silent = await postToChannel(member, 'big', 'wild', 'hey @_**all**');
  assert.equal(silent.status, 200, 'a silent wildcard mention notifies nobody and is allowed');
  const admin = await postToChannel(t.owner, 'big', 'wild', 'hey @**all**');
  assert.equal(admin.status, 200, 'administrators are in can_mention_many_users_group by default');
  const small = await postToChannel(member, 'small', 'wild', 'hey @**all**');
  assert.equal(small.status, 200, 'small channels need no permission');
  const flags = (await t.owner.get(`/messages/${small.body.id}`)).body.message.flags;
  assert.ok(flags.includes('stream_wildcard_mentioned') && flags.includes('wildcard_mentioned'));
});

test('topic wildcard mentions in a topic with more than 15 participants need permission', async () => {
  for (const c of crowd) assert.equal((await postToChannel(c, 'big', 'busy topic', 'present')).status, 200);
  assert.equal((await postToChannel(member, 'big', 'busy topic', 'present')).status, 200);
  const res = await postToChannel(member, 'big', 'busy topic', 'ping @**topic**');
  assert.equal(res.status, 400);
  assert.equal(res.body.code, 'TOPIC_WILDCARD_MENTION_NOT_ALLOWED');
  const quiet = await postToChannel(member, 'big', 'quiet topic', 'ping @**topic**');
  assert.equal(quiet.status, 200, 'a topic with few participants needs no permission');
  const groups = (await t.owner.get('/user_groups')).body.user_groups;
  const members = groups.find((g: any) => g.name === 'role:members').id;
  await t.owner.patch('/realm', { can_mention_many_users_group: { new: members } });
  const allowed = await postToChannel(member, 'big', 'busy topic', 'ping @**topic**');
  assert.equal(allowed.status, 200, 'granting the permission lifts the limit');
});

test('the sender follows a topic they start, once, with a user_topic event', async () => {
  const reg = await member.post('/register', { event_types: ['user_topic'], fetch_event_types: ['user_topic'] });
  const first = await postToChannel(member, 'small', 'fresh topic', 'first!');
  assert.equal(first.status, 200);
  assert.equal(first.body.automatic_new_visibility_policy, 3);
  const second = await postToChannel(member, 'small', 'fresh topic', 'second');
  assert.equal(second.body.automatic_new_visibility_policy, undefined, 'only a change is reported');
  const joiner = await postToChannel(t.owner, 'small', 'fresh topic', 'joining in');
  assert.equal(joiner.body.automatic_new_visibility_policy, undefined, 'replying is not initiating');
  const evs = (await member.get('/events', { queue_id: reg.body.queue_id, last_event_id: -1, dont_block: true })).body.events;
  assert.equal(evs.length, 1);
  assert.deepEqual(
    { type: evs[0].type, topic_name: evs[0].topic_name, visibility_policy: evs[0].visibility_policy },
    { type: 'user_topic', topic_name: 'fresh topic', visibility_policy: 3 },
  );
  const state = await member.post('/register', { fetch_event_types: ['user_topic'] });
  assert.ok(state.body.user_topics.some((u: any) => u.topic_name === 'fresh topic' && u.visibility_policy === 3));
  const dm = await member.post('/messages', { type: 'direct', to: [t.owner.userId], content: 'no topics here' });
  assert.equal(dm.body.automatic_new_visibility_policy, undefined);
});

test('a mentioned user follows the topic (automatically_follow_topics_where_mentioned)', async () => {
  const reg = await member.post('/register', { event_types: ['user_topic'], fetch_event_types: ['user_topic'] });
  const res = await postToChannel(t.owner, 'small', 'mention topic', 'over to you @**Mel Member**');
  assert.equal(res.status, 200);
  const evs = (await member.get('/events', { queue_id: reg.body.queue_id, last_event_id: -1, dont_block: true })).body.events;
  assert.ok(evs.some((e: any) => e.type === 'user_topic' && e.topic_name === 'mention topic' && e.visibility_policy === 3));
});

test('posting permission, archived channels, deactivated recipients, channel topics policy', async () => {
  const groups = (await t.owner.get('/user_groups')).body.user_groups;
  const admins = groups.find((g: any) => g.name === 'role:administrators').id;
  const ann = await t.createUser({ name: 'Ann Poster' });
  const made = await t.owner.post('/users/me/subscriptions', {
    subscriptions: [{ name: 'announcements' }],
    principals: [t.owner.userId, ann.userId],
    can_send_message_group: admins,
  });
  assert.equal(made.status, 200);
  const denied = await postToChannel(ann, 'announcements', 't', 'may I?');
  assert.equal(denied.status, 400);
  assert.equal(denied.body.code, 'BAD_REQUEST');
  assert.equal((await postToChannel(t.owner, 'announcements', 't', 'I may')).status, 200);

  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'old-news' }], principals: [ann.userId] });
  const oldId = (await ann.get('/get_stream_id', { stream: 'old-news' })).body.stream_id;
  assert.equal((await t.owner.delete(`/streams/${oldId}`)).status, 200);
  const archived = await postToChannel(ann, 'old-news', 't', 'anyone?');
  assert.equal(archived.status, 400);

  const gone = await t.createUser({ name: 'Gone User' });
  assert.equal((await t.owner.delete(`/users/${gone.userId}`)).status, 200);
  const toGone = await ann.post('/messages', { type: 'direct', to: [gone.userId], content: 'hello?' });
  assert.equal(toGone.status, 400);
  assert.match(toGone.body.msg, /no longer using Zulip/);

  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'chat-only' }], principals: [ann.userId], topics_policy: 'empty_topic_only' });
  const named = await postToChannel(ann, 'chat-only', 'a topic', 'x');
  assert.equal(named.status, 400);
  assert.equal((await postToChannel(ann, 'chat-only', '', 'x')).status, 200);
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'topics-required' }], principals: [ann.userId], topics_policy: 'disable_empty_topic' });
  for (const topic of ['', '(no topic)', 'general chat']) assert.equal((await postToChannel(ann, 'topics-required', topic, 'x')).status, 400, topic);
  assert.equal((await postToChannel(ann, 'topics-required', 'real topic', 'x')).status, 200);
});
