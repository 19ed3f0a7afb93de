// Presence reports and typing notifications.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type Client, openQueue, queuedEvents, testServerFor } from './helpers.js';

const t = testServerFor({ ann: { name: 'Ann Present' }, bob: { name: 'Bob Watcher' } });

test('presence: report, read back in both formats, announce to others', async () => {
  const q = await openQueue(t.bob, ['presence']);
  const res = await t.ann.post('/users/me/presence', { status: 'active', last_update_id: -1 });
  assert.equal(res.status, 200);
  const mine = res.body.presences[String(t.ann.userId)];
  assert.ok(mine.active_timestamp > 0 && mine.idle_timestamp > 0);
  assert.ok(res.body.presence_last_update_id >= 1);
  const legacy = await t.bob.post('/users/me/presence', { status: 'idle' });
  assert.equal(legacy.body.presences[t.ann.email].aggregated.status, 'active');
  assert.equal(legacy.body.presences[t.bob.email].website.status, 'idle');
  const realm = await t.bob.get('/realm/presence');
  assert.ok(realm.body.presences[t.ann.email]);
  const one = await t.bob.get(`/users/${t.ann.userId}/presence`);
  assert.equal(one.body.presence.aggregated.status, 'active');
  const byEmail = await t.bob.get(`/users/${encodeURIComponent(t.ann.email)}/presence`);
  assert.equal(byEmail.status, 200);
  const ping = await t.ann.post('/users/me/presence', { status: 'active', ping_only: true });
  assert.deepEqual(ping.body, { result: 'success', msg: '' }, 'a ping answers with neither presences nor server_timestamp');
  // The legacy format carries the update id too; a client already up to date gets its own id back.
  assert.equal(typeof legacy.body.presence_last_update_id, 'number');
  const upToDate = (await t.ann.post('/users/me/presence', { status: 'active', last_update_id: -1 })).body.presence_last_update_id;
  const again = await t.ann.post('/users/me/presence', { status: 'active', last_update_id: upToDate + 1000, history_limit_days: 0 });
  assert.deepEqual([again.body.presences, again.body.presence_last_update_id], [{}, upToDate + 1000]);
  const evs = await queuedEvents(t.bob, q);
  assert.ok(evs.some((e: any) => e.type === 'presence' && e.user_id === t.ann.userId && e.presence.website.status === 'active'));
  const state = await t.bob.post('/register', { fetch_event_types: ['presence'], slim_presence: true });
  assert.ok(state.body.presences[String(t.ann.userId)]);
  assert.equal((await t.ann.post('/users/me/presence', { status: 'away' })).status, 400);
  assert.equal((await t.ann.post('/users/me/presence', {})).body.code, 'REQUEST_VARIABLE_MISSING');
});

test('typing: direct and channel notifications reach the others, not the typist', async () => {
  const qb = await openQueue(t.bob, ['typing']);
  const qa = await openQueue(t.ann, ['typing']);
  assert.equal((await t.ann.post('/typing', { op: 'start', to: [t.bob.userId] })).status, 200);
  assert.equal((await t.ann.post('/typing', { type: 'direct', op: 'stop', to: [t.bob.userId] })).status, 200);
  const evs = await queuedEvents(t.bob, qb);
  assert.deepEqual(evs.map((e: any) => [e.type, e.op, e.message_type, e.sender.user_id]), [
    ['typing', 'start', 'direct', t.ann.userId],
    ['typing', 'stop', 'direct', t.ann.userId],
  ]);
  assert.deepEqual(evs[0].recipients.map((r: any) => r.user_id).sort(), [t.ann.userId, t.bob.userId].sort());
  assert.deepEqual(await queuedEvents(t.ann, qa), []);
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'typing-room' }], principals: [t.ann.userId, t.bob.userId] });
  const id = (await t.ann.get('/get_stream_id', { stream: 'typing-room' })).body.stream_id;
  assert.equal((await t.ann.post('/typing', { type: 'stream', op: 'start', stream_id: id, topic: 'hello' })).status, 200);
  const channelEvs = await queuedEvents(t.bob, qb);
  const last = channelEvs[channelEvs.length - 1];
  assert.deepEqual([last.message_type, last.stream_id, last.topic], ['stream', id, 'hello']);
  assert.equal((await t.ann.post('/typing', { op: 'begin', to: [t.bob.userId] })).status, 400);
  assert.deepEqual((await t.ann.post('/typing', { op: 'start', to: [999999] })).body.msg, 'Invalid user ID 999999');
  // check_send_typing_notification takes any account of the organization, deactivated or a system
  // bot (get_user_by_id_in_realm_including_cross_realm); the active others are told.
  const gone = await t.createUser({ name: 'Gone Typist' });
  assert.equal((await t.owner.delete(`/users/${gone.userId}`)).status, 200);
  assert.equal((await t.ann.post('/typing', { op: 'start', to: [t.bob.userId, gone.userId] })).status, 200);
  const group = (await queuedEvents(t.bob, qb)).filter((e: any) => e.message_type === 'direct').pop();
  assert.deepEqual(group.recipients.map((r: any) => r.user_id).sort((a: number, b: number) => a - b), [t.ann.userId, t.bob.userId, gone.userId].sort((a, b) => a - b));
  const notificationBot = (await t.ann.get(`/users/${encodeURIComponent('notification-bot@zulip.com')}`)).body.user.user_id;
  assert.equal((await t.ann.post('/typing', { op: 'start', to: [notificationBot] })).status, 200);
  assert.equal((await t.ann.post('/typing', { type: 'stream', op: 'start', stream_id: 999999, topic: 't' })).status, 400);
});

