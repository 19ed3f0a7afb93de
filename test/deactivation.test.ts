// Deactivating accounts: by administrators (with the deletion actions), by oneself, the last-owner
// rules, bots first, keys and long-polls stopping at once, reactivation.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client, startTestServer, type TestServer } from './helpers.js';

let t: TestServer;
let admin: Client;
let member: Client;
before(async () => {
  t = await startTestServer();
  admin = await t.createUser({ role: 'administrator', name: 'Ada Admin' });
  member = await t.createUser({ name: 'Mo Member' });
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'open' }], principals: [t.owner.userId, admin.userId, member.userId] });
});
after(async () => {
  await t.close();
});

test('an administrator deactivates a user: key stops working, long-poll ends, bots go first', async () => {
  const victim = await t.createUser({ name: 'Vic Victim' });
  const bot = await victim.post('/bots', { full_name: 'Vic Bot', short_name: 'vicbot' });
  const botClient = new Client(t.url, (await t.owner.get(`/users/${bot.body.user_id}`)).body.user.email, bot.body.api_key, bot.body.user_id);
  const watch = await member.post('/register', { event_types: ['realm_user'], fetch_event_types: ['realm_user'] });
  const reg = await victim.post('/register', { fetch_event_types: ['message'] });
  const parked = victim.get('/events', { queue_id: reg.body.queue_id, last_event_id: -1 });
  await new Promise((r) => setTimeout(r, 100));
  const res = await admin.delete(`/users/${victim.userId}`, { deactivation_notification_comment: 'bye' });
  assert.equal(res.status, 200);
  const ended = await parked;
  assert.equal(ended.status, 200, 'the parked poll is answered');
  assert.equal((await victim.get('/users/me')).body.msg, 'Account is deactivated');
  assert.equal((await botClient.get('/users/me')).body.msg, 'Account is deactivated', "the user's bot is deactivated too");
  assert.equal((await victim.get('/events', { queue_id: reg.body.queue_id, dont_block: true })).status, 401);
  const evs = (await member.get('/events', { queue_id: watch.body.queue_id, last_event_id: -1, dont_block: true })).body.events;
  const order = evs.filter((e: any) => e.person?.is_active === false).map((e: any) => e.person.user_id);
  assert.deepEqual(order, [bot.body.user_id, victim.userId]);
  const listed = (await member.get(`/users/${victim.userId}`)).body.user;
  assert.equal(listed.is_active, false);
  const again = await admin.delete(`/users/${victim.userId}`);
  assert.equal(again.status, 400);
});

test('deletion actions: profile and messages by kind', async () => {
  const talker = await t.createUser({ name: 'Tal Talker' });
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'open' }], principals: [talker.userId] });
  const pub = await talker.post('/messages', { type: 'stream', to: 'open', topic: 't', content: 'public words' });
  const dm = await talker.post('/messages', { type: 'direct', to: [member.userId], content: 'private words' });
  const q = await member.post('/register', { event_types: ['delete_message'], fetch_event_types: ['message'], client_capabilities: { bulk_message_deletion: true } });
  const res = await admin.delete(`/users/${talker.userId}`, { actions: { delete_profile: true, delete_public_channel_messages: true, delete_direct_messages: false } });
  assert.equal(res.status, 200);
  assert.equal((await member.get(`/messages/${pub.body.id}`)).status, 400, 'the channel message is gone');
  assert.equal((await member.get(`/messages/${dm.body.id}`)).status, 200, 'the direct message stays');
  assert.equal((await member.get(`/users/${talker.userId}`)).body.user.full_name, 'Deleted user');
  const evs = (await member.get('/events', { queue_id: q.body.queue_id, last_event_id: -1, dont_block: true })).body.events;
  assert.ok(evs.some((e: any) => e.type === 'delete_message' && e.message_ids.includes(pub.body.id)));
  const bad = await admin.delete(`/users/${member.userId}`, { actions: { delete_everything: true } });
  assert.equal(bad.status, 400);
});

test('permissions and the last owner', async () => {
  const denied = await member.delete(`/users/${admin.userId}`);
  assert.equal(denied.status, 400);
  const ownerByAdmin = await admin.delete(`/users/${t.owner.userId}`);
  assert.equal(ownerByAdmin.status, 400);
  const lastOwner = await t.owner.delete(`/users/${t.owner.userId}`);
  assert.equal(lastOwner.status, 400);
  assert.equal(lastOwner.body.msg, 'Cannot deactivate the only organization owner');
  const self = await t.owner.delete('/users/me');
  assert.equal(self.status, 400);
  assert.equal(self.body.code, 'CANNOT_DEACTIVATE_LAST_USER');
  assert.equal(self.body.is_last_owner, true);
  assert.equal(self.body.entity, 'organization owner');
  const missing = await admin.delete('/users/999999');
  assert.equal(missing.status, 400);
});

