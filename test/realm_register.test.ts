// Organization settings (PATCH /realm) and the initial state of POST /register: what a client
// reads at start matches what the other endpoints say, and changes arrive as events.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type Client, type TestServer } from './helpers.js';

let t: TestServer;
let member: Client;
let admin: Client;
before(async () => {
  t = await startTestServer();
  member = await t.createUser({ name: 'Rita Member' });
  admin = await t.createUser({ role: 'administrator', name: 'Ray Admin' });
});
after(async () => {
  await t.close();
});

test('register returns the initial state clients read', async () => {
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'lobby' }], principals: [t.owner.userId, member.userId] });
  await t.owner.post('/messages', { type: 'stream', to: 'lobby', topic: 'welcome', content: 'hi @**Rita Member**' });
  await t.owner.post('/messages', { type: 'direct', to: [member.userId], content: 'psst' });
  const res = await member.post('/register', {});
  assert.equal(res.status, 200);
  const b = res.body;
  assert.equal(b.zulip_feature_level, 494);
  assert.equal(b.max_message_length, 10000);
  assert.equal(b.max_topic_length, 60);
  assert.equal(b.max_stream_name_length, 60);
  assert.equal(b.max_stream_description_length, 1024);
  assert.equal(b.realm_empty_topic_display_name, 'general chat');
  assert.equal(b.realm_name, 'Test Org');
  assert.equal(b.user_id, member.userId);
  assert.equal(b.is_admin, false);
  assert.ok(b.realm_users.some((u: any) => u.user_id === admin.userId && u.full_name === 'Ray Admin'));
  assert.equal(b.subscriptions.length, 1);
  assert.equal(b.subscriptions[0].name, 'lobby');
  assert.ok(b.streams.some((s: any) => s.name === 'lobby'));
  // The channel's channel-created message, the mention and the direct message.
  assert.equal(b.unread_msgs.count, 3);
  assert.deepEqual(b.unread_msgs.streams.map((s: any) => s.topic).sort(), ['channel events', 'welcome']);
  assert.equal(b.unread_msgs.pms[0].other_user_id, t.owner.userId);
  assert.equal(b.unread_msgs.mentions.length, 1);
  assert.equal(typeof b.user_settings, 'object');
  assert.equal(b.user_settings.enable_drafts_synchronization, true);
  assert.ok(b.max_message_id > 0);
  assert.ok(Array.isArray(b.realm_user_groups) && b.realm_user_groups.length === 8);
  assert.equal(typeof b.realm_can_mention_many_users_group, 'number');
  assert.equal(b.can_create_streams, true);
});

test('fetch_event_types limits the state; include_subscribers adds subscriber lists', async () => {
  const res = await member.post('/register', { fetch_event_types: ['subscription'], include_subscribers: true });
  assert.equal(res.status, 200);
  assert.equal(res.body.realm_users, undefined);
  assert.equal(res.body.unread_msgs, undefined);
  assert.deepEqual(res.body.subscriptions[0].subscribers.sort(), [t.owner.userId, member.userId].sort());
  const bad = await member.post('/register', { include_subscribers: 'sometimes' });
  assert.equal(bad.status, 400);
});

test('PATCH /realm: administrators change settings; everyone hears of it', async () => {
  const reg = await member.post('/register', { event_types: ['realm'], fetch_event_types: ['realm'] });
  assert.equal(reg.body.realm_waiting_period_threshold, 0);
  // waiting_period_threshold is an owner's setting in Zulip, announced as a plain update.
  const res = await t.owner.patch('/realm', { name: 'Renamed Org', waiting_period_threshold: 7, enable_spectator_access: true });
  assert.equal(res.status, 200);
  const evs = (await member.get('/events', { queue_id: reg.body.queue_id, last_event_id: -1, dont_block: true })).body.events;
  assert.ok(evs.some((e: any) => e.type === 'realm' && e.op === 'update' && e.property === 'name' && e.value === 'Renamed Org'));
  assert.ok(evs.some((e: any) => e.type === 'realm' && e.op === 'update' && e.property === 'waiting_period_threshold' && e.value === 7));
  const after = await member.post('/register', { fetch_event_types: ['realm'] });
  assert.equal(after.body.realm_name, 'Renamed Org');
  assert.equal(after.body.realm_enable_spectator_access, true);
  const settings = await member.get('/server_settings');
  assert.equal(settings.body.realm_name, 'Renamed Org');
});

