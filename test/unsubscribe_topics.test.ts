// Leaving channels (DELETE /users/me/subscriptions) and listing a channel's topics.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type Client, type TestServer, openQueue, queuedEvents } from './helpers.js';

let t: TestServer;
let ann: Client;
let bob: Client;
let admin: Client;
before(async () => {
  t = await startTestServer();
  ann = await t.createUser({ name: 'Ann Leaver' });
  bob = await t.createUser({ name: 'Bob Stayer' });
  admin = await t.createUser({ role: 'administrator', name: 'Ada Admin' });
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'room' }, { name: 'hall' }], principals: [t.owner.userId, ann.userId, bob.userId] });
});
after(async () => {
  await t.close();
});


test('leaving: removed and not_removed, with remove and peer_remove events', async () => {
  const qa = await openQueue(ann, ['subscription']);
  const qb = await openQueue(bob, ['subscription']);
  const res = await ann.delete('/users/me/subscriptions', { subscriptions: ['room'] });
  assert.equal(res.status, 200);
  assert.deepEqual(res.body.removed, ['room']);
  assert.deepEqual(res.body.not_removed, []);
  const again = await ann.delete('/users/me/subscriptions', { subscriptions: ['room', 'hall'] });
  assert.deepEqual(again.body.removed, ['hall']);
  assert.deepEqual(again.body.not_removed, ['room']);
  const mine = await queuedEvents(ann, qa);
  assert.deepEqual(mine.filter((e) => e.op === 'remove').map((e) => e.subscriptions[0].name), ['room', 'hall']);
  const theirs = await queuedEvents(bob, qb);
  const peer = theirs.find((e) => e.op === 'peer_remove');
  assert.ok(peer);
  assert.deepEqual(peer.user_ids, [ann.userId]);
  const subs = (await ann.get('/users/me/subscriptions')).body.subscriptions.map((s: any) => s.name);
  assert.ok(!subs.includes('room') && !subs.includes('hall'));
  const state = await ann.post('/register', { fetch_event_types: ['subscription'] });
  assert.ok(state.body.unsubscribed.some((s: any) => s.name === 'room'));
});

test('leaving several channels at once: one remove event naming them all, one peer_remove for channels with the same audience', async () => {
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'east' }, { name: 'west' }], principals: [t.owner.userId, ann.userId, bob.userId] });
  const ids = await Promise.all(['east', 'west'].map(async (name) => (await t.owner.get('/get_stream_id', { stream: name })).body.stream_id as number));
  const qa = await openQueue(ann, ['subscription', 'stream']);
  const qb = await openQueue(bob, ['subscription']);
  assert.equal((await ann.delete('/users/me/subscriptions', { subscriptions: ['east', 'west'] })).status, 200);
  // Zulip's send_subscription_remove_events: notify_subscriptions_removed sends one event per user.
  const mine = await queuedEvents(ann, qa);
  assert.deepEqual(mine.map((e) => [e.type, e.op, e.subscriptions?.map((s: any) => s.stream_id)]), [['subscription', 'remove', ids]]);
  // send_peer_subscriber_events: public channels with the same leavers share one event.
  const theirs = await queuedEvents(bob, qb);
  assert.deepEqual(theirs.map((e) => [e.op, e.stream_ids, e.user_ids]), [['peer_remove', [...ids].sort((a, b) => a - b), [ann.userId]]]);
});

test('leaving: unknown channels and principals', async () => {
  // Zulip's list_to_streams names every missing channel in one plain error.
  const missing = await ann.delete('/users/me/subscriptions', { subscriptions: ['no-such-room', 'hall', 'nor-this'] });
  assert.deepEqual(missing.body, { result: 'error', msg: 'Channel(s) (no-such-room, nor-this) do not exist', code: 'BAD_REQUEST' });
  assert.equal((await ann.delete('/users/me/subscriptions', { subscriptions: ['  '] })).body.msg, "Channel name can't be empty.");
  const badPrincipal = await admin.delete('/users/me/subscriptions', { subscriptions: ['hall'], principals: [999999] });
  assert.equal(badPrincipal.status, 400);
  assert.equal(badPrincipal.body.code, 'BAD_REQUEST');
  const noList = await ann.delete('/users/me/subscriptions', {});
  assert.equal(noList.body.code, 'REQUEST_VARIABLE_MISSING');
});