test('self-deactivation, the only user, and reactivation', async () => {
  const leaver = await t.createUser({ name: 'Lee Leaver' });
  assert.equal((await leaver.delete('/users/me')).status, 200);
  assert.equal((await leaver.get('/users/me')).status, 401);
  const notAdmin = await member.post(`/users/${leaver.userId}/reactivate`);
  assert.equal(notAdmin.status, 400);
  const back = await admin.post(`/users/${leaver.userId}/reactivate`);
  assert.equal(back.status, 200);
  assert.equal((await leaver.get('/users/me')).status, 200);
  // Zulip's reactivate_user_backend and do_reactivate_user do not refuse an active account: the
  // reactivation runs again, with its events.
  const watch = await member.post('/register', { event_types: ['realm_user'], fetch_event_types: ['realm_user'] });
  const adminWatch = await admin.post('/register', { event_types: ['realm_export_consent'] });
  const twice = await admin.post(`/users/${leaver.userId}/reactivate`);
  assert.deepEqual([twice.status, twice.body.result], [200, 'success']);
  assert.equal((await leaver.get('/users/me')).status, 200);
  const again = (await member.get('/events', { queue_id: watch.body.queue_id, last_event_id: -1, dont_block: true })).body.events.filter((e: any) => e.type === 'realm_user');
  assert.deepEqual(again.map((e: any) => [e.op, e.person]), [['update', { user_id: leaver.userId, is_active: true }]], 'announced again, once');
  const consent = (await admin.get('/events', { queue_id: adminWatch.body.queue_id, last_event_id: -1, dont_block: true })).body.events.filter((e: any) => e.type === 'realm_export_consent');
  assert.deepEqual(consent.map((e: any) => e.user_id), [leaver.userId]);

  // As Zulip's deactivate_user_own_backend: the only active account is told so (is_last_owner
  // false, 'Cannot deactivate the only user.'); with a bot beside them, the only owner is.
  const solo = await t.createOrg('Solo');
  const alone = await solo.owner.delete('/users/me');
  assert.deepEqual([alone.body.code, alone.body.msg, alone.body.is_last_owner, alone.body.entity], ['CANNOT_DEACTIVATE_LAST_USER', 'Cannot deactivate the only user.', false, 'user']);
  assert.equal((await solo.owner.post('/bots', { full_name: 'Solo Bot', short_name: 'solobot' })).status, 200);
  const withBot = await solo.owner.delete('/users/me');
  assert.deepEqual([withBot.body.code, withBot.body.is_last_owner], ['CANNOT_DEACTIVATE_LAST_USER', true]);
});

test('deactivated subscribers receive no new messages', async () => {
  const quiet = await t.createUser({ name: 'Quinn Quiet' });
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'open' }], principals: [quiet.userId] });
  await admin.delete(`/users/${quiet.userId}`);
  const sent = await member.post('/messages', { type: 'stream', to: 'open', topic: 't', content: 'after quinn left' });
  assert.equal(sent.status, 200);
  await admin.post(`/users/${quiet.userId}/reactivate`);
  const m = await quiet.get(`/messages/${sent.body.id}`);
  assert.deepEqual(m.body.message.flags.sort(), ['historical', 'read'], 'no row of their own: read through channel history');
});

test('deactivating a subscriber: peer_remove for its channels, then realm_user is_active false', async () => {
  const leaver = await t.createUser({ name: 'Lee Leaving' });
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'open' }, { name: 'also-open' }], principals: [leaver.userId] });
  const ids = await Promise.all(['open', 'also-open'].map(async (name) => (await t.owner.get('/get_stream_id', { stream: name })).body.stream_id as number));
  const watch = await member.post('/register', { event_types: ['realm_user', 'subscription'], fetch_event_types: ['realm_user'] });
  assert.equal((await admin.delete(`/users/${leaver.userId}`)).status, 200);
  const evs = (await member.get('/events', { queue_id: watch.body.queue_id, last_event_id: -1, dont_block: true })).body.events;
  // send_events_for_user_deactivation: send_peer_remove_events (one event for channels with the same audience), then the update.
  assert.deepEqual(
    evs.map((e: any) => (e.type === 'subscription' ? [e.op, e.stream_ids, e.user_ids] : [e.op, e.person])),
    [
      ['peer_remove', [...ids].sort((a, b) => a - b), [leaver.userId]],
      ['update', { user_id: leaver.userId, is_active: false }],
    ],
  );
});