test("presence and bots, and deactivated users, as Zulip's zerver/views/presence.py", async () => {
  const made = await t.ann.post('/bots', { full_name: 'Presence Bot', short_name: 'presencebot' });
  const email = (await t.ann.get(`/users/${made.body.user_id}`)).body.user.email;
  const bot = new (t.ann.constructor as any)(t.url, email, made.body.api_key, made.body.user_id) as Client;
  // update_active_status_backend is @human_users_only.
  assert.equal((await bot.post('/users/me/presence', { status: 'active' })).body.msg, 'This endpoint does not accept bot requests.');
  // get_presence_backend: no presence for bots; a deactivated user is no such user (get_active_user).
  assert.equal((await t.ann.get(`/users/${made.body.user_id}/presence`)).body.msg, 'Presence is not supported for bot users.');
  const gone = await t.createUser({ name: 'Gone Present' });
  assert.equal((await gone.post('/users/me/presence', { status: 'active' })).status, 200);
  assert.equal((await t.owner.delete(`/users/${gone.userId}`)).status, 200);
  assert.equal((await t.ann.get(`/users/${gone.userId}/presence`)).body.msg, 'No such user');
});

test("presence and typing refusals carry Zulip's texts", async () => {
  const cat = await t.createUser({ name: 'Cat Silent' });
  // Zulip names the user as the request did, by ID or by email.
  const byId = await t.ann.get(`/users/${cat.userId}/presence`);
  assert.deepEqual([byId.status, byId.body.code, byId.body.msg], [400, 'BAD_REQUEST', `No presence data for ${cat.userId}`]);
  const byEmail = await t.ann.get(`/users/${encodeURIComponent(cat.email)}/presence`);
  assert.equal(byEmail.body.msg, `No presence data for ${cat.email}`);
  // A channel notification without its channel or its topic: BAD_REQUEST with the texts of Zulip's
  // send_notification_backend. The channel is stream_id alone: 'to' is ignored for both channel
  // types (since feature level 215), and 'private' is no longer a type.
  const id = (await t.ann.get('/get_stream_id', { stream: 'typing-room' })).body.stream_id;
  for (const type of ['channel', 'stream']) {
    const noChannel = await t.ann.post('/typing', { type, op: 'start', topic: 't' });
    assert.deepEqual([noChannel.status, noChannel.body.code, noChannel.body.msg], [400, 'BAD_REQUEST', "Missing 'stream_id' argument"], type);
    const toOnly = await t.ann.post('/typing', { type, op: 'start', to: [id], topic: 't' });
    assert.deepEqual([toOnly.status, toOnly.body.msg], [400, "Missing 'stream_id' argument"], `${type} with the channel in 'to'`);
    // stream_id is Json[int | None] = None: null is as if it were left out.
    const nullChannel = await t.ann.post('/typing', { type, op: 'start', stream_id: 'null', topic: 't' });
    assert.deepEqual([nullChannel.status, nullChannel.body.code, nullChannel.body.msg], [400, 'BAD_REQUEST', "Missing 'stream_id' argument"], `${type} with stream_id null`);
  }
  const privateType = await t.ann.post('/typing', { type: 'private', op: 'start', to: [t.bob.userId] });
  assert.deepEqual([privateType.status, privateType.body.code, privateType.body.msg], [400, 'BAD_REQUEST', 'Invalid type']);
  const noTopic = await t.ann.post('/typing', { type: 'stream', op: 'start', stream_id: id });
  assert.deepEqual([noTopic.status, noTopic.body.code, noTopic.body.msg], [400, 'BAD_REQUEST', 'Missing topic']);
  // Direct: a missing or empty list.
  const noTo = await t.ann.post('/typing', { op: 'start' });
  assert.deepEqual([noTo.status, noTo.body.code, noTo.body.msg], [400, 'BAD_REQUEST', "Missing 'to' argument"]);
  const nullTo = await t.ann.post('/typing', { op: 'start', to: 'null' });
  assert.deepEqual([nullTo.status, nullTo.body.code, nullTo.body.msg], [400, 'BAD_REQUEST', "Missing 'to' argument"], 'to is Json[list[int] | None]');
  const emptyTo = await t.ann.post('/typing', { op: 'start', to: [] });
  assert.deepEqual([emptyTo.status, emptyTo.body.code, emptyTo.body.msg], [400, 'BAD_REQUEST', "Empty 'to' list"]);
  // The sender's own settings turned off: refused, and nobody is told.
  const qb = await openQueue(t.bob, ['typing']);
  await cat.patch('/settings', { send_private_typing_notifications: false, send_stream_typing_notifications: false });
  const dmOff = await cat.post('/typing', { op: 'start', to: [t.bob.userId] });
  assert.deepEqual([dmOff.status, dmOff.body.msg], [400, 'User has disabled typing notifications for direct messages']);
  const channelOff = await cat.post('/typing', { type: 'stream', op: 'start', stream_id: id, topic: 'hello' });
  assert.deepEqual([channelOff.status, channelOff.body.msg], [400, 'User has disabled typing notifications for channel messages']);
  assert.deepEqual(await queuedEvents(t.bob, qb), []);
});

test('register: presence_last_update_id is -1 until someone reports, then the newest update', async () => {
  const { owner } = await t.createOrg('Quiet Org');
  const before = await owner.post('/register', { fetch_event_types: ['presence'], slim_presence: true });
  assert.deepEqual([before.body.presences, before.body.presence_last_update_id], [{}, -1]);
  const id = (await owner.post('/users/me/presence', { status: 'active', slim_presence: true })).body.presence_last_update_id;
  const after = await owner.post('/register', { fetch_event_types: ['presence'], slim_presence: true });
  assert.equal(after.body.presence_last_update_id, id);
});