test("leaving a private channel one cannot see, as Zulip's remove_subscriptions_backend: a member is told not_removed, or 'Insufficient permission' for others; for a guest it is missing", async () => {
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'hidden' }], invite_only: true, principals: [t.owner.userId, bob.userId] });
  // list_to_streams finds the channel whoever asks; leaving it oneself needs no right, and one is
  // not subscribed. (Subscribing already tells a member that it exists: 'Unable to access channel'.)
  const hidden = await ann.delete('/users/me/subscriptions', { subscriptions: ['hidden'] });
  assert.deepEqual([hidden.status, hidden.body.removed, hidden.body.not_removed], [200, [], ['hidden']]);
  const bySelf = await ann.delete('/users/me/subscriptions', { subscriptions: ['hidden'], principals: [ann.userId] });
  assert.deepEqual(bySelf.body.not_removed, ['hidden']);
  assert.equal((await ann.post('/users/me/subscriptions', { subscriptions: [{ name: 'hidden' }] })).body.msg, 'Unable to access channel (hidden).');
  // Removing someone else needs can_remove_subscribers_from_stream, which needs access.
  const others = await ann.delete('/users/me/subscriptions', { subscriptions: ['hidden'], principals: [bob.userId] });
  assert.deepEqual([others.status, others.body.code, others.body.msg], [400, 'BAD_REQUEST', 'Insufficient permission']);
  assert.ok((await bob.get('/users/me/subscriptions')).body.subscriptions.some((s: any) => s.name === 'hidden'), 'Bob stays');
  // A guest may not subscribe, so nothing else tells them the name: the channel stays missing.
  const guest = await t.createUser({ role: 'guest', name: 'Gia Guest' });
  const byGuest = await guest.delete('/users/me/subscriptions', { subscriptions: ['hidden'] });
  assert.deepEqual([byGuest.status, byGuest.body.msg], [400, 'Channel(s) (hidden) do not exist']);
});

test('removing others: administrators yes, members no, bot owners for their bots', async () => {
  const denied = await ann.delete('/users/me/subscriptions', { subscriptions: ['hall'], principals: [bob.userId] });
  assert.equal(denied.status, 400);
  // The rights over the channels that exist are checked before the missing ones are named.
  const deniedFirst = await ann.delete('/users/me/subscriptions', { subscriptions: ['hall', 'no-such-room'], principals: [bob.userId] });
  assert.equal(deniedFirst.body.msg, 'Insufficient permission');
  const byAdmin = await admin.delete('/users/me/subscriptions', { subscriptions: ['hall'], principals: [bob.email] });
  assert.equal(byAdmin.status, 200);
  assert.deepEqual(byAdmin.body.removed, ['hall']);
  const bot = await ann.post('/bots', { full_name: 'Ann Bot', short_name: 'annbot' });
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'room' }], principals: [bot.body.user_id, ann.userId] });
  const ownBot = await ann.delete('/users/me/subscriptions', { subscriptions: ['room'], principals: [bot.body.user_id] });
  assert.equal(ownBot.status, 200);
  assert.deepEqual(ownBot.body.removed, ['room']);
});

test('leaving a private channel hides it: a stream delete event', async () => {
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'inner-circle' }], principals: [t.owner.userId, ann.userId], invite_only: true });
  const q = await openQueue(ann, ['subscription', 'stream']);
  const res = await ann.delete('/users/me/subscriptions', { subscriptions: ['inner-circle'] });
  assert.equal(res.status, 200);
  const evs = await queuedEvents(ann, q);
  assert.ok(evs.some((e) => e.type === 'stream' && e.op === 'delete'));
  const list = (await ann.get('/streams')).body.streams.map((s: any) => s.name);
  assert.ok(!list.includes('inner-circle'));
});