test('reactivation: is_active, export consent to administrators, peer_add for its channels, add_members for its groups', async () => {
  const returner = await t.createUser({ name: 'Ray Returning' });
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'open' }], principals: [returner.userId] });
  const openId = (await t.owner.get('/get_stream_id', { stream: 'open' })).body.stream_id;
  const groups = new Map((await t.owner.get('/user_groups')).body.user_groups.map((g: any) => [g.name, g.id]));
  assert.equal((await admin.delete(`/users/${returner.userId}`)).status, 200);
  const watch = await admin.post('/register', { event_types: ['realm_user', 'subscription', 'user_group', 'realm_export_consent'], fetch_event_types: ['realm_user'] });
  assert.equal((await admin.post(`/users/${returner.userId}/reactivate`)).status, 200);
  const evs = (await admin.get('/events', { queue_id: watch.body.queue_id, last_event_id: -1, dont_block: true })).body.events;
  // do_reactivate_user, in its order.
  assert.deepEqual(evs.slice(0, 3).map((e: any) => [e.type, e.op ?? null]), [
    ['realm_user', 'update'],
    ['realm_export_consent', null],
    ['subscription', 'peer_add'],
  ]);
  assert.deepEqual(evs[0].person, { user_id: returner.userId, is_active: true });
  assert.deepEqual([evs[1].user_id, evs[1].consented], [returner.userId, false]);
  assert.deepEqual([evs[2].stream_ids, evs[2].user_ids], [[openId], [returner.userId]]);
  const added = evs.slice(3).map((e: any) => [e.op, e.group_id, e.user_ids]);
  assert.ok(added.length > 0);
  assert.ok(added.every((a: any) => a[0] === 'add_members' && a[2].length === 1 && a[2][0] === returner.userId));
  assert.ok(added.some((a: any) => a[1] === groups.get('role:members')), 'its role group among them');
});

test("deactivation and reactivation check access as Zulip's access_user_by_id(for_admin=True)", async () => {
  const gone = await t.createUser({ name: 'Gus Gone' });
  assert.equal((await admin.delete(`/users/${gone.userId}`)).status, 200);
  // A deactivated target is refused before the caller's rights are looked at, in Zulip's words.
  const again = await member.delete(`/users/${gone.userId}`);
  assert.deepEqual([again.status, again.body.code, again.body.msg], [400, 'BAD_REQUEST', 'User is deactivated']);
  // A member may not administer another person: can_admin_user's refusal, not an administrator-required one.
  const denied = await member.delete(`/users/${admin.userId}`);
  assert.deepEqual([denied.body.code, denied.body.msg], ['BAD_REQUEST', 'Insufficient permission']);
  const missing = await member.post('/users/999999/reactivate');
  assert.equal(missing.body.msg, 'No such user', 'the user is looked up before the rights');
  const notAdmin = await member.post(`/users/${gone.userId}/reactivate`);
  assert.deepEqual([notAdmin.body.code, notAdmin.body.msg], ['BAD_REQUEST', 'Insufficient permission']);
  assert.equal((await admin.post(`/users/${gone.userId}/reactivate`)).status, 200);

  // A bot's owner reactivates their own bot, unless an active account took its name meanwhile.
  const bot = await member.post('/bots', { full_name: 'Echo Bot', short_name: 'echo' });
  assert.equal((await member.delete(`/bots/${bot.body.user_id}`)).status, 200);
  assert.equal((await member.post(`/users/${bot.body.user_id}/reactivate`)).status, 200);
  assert.equal((await member.get(`/users/${bot.body.user_id}`)).body.user.is_active, true);
  // An active bot's own name is taken by an active account: check_bot_name_available refuses it.
  const activeBot = await member.post(`/users/${bot.body.user_id}/reactivate`);
  assert.equal(activeBot.body.msg, 'There is already an active bot named "Echo Bot" in this organization. To reactivate this bot, you must rename or deactivate the other one first.');
  assert.equal((await member.delete(`/bots/${bot.body.user_id}`)).status, 200);
  assert.equal((await member.post('/bots', { full_name: 'Echo Bot', short_name: 'echo2' })).status, 200);
  const taken = await member.post(`/users/${bot.body.user_id}/reactivate`);
  assert.equal(taken.body.msg, 'There is already an active bot named "Echo Bot" in this organization. To reactivate this bot, you must rename or deactivate the other one first.');
});