test('PATCH /realm validates values and permissions', async () => {
  const byMember = await member.patch('/realm', { name: 'Mine Now' });
  assert.equal(byMember.status, 400);
  const badPolicy = await admin.patch('/realm', { topics_policy: 'whatever' });
  assert.equal(badPolicy.status, 400);
  const badBool = await admin.patch('/realm', { enable_spectator_access: 'maybe' });
  assert.equal(badBool.status, 400);
  const badInt = await admin.patch('/realm', { waiting_period_threshold: 'soon' });
  assert.equal(badInt.status, 400);
  const longName = await admin.patch('/realm', { name: 'n'.repeat(41) });
  assert.equal(longName.status, 400);
  const ownerOnly = await admin.patch('/realm', { can_create_web_public_channel_group: { new: 1 } });
  assert.equal(ownerOnly.status, 400);
});

test('PATCH /realm group settings: {new, old}, anonymous groups, stale old refused', async () => {
  const groups = (await admin.get('/user_groups')).body.user_groups;
  const id = (name: string) => groups.find((g: any) => g.name === name).id;
  const current = (await admin.post('/register', { fetch_event_types: ['realm'] })).body.realm_can_mention_many_users_group;
  const stale = await admin.patch('/realm', { can_mention_many_users_group: { new: id('role:members'), old: id('role:nobody') } });
  assert.equal(stale.status, 400);
  const ok = await admin.patch('/realm', { can_mention_many_users_group: { new: id('role:members'), old: current } });
  assert.equal(ok.status, 200);
  const anon = await admin.patch('/realm', { can_mention_many_users_group: { new: { direct_members: [member.userId], direct_subgroups: [id('role:moderators')] } } });
  assert.equal(anon.status, 200);
  const state = await admin.post('/register', { fetch_event_types: ['realm'] });
  assert.deepEqual(state.body.realm_can_mention_many_users_group, { direct_members: [member.userId], direct_subgroups: [id('role:moderators')] });
  const badUser = await admin.patch('/realm', { can_mention_many_users_group: { new: { direct_members: [999999], direct_subgroups: [] } } });
  assert.equal(badUser.status, 400);
  const badGroup = await admin.patch('/realm', { can_mention_many_users_group: { new: 999999 } });
  assert.equal(badGroup.status, 400);
  const internet = await admin.patch('/realm', { can_mention_many_users_group: { new: id('role:internet') } });
  assert.equal(internet.status, 400);
  const noNew = await admin.patch('/realm', { can_mention_many_users_group: { old: 1 } });
  assert.equal(noNew.status, 400);
});

