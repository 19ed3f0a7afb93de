// Muting users: errors, the read-marking of their messages, the list in /register, events.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type Client, type TestServer } from './helpers.js';

let t: TestServer;
let ann: Client;
let noisy: Client;
before(async () => {
  t = await startTestServer();
  ann = await t.createUser({ name: 'Ann Muter' });
  noisy = await t.createUser({ name: 'Noisy Nick' });
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'chatter' }], principals: [ann.userId, noisy.userId] });
});
after(async () => {
  await t.close();
});

test('muting marks the muted user\'s messages read, now and later', async () => {
  const old1 = await noisy.post('/messages', { type: 'stream', to: 'chatter', topic: 't', content: 'blah' });
  const old2 = await noisy.post('/messages', { type: 'direct', to: [ann.userId], content: 'psst' });
  const reg = await ann.post('/register', { event_types: ['muted_users', 'update_message_flags', 'message'], fetch_event_types: ['muted_users'] });
  assert.deepEqual(reg.body.muted_users, []);
  const res = await ann.post(`/users/me/muted_users/${noisy.userId}`);
  assert.equal(res.status, 200);
  const evs = (await ann.get('/events', { queue_id: reg.body.queue_id, last_event_id: -1, dont_block: true })).body.events;
  const muted = evs.find((e: any) => e.type === 'muted_users');
  assert.deepEqual(muted.muted_users.map((m: any) => m.id), [noisy.userId]);
  const flags = evs.find((e: any) => e.type === 'update_message_flags');
  assert.deepEqual(flags.messages.sort(), [old1.body.id, old2.body.id].sort());
  const unread = await ann.get('/messages', { anchor: 'newest', num_before: 20, num_after: 0, narrow: [{ operator: 'is', operand: 'unread' }] });
  assert.ok(!unread.body.messages.some((m: any) => m.sender_id === noisy.userId));
  const fresh = await noisy.post('/messages', { type: 'stream', to: 'chatter', topic: 't', content: 'more blah' });
  const seen = await ann.get(`/messages/${fresh.body.id}`);
  assert.ok(seen.body.message.flags.includes('read'), 'new messages from a muted user arrive read');
  const state = await ann.post('/register', { fetch_event_types: ['muted_users'] });
  assert.equal(state.body.muted_users[0].id, noisy.userId);
  assert.equal(typeof state.body.muted_users[0].timestamp, 'number');
});

test('muting errors: self, unknown, other organization, twice; unmuting', async () => {
  const self = await ann.post(`/users/me/muted_users/${ann.userId}`);
  assert.equal(self.status, 400);
  const unknown = await ann.post('/users/me/muted_users/999999');
  assert.equal(unknown.status, 400);
  const org = await t.createOrg('Far');
  const foreign = await ann.post(`/users/me/muted_users/${org.owner.userId}`);
  assert.deepEqual(foreign.body, unknown.body);
  const twice = await ann.post(`/users/me/muted_users/${noisy.userId}`);
  assert.equal(twice.status, 400);
  assert.equal(twice.body.msg, 'User already muted');
  const unmute = await ann.delete(`/users/me/muted_users/${noisy.userId}`);
  assert.equal(unmute.status, 200);
  const again = await ann.delete(`/users/me/muted_users/${noisy.userId}`);
  assert.equal(again.status, 400);
  assert.equal(again.body.msg, 'User is not muted');
  const after = await noisy.post('/messages', { type: 'stream', to: 'chatter', topic: 't', content: 'heard again' });
  const seen = await ann.get(`/messages/${after.body.id}`);
  assert.ok(!seen.body.message.flags.includes('read'));
  const bot = await ann.post('/bots', { full_name: 'Chatty Bot', short_name: 'chatty' });
  assert.equal((await ann.post(`/users/me/muted_users/${bot.body.user_id}`)).status, 200, 'bots can be muted');
});

test("muting as Zulip's mute_user (access_user_by_id_including_cross_realm): the system bots too; a hidden user is 'Insufficient permission'", async () => {
  const notificationBot = (await ann.get(`/users/${encodeURIComponent('notification-bot@zulip.com')}`)).body.user.user_id;
  assert.equal((await ann.post(`/users/me/muted_users/${notificationBot}`)).status, 200);
  assert.ok((await ann.post('/register', { fetch_event_types: ['muted_users'] })).body.muted_users.some((m: any) => m.id === notificationBot));
  assert.equal((await ann.delete(`/users/me/muted_users/${notificationBot}`)).status, 200);

  // A guest outside can_access_all_users_group: someone they share no conversation with is hidden.
  const guest = await t.createUser({ role: 'guest', name: 'Gil Guest' });
  const stranger = await t.createUser({ name: 'Sid Stranger' });
  const groups = Object.fromEntries((await t.owner.get('/user_groups')).body.user_groups.map((g: any) => [g.name, g.id]));
  assert.equal((await t.owner.patch('/realm', { can_access_all_users_group: { new: groups['role:members'] } })).status, 200);
  const hidden = await guest.post(`/users/me/muted_users/${stranger.userId}`);
  assert.deepEqual(hidden.body, { result: 'error', msg: 'Insufficient permission', code: 'BAD_REQUEST' });
  assert.equal((await guest.delete(`/users/me/muted_users/${stranger.userId}`)).body.msg, 'Insufficient permission');
  assert.equal((await guest.post('/users/me/muted_users/999999')).body.msg, 'No such user');
  assert.deepEqual((await guest.post('/register', { fetch_event_types: ['muted_users'] })).body.muted_users, []);
  assert.equal((await t.owner.patch('/realm', { can_access_all_users_group: { new: groups['role:everyone'] } })).status, 200);
});

test("unread counts in /register leave out muted topics, and wildcard mentions there", async () => {
  const bea = await t.createUser({ name: 'Bea Reader' });
  const cal = await t.createUser({ name: 'Cal Writer' });
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'busy' }], principals: [bea.userId, cal.userId] });
  const channelId = (await bea.get('/get_stream_id', { stream: 'busy' })).body.stream_id;
  assert.equal((await bea.post('/user_topics', { stream_id: channelId, topic: 'noise', visibility_policy: 1 })).status, 200);
  // Being mentioned would otherwise make Bea follow the topic (Zulip's default).
  assert.equal((await bea.patch('/settings', { automatically_follow_topics_where_mentioned: false })).status, 200);
  const say = async (topic: string, content: string) => (await cal.post('/messages', { type: 'stream', to: 'busy', topic, content })).body.id as number;
  const quiet = await say('noise', 'ignore me @**all**');
  const direct = await say('noise', 'but @**Bea Reader** please');
  const open = await say('news', 'read me @**all**');
  const reg = await bea.post('/register', { fetch_event_types: ['message', 'update_message_flags'] });
  const unread = reg.body.unread_msgs;
  const created = (await bea.get('/messages', { anchor: 'oldest', num_before: 0, num_after: 1, narrow: [{ operator: 'channel', operand: channelId }] })).body.messages[0];
  assert.equal(created.subject, 'channel events');
  assert.equal(unread.count, 2, 'only the unmuted topics count: the channel-created message and news');
  const byTopic = Object.fromEntries(unread.streams.map((s: any) => [s.topic, s.unread_message_ids]));
  assert.deepEqual(byTopic, { 'channel events': [created.id], noise: [quiet, direct], news: [open] }, 'muted topics are still listed');
  assert.deepEqual(unread.mentions.sort(), [direct, open].sort(), 'a personal mention counts even in a muted topic; a wildcard one does not');
});