test("leaving marks the channel's unread messages read, as Zulip's mark_stream_messages_as_read after send_subscription_remove_events", async () => {
  const cal = await t.createUser({ name: 'Cal Reader' });
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'busy' }, { name: 'quiet' }], principals: [t.owner.userId, cal.userId] });
  const first = (await t.owner.post('/messages', { type: 'stream', to: 'busy', topic: 'a', content: 'one' })).body.id;
  const second = (await t.owner.post('/messages', { type: 'stream', to: 'busy', topic: 'b', content: 'two' })).body.id;
  const q = await openQueue(cal, ['subscription', 'update_message_flags']);
  // Removed by an administrator, the same: each removed user's channels are marked read.
  assert.equal((await admin.delete('/users/me/subscriptions', { subscriptions: ['busy'], principals: [cal.userId] })).status, 200);
  const events = await queuedEvents(cal, q);
  const flags = events.filter((e: any) => e.type === 'update_message_flags');
  assert.deepEqual(events[0].op, 'remove', 'after the remove event');
  assert.equal(flags.length, 1);
  assert.deepEqual([flags[0].op, flags[0].flag, flags[0].all], ['add', 'read', false]);
  assert.ok(flags[0].messages.includes(first) && flags[0].messages.includes(second));
  for (const id of [first, second]) assert.ok((await cal.get(`/messages/${id}`)).body.message.flags.includes('read'));
  // A channel with nothing unread sends no flags event.
  await t.owner.post('/messages', { type: 'stream', to: 'quiet', topic: 'c', content: 'x' });
  assert.equal((await cal.post('/mark_stream_as_read', { stream_id: (await cal.get('/get_stream_id', { stream: 'quiet' })).body.stream_id })).status, 200);
  const q2 = await openQueue(cal, ['update_message_flags']);
  assert.equal((await cal.delete('/users/me/subscriptions', { subscriptions: ['quiet'] })).status, 200);
  assert.deepEqual(await queuedEvents(cal, q2), []);
});

test('topics: newest first, with max_id, the empty topic by its display name', async () => {
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'topical' }], principals: [bob.userId] });
  const id = (await bob.get('/get_stream_id', { stream: 'topical' })).body.stream_id;
  const a1 = await bob.post('/messages', { type: 'stream', to: 'topical', topic: 'alpha', content: '1' });
  const b1 = await bob.post('/messages', { type: 'stream', to: 'topical', topic: 'beta', content: '2' });
  const a2 = await bob.post('/messages', { type: 'stream', to: 'topical', topic: 'Alpha', content: '3' });
  const e1 = await bob.post('/messages', { type: 'stream', to: 'topical', topic: '', content: '4' });
  const res = await bob.get(`/users/me/${id}/topics`);
  assert.equal(res.status, 200);
  assert.deepEqual(res.body.topics, [
    { name: 'general chat', max_id: e1.body.id },
    { name: 'Alpha', max_id: a2.body.id },
    { name: 'beta', max_id: b1.body.id },
    // The Notification Bot's message from the channel's creation.
    { name: 'channel events', max_id: (await bob.get(`/streams/${id}`)).body.stream.first_message_id },
  ]);
  assert.ok(a1.body.id < a2.body.id);
  const raw = await bob.get(`/users/me/${id}/topics`, { allow_empty_topic_name: true });
  assert.equal(raw.body.topics[0].name, '');
  const missing = await bob.get('/users/me/999999/topics');
  assert.equal(missing.status, 400);
  assert.equal(missing.body.code, 'BAD_REQUEST');
});

test('topics of a private channel with protected history: only what the user received', async () => {
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'vault' }], invite_only: true, history_public_to_subscribers: false });
  const id = (await t.owner.get('/get_stream_id', { stream: 'vault' })).body.stream_id;
  await t.owner.post('/messages', { type: 'stream', to: 'vault', topic: 'before', content: 'early' });
  const outsider = await bob.get(`/users/me/${id}/topics`);
  const missing = await bob.get('/users/me/999999/topics');
  assert.deepEqual(outsider.body, missing.body, 'inaccessible and missing channels look alike');
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'vault' }], principals: [bob.userId] });
  await t.owner.post('/messages', { type: 'stream', to: 'vault', topic: 'after', content: 'late' });
  const res = await bob.get(`/users/me/${id}/topics`);
  assert.deepEqual(res.body.topics.map((x: any) => x.name), ['after']);
});