test('message flags: star and read, with events, and the unread count follows', async () => {
  const sent = await t.owner.post('/messages', { type: 'stream', to: 'lobby', topic: 'flags', content: 'flag me' });
  const reg = await member.post('/register', { event_types: ['update_message_flags'], fetch_event_types: ['message', 'update_message_flags'] });
  const unreadBefore = reg.body.unread_msgs.count;
  const star = await member.post('/messages/flags', { messages: [sent.body.id], op: 'add', flag: 'starred' });
  assert.equal(star.status, 200);
  assert.deepEqual(star.body.messages, [sent.body.id]);
  const read = await member.post('/messages/flags', { messages: [sent.body.id], op: 'add', flag: 'read' });
  assert.deepEqual(read.body.messages, [sent.body.id]);
  const again = await member.post('/messages/flags', { messages: [sent.body.id], op: 'add', flag: 'read' });
  assert.deepEqual(again.body.messages, [sent.body.id], 'the requested ids are echoed; the event says nothing changed');
  const evs = (await member.get('/events', { queue_id: reg.body.queue_id, last_event_id: -1, dont_block: true })).body.events;
  assert.deepEqual(evs.map((e: any) => [e.type, e.op, e.flag, e.messages]), [
    ['update_message_flags', 'add', 'starred', [sent.body.id]],
    ['update_message_flags', 'add', 'read', [sent.body.id]],
    ['update_message_flags', 'add', 'read', []],
  ]);
  const state = await member.post('/register', { fetch_event_types: ['message', 'update_message_flags', 'starred_messages'] });
  assert.equal(state.body.unread_msgs.count, unreadBefore - 1);
  assert.ok(state.body.starred_messages.includes(sent.body.id));
  const unread = await member.post('/messages/flags', { messages: [sent.body.id], op: 'remove', flag: 'read' });
  assert.equal(unread.status, 200);
  assert.deepEqual(unread.body.ignored_because_not_subscribed_channels, []);
  const starred = await member.get('/messages', { anchor: 'newest', num_before: 10, num_after: 0, narrow: [{ operator: 'is', operand: 'starred' }] });
  assert.deepEqual(starred.body.messages.map((m: any) => m.id), [sent.body.id]);
});

test('message flags: validation and access', async () => {
  const sent = await t.owner.post('/messages', { type: 'direct', to: [admin.userId], content: 'not for rita' });
  const notMine = await member.post('/messages/flags', { messages: [sent.body.id], op: 'add', flag: 'starred' });
  assert.equal(notMine.status, 400);
  const badFlag = await member.post('/messages/flags', { messages: [], op: 'add', flag: 'shiny' });
  assert.equal(badFlag.status, 400);
  const serverFlag = await member.post('/messages/flags', { messages: [], op: 'add', flag: 'mentioned' });
  assert.equal(serverFlag.status, 400);
  const badOp = await member.post('/messages/flags', { messages: [], op: 'toggle', flag: 'read' });
  assert.equal(badOp.status, 400);
  const badList = await member.post('/messages/flags', { messages: '[1,"x"]', op: 'add', flag: 'read' });
  assert.equal(badList.status, 400);
  // Starring a public-channel message from before one's subscription works (historical row).
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'open-history' }] });
  const old = await t.owner.post('/messages', { type: 'stream', to: 'open-history', topic: 't', content: 'old news' });
  const historical = await member.post('/messages/flags', { messages: [old.body.id], op: 'add', flag: 'starred' });
  assert.equal(historical.status, 200);
  assert.deepEqual(historical.body.messages, [old.body.id]);
  const m = await member.get(`/messages/${old.body.id}`);
  assert.deepEqual(m.body.message.flags.sort(), ['historical', 'read', 'starred']);
});

test('recent_private_conversations: every direct conversation of the user, newest first, without the user', async () => {
  const x = await t.createUser({ name: 'Xena Recent' });
  const y = await t.createUser({ name: 'Yuri Recent' });
  const outsider = await t.createUser({ name: 'Olga Outsider' });
  const send = async (from: Client, to: number[], content: string) => {
    const r = await from.post('/messages', { type: 'direct', to, content });
    assert.equal(r.status, 200);
    return r.body.id as number;
  };
  const toY = await send(x, [y.userId], 'one to one');
  const group = await send(y, [x.userId, outsider.userId], 'a group');
  const self = await send(x, [x.userId], 'a note to self');
  await send(outsider, [y.userId], 'not for Xena');
  const lastToY = await send(y, [x.userId], 'answer');
  const res = await x.post('/register', { fetch_event_types: JSON.stringify(['recent_private_conversations']) });
  assert.equal(res.status, 200);
  assert.deepEqual(res.body.recent_private_conversations, [
    { max_message_id: lastToY, user_ids: [y.userId] },
    { max_message_id: self, user_ids: [] },
    { max_message_id: group, user_ids: [y.userId, outsider.userId].sort((a, b) => a - b) },
  ]);
  assert.ok(toY < lastToY);
});
