// Moving messages between channels: propagation, permissions, time limits, who gains and loses
// the messages, edit history, Notification Bot breadcrumbs, resolving topics, visibility policies.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openQueue, queuedEvents, sendToChannel, startTestServer, type Client, type TestServer } from './helpers.js';
import { backdateMessage } from './beyond_api.js';

let t: TestServer;
let ann: Client;
let bob: Client;
let cat: Client;
let admin: Client;
let groups: Record<string, number>;
const ids: Record<string, number> = {};

before(async () => {
  t = await startTestServer();
  ann = await t.createUser({ name: 'Ann Mover' });
  bob = await t.createUser({ name: 'Bob Old' });
  cat = await t.createUser({ name: 'Cat New' });
  admin = await t.createUser({ role: 'administrator', name: 'Ada Admin' });
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'origin' }], principals: [ann.userId, bob.userId, admin.userId] });
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'destination' }], principals: [ann.userId, cat.userId, admin.userId] });
  for (const name of ['origin', 'destination']) ids[name] = (await ann.get('/get_stream_id', { stream: name })).body.stream_id;
  // The channels start empty, without the Notification Bot's channel-created messages: the tests
  // move their oldest messages.
  for (const name of ['origin', 'destination']) {
    const res = await t.owner.post(`/streams/${ids[name]}/delete_topic`, { topic_name: 'channel events' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
  }
  groups = Object.fromEntries((await ann.get('/user_groups')).body.user_groups.map((g: any) => [g.name, g.id]));
});
after(async () => {
  await t.close();
});

const latest = async (c: Client, stream: string, topic: string) =>
  (await c.get('/messages', { anchor: 'newest', num_before: 20, num_after: 0, narrow: [{ operator: 'channel', operand: stream }, { operator: 'topic', operand: topic }] })).body.messages;

test('change_all to another channel with a new topic: events, locations, history, breadcrumbs', async () => {
  const m1 = await sendToChannel(ann, 'origin', 'plans', 'first');
  const m2 = await sendToChannel(bob, 'origin', 'plans', 'second');
  const qb = await openQueue(bob, ['update_message', 'delete_message']);
  const qc = await openQueue(cat, ['update_message', 'message']);
  const qu = await openQueue(cat, ['realm_user']);
  const qs = await openQueue(ann, ['stream']);
  const res = await ann.patch(`/messages/${m2}`, {
    stream_id: ids.destination,
    topic: 'moved plans',
    propagate_mode: 'change_all',
    send_notification_to_old_thread: true,
    send_notification_to_new_thread: true,
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual(res.body.detached_uploads, []);

  const [ev] = (await queuedEvents(bob, qb)).filter((e: any) => e.type === 'update_message');
  assert.equal(ev.stream_id, ids.origin);
  assert.equal(ev.stream_name, 'origin');
  assert.equal(ev.new_stream_id, ids.destination);
  assert.equal(ev.orig_subject, 'plans');
  assert.equal(ev.subject, 'moved plans');
  assert.equal(ev.propagate_mode, 'change_all');
  assert.deepEqual(ev.message_ids, [m1, m2]);
  assert.equal(ev.user_id, ann.userId);
  // Cat, subscribed only to the destination, is told of the messages arriving.
  const catEvents = await queuedEvents(cat, qc);
  assert.ok(catEvents.some((e: any) => e.type === 'update_message' && e.new_stream_id === ids.destination), 'new subscribers see the move');

  // The Notification Bot is a system bot every organization shares: no realm_user event for it.
  assert.deepEqual(await queuedEvents(cat, qu), []);
  const moved = await cat.get(`/messages/${m1}`);
  assert.equal(moved.status, 200);
  assert.equal(moved.body.message.stream_id, ids.destination);
  assert.equal(moved.body.message.display_recipient, 'destination');
  assert.equal(moved.body.message.subject, 'moved plans');
  const history = (await ann.get(`/messages/${m1}/history`)).body.message_history;
  assert.equal(history.length, 2);
  assert.equal(history[1].prev_stream, ids.origin);
  assert.equal(history[1].stream, ids.destination);
  assert.equal(history[1].prev_topic, 'plans');
  assert.equal(history[1].topic, 'moved plans');

  const annMention = `@_**Ann Mover|${ann.userId}**`;
  const newThread = await latest(cat, 'destination', 'moved plans');
  const notice = newThread.at(-1);
  assert.equal(notice.sender_full_name, 'Notification Bot');
  assert.equal(notice.sender_email, 'notification-bot@zulip.com');
  const raw = (await cat.get(`/messages/${notice.id}`)).body.raw_content;
  assert.equal(raw, `This topic was moved here from #**origin>plans** by ${annMention}.`);
  assert.match(notice.content, /class="stream-topic"/);
  assert.match(notice.content, /user-mention silent/);
  const oldThread = await latest(bob, 'origin', 'plans');
  assert.equal(oldThread.length, 1, 'only the breadcrumb is left');
  // Both channels' oldest messages changed: the origin's first message is now its breadcrumb.
  const firstIds = (await queuedEvents(ann, qs)).filter((e: any) => e.property === 'first_message_id');
  assert.deepEqual(firstIds.map((e: any) => [e.stream_id, e.value]), [[ids.origin, oldThread[0].id], [ids.destination, m1]]);
  assert.equal((await bob.get(`/messages/${oldThread[0].id}`)).body.raw_content, `This topic was moved to #**destination>moved plans** by ${annMention}.`);
  // The notices are read for the mover, unread for others.
  assert.ok(notice.flags.includes('read') === false);
  const annView = await latest(ann, 'destination', 'moved plans');
  assert.ok(annView.at(-1).flags.includes('read'));
});

test('change_one and change_later: only those messages move; breadcrumb texts count them', async () => {
  const a = await sendToChannel(ann, 'origin', 'split', 'a');
  const b = await sendToChannel(ann, 'origin', 'split', 'b');
  const c = await sendToChannel(ann, 'origin', 'split', 'c');
  assert.equal((await ann.patch(`/messages/${a}`, { stream_id: ids.destination, send_notification_to_old_thread: true })).status, 200);
  const annMention = `@_**Ann Mover|${ann.userId}**`;
  const dest = await latest(ann, 'destination', 'split');
  assert.deepEqual(dest.slice(0, 1).map((m: any) => m.id), [a]);
  const newNotice = (await ann.get(`/messages/${dest.at(-1).id}`)).body.raw_content;
  assert.match(newNotice, new RegExp(`^\\[A message\\]\\(http://[^)]+/#narrow/channel/${ids.destination}-destination/topic/split/near/${a}\\) was moved here from #\\*\\*origin>split\\*\\* by ${annMention.replace(/[*|]/g, '\\$&')}\\.$`));
  let old = await latest(ann, 'origin', 'split');
  assert.equal((await ann.get(`/messages/${old.at(-1).id}`)).body.raw_content, `A message was moved from this topic to #**destination>split** by ${annMention}.`);
  // change_later from b: b, c and the breadcrumb move; nothing visible is left, so it reads as the whole topic.
  assert.equal((await ann.patch(`/messages/${b}`, { stream_id: ids.destination, propagate_mode: 'change_later', send_notification_to_old_thread: true, send_notification_to_new_thread: false })).status, 200);
  old = await latest(ann, 'origin', 'split');
  assert.equal(old.length, 1);
  assert.equal((await ann.get(`/messages/${old[0].id}`)).body.raw_content, `This topic was moved to #**destination>split** by ${annMention}.`);
  const now = await latest(ann, 'destination', 'split');
  assert.ok([b, c].every((id) => now.some((m: any) => m.id === id)));
  const three = [await sendToChannel(ann, 'origin', 'many', '1'), await sendToChannel(ann, 'origin', 'many', '2'), await sendToChannel(ann, 'origin', 'many', '3')];
  assert.equal((await ann.patch(`/messages/${three[1]}`, { stream_id: ids.destination, propagate_mode: 'change_later', send_notification_to_old_thread: true })).status, 200);
  old = await latest(ann, 'origin', 'many');
  assert.equal((await ann.get(`/messages/${old.at(-1).id}`)).body.raw_content, `2 messages were moved from this topic to #**destination>many** by ${annMention}.`);
  const moved = await latest(ann, 'destination', 'many');
  assert.equal((await ann.get(`/messages/${moved.at(-1).id}`)).body.raw_content, `2 messages were moved here from #**origin>many** by ${annMention}.`);
});

test('moving to a private channel: those not subscribed lose the messages (delete_message); its subscribers gain them', async () => {
  await admin.post('/users/me/subscriptions', { subscriptions: [{ name: 'vault' }], invite_only: true, history_public_to_subscribers: false, principals: [ann.userId, cat.userId, admin.userId] });
  const vault = (await admin.get('/get_stream_id', { stream: 'vault' })).body.stream_id;
  const m = await sendToChannel(ann, 'origin', 'secretive', 'soon private');
  const qb = await openQueue(bob, ['update_message', 'delete_message']);
  assert.equal((await ann.patch(`/messages/${m}`, { stream_id: vault, send_notification_to_new_thread: false })).status, 200);
  const evs = await queuedEvents(bob, qb);
  assert.deepEqual(
    evs.map((e: any) => [e.type, e.message_ids, e.stream_id, e.topic]),
    [['delete_message', [m], ids.origin, 'secretive']],
  );
  assert.equal((await bob.get(`/messages/${m}`)).status, 400);
  // Cat never received it, but as a subscriber of the protected-history channel now holds it.
  const forCat = await cat.get(`/messages/${m}`);
  assert.equal(forCat.status, 200);
  assert.ok(forCat.body.message.flags.includes('read'));
});

test('guests lose messages moved to a public channel they are not in', async () => {
  const guest = await t.createUser({ role: 'guest', name: 'Gus Guest' });
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'origin' }], principals: [guest.userId] });
  const m = await sendToChannel(ann, 'origin', 'guests', 'for the guest too');
  const qg = await openQueue(guest, ['delete_message', 'update_message']);
  const qb = await openQueue(bob, ['delete_message', 'update_message']);
  assert.equal((await ann.patch(`/messages/${m}`, { stream_id: ids.destination, send_notification_to_new_thread: false })).status, 200);
  assert.deepEqual((await queuedEvents(guest, qg)).map((e: any) => e.type), ['delete_message']);
  assert.deepEqual((await queuedEvents(bob, qb)).map((e: any) => e.type), ['update_message'], 'members still read it in the public channel');
  assert.equal((await guest.get(`/messages/${m}`)).status, 400);
  assert.equal((await bob.get(`/messages/${m}`)).status, 200);
});

test('refusals: direct messages, content with a channel, bad channels, permissions', async () => {
  const m = await sendToChannel(ann, 'origin', 'rules', 'x');
  const dm = (await ann.post('/messages', { type: 'direct', to: [bob.userId], content: 'dm' })).body.id;
  const expect = async (c: Client, id: number, params: Record<string, unknown>, msg: string) => {
    const res = await c.patch(`/messages/${id}`, params as any);
    assert.deepEqual([res.status, res.body.result, res.body.msg], [400, 'error', msg], JSON.stringify(params));
  };
  await expect(ann, dm, { stream_id: ids.destination }, 'Direct messages cannot be moved to channels.');
  await expect(ann, dm, { topic: 'nope' }, 'Direct messages cannot have topics.');
  await expect(ann, m, { stream_id: ids.destination, content: 'new' }, 'Cannot change message content while changing channel');
  await expect(ann, m, { stream_id: 999999 }, 'Invalid channel ID');
  await expect(ann, m, { topic: ' rules ' }, 'Nothing to change');
  await expect(ann, m, { content: 'y', propagate_mode: 'change_all' }, 'Invalid propagate_mode without topic edit');
  await expect(ann, m, { topic: '✔ ' }, 'General chat cannot be marked as resolved');
  await admin.post('/users/me/subscriptions', { subscriptions: [{ name: 'hidden-dest' }], invite_only: true });
  const hidden = (await admin.get('/get_stream_id', { stream: 'hidden-dest' })).body.stream_id;
  await expect(ann, m, { stream_id: hidden }, 'Invalid channel ID');
  assert.equal((await ann.patch(`/messages/${m}`, { stream_id: 'abc' })).status, 400);
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'attic' }], principals: [ann.userId] });
  const attic = (await ann.get('/get_stream_id', { stream: 'attic' })).body.stream_id;
  assert.equal((await t.owner.delete(`/streams/${attic}`)).status, 200);
  await expect(ann, m, { stream_id: attic }, 'Invalid channel ID');

  // Organization setting: only administrators move between channels.
  assert.equal((await t.owner.patch('/realm', { can_move_messages_between_channels_group: { new: groups['role:administrators'] } })).status, 200);
  await expect(ann, m, { stream_id: ids.destination }, "You don't have permission to move this message");
  // A channel can let more people move messages out of it.
  assert.equal((await t.owner.patch(`/streams/${ids.origin}`, { can_move_messages_out_of_channel_group: { new: groups['role:members'] } })).status, 200);
  assert.equal((await ann.patch(`/messages/${m}`, { stream_id: ids.destination, send_notification_to_new_thread: false })).status, 200);
  assert.equal((await t.owner.patch(`/streams/${ids.origin}`, { can_move_messages_out_of_channel_group: { new: groups['role:nobody'] } })).status, 200);
  assert.equal((await t.owner.patch('/realm', { can_move_messages_between_channels_group: { new: groups['role:members'] } })).status, 200);

  // The destination's posting permission applies.
  const m2 = await sendToChannel(ann, 'origin', 'rules', 'y');
  assert.equal((await t.owner.patch(`/streams/${ids.destination}`, { can_send_message_group: { new: groups['role:administrators'] } })).status, 200);
  await expect(ann, m2, { stream_id: ids.destination }, 'You do not have permission to post in this channel.');
  assert.equal((await admin.patch(`/messages/${m2}`, { stream_id: ids.destination, send_notification_to_new_thread: false })).status, 200);
  assert.equal((await t.owner.patch(`/streams/${ids.destination}`, { can_send_message_group: { new: groups['role:everyone'] } })).status, 200);
});

test('time limits: one message, and change_all reporting the part that may move', async () => {
  assert.equal((await t.owner.patch('/realm', { move_messages_between_streams_limit_seconds: 3600 })).status, 200);
  const oldOne = await sendToChannel(ann, 'origin', 'aging', 'old');
  const newer = await sendToChannel(ann, 'origin', 'aging', 'newer');
  const newest = await sendToChannel(ann, 'origin', 'aging', 'newest');
  await backdateMessage(t, oldOne, 7200);
  const single = await ann.patch(`/messages/${oldOne}`, { stream_id: ids.destination });
  assert.deepEqual([single.status, single.body.msg], [400, "The time limit for editing this message's channel has passed"]);
  const all = await ann.patch(`/messages/${newest}`, { stream_id: ids.destination, propagate_mode: 'change_all' });
  assert.equal(all.status, 400);
  assert.equal(all.body.code, 'MOVE_MESSAGES_TIME_LIMIT_EXCEEDED');
  assert.equal(all.body.msg, 'You only have permission to move the 2/3 most recent messages in this topic.');
  assert.equal(all.body.first_message_id_allowed_to_move, newer);
  assert.equal(all.body.total_messages_in_topic, 3);
  assert.equal(all.body.total_messages_allowed_to_move, 2);
  // What the error suggests works; moderators and administrators have no limit.
  assert.equal((await ann.patch(`/messages/${newer}`, { stream_id: ids.destination, propagate_mode: 'change_later', send_notification_to_new_thread: false })).status, 200);
  assert.equal((await admin.patch(`/messages/${oldOne}`, { stream_id: ids.destination, propagate_mode: 'change_all', send_notification_to_new_thread: false })).status, 200);
  // The topic limit applies to topic moves in the same way.
  assert.equal((await t.owner.patch('/realm', { move_messages_within_stream_limit_seconds: 3600, move_messages_between_streams_limit_seconds: 'unlimited' })).status, 200);
  const stale = await sendToChannel(ann, 'origin', 'aging2', 'x');
  await backdateMessage(t, stale, 7200);
  const topicMove = await ann.patch(`/messages/${stale}`, { topic: 'renamed' });
  assert.deepEqual([topicMove.status, topicMove.body.msg], [400, "The time limit for editing this message's topic has passed."]);
  assert.equal((await t.owner.patch('/realm', { move_messages_within_stream_limit_seconds: 'unlimited' })).status, 200);
});

test('resolving a topic: the notice, undo within the grace period, permission', async () => {
  const first = await sendToChannel(ann, 'origin', 'bug 7', 'broken');
  await sendToChannel(bob, 'origin', 'bug 7', 'fixed now');
  const q = await openQueue(bob, ['message', 'update_message', 'delete_message']);
  assert.equal((await ann.patch(`/messages/${first}`, { topic: '✔ bug 7', propagate_mode: 'change_all' })).status, 200);
  const evs = await queuedEvents(bob, q);
  assert.deepEqual(evs.map((e: any) => e.type), ['update_message', 'message']);
  assert.equal(evs[0].subject, '✔ bug 7');
  const notice = evs[1].message;
  assert.equal(notice.subject, '✔ bug 7');
  assert.equal(notice.sender_email, 'notification-bot@zulip.com');
  assert.equal((await bob.get(`/messages/${notice.id}`)).body.raw_content, `@_**Ann Mover|${ann.userId}** has marked this topic as resolved.`);
  // Bob does not follow the topic: by default the notice arrives read for him.
  assert.ok(evs[1].flags.includes('read'));
  // Unresolving right away removes the notice instead of posting another.
  const q2 = await openQueue(bob, ['message', 'update_message', 'delete_message']);
  assert.equal((await ann.patch(`/messages/${first}`, { topic: 'bug 7', propagate_mode: 'change_all' })).status, 200);
  const evs2 = await queuedEvents(bob, q2);
  assert.deepEqual(evs2.map((e: any) => e.type), ['update_message', 'delete_message']);
  assert.deepEqual(evs2[1].message_ids, [notice.id]);
  assert.equal((await latest(bob, 'origin', 'bug 7')).length, 2);
  // Resolving needs can_resolve_topics_group, not the topic-move permission.
  assert.equal((await t.owner.patch('/realm', { can_resolve_topics_group: { new: groups['role:administrators'] } })).status, 200);
  const denied = await ann.patch(`/messages/${first}`, { topic: '✔ bug 7', propagate_mode: 'change_all' });
  assert.deepEqual([denied.status, denied.body.msg], [400, "You don't have permission to resolve topics in this channel."]);
  assert.equal((await t.owner.patch('/realm', { can_resolve_topics_group: { new: groups['role:everyone'] } })).status, 200);
});

test('visibility policies follow a topic moved whole', async () => {
  const m = await sendToChannel(ann, 'origin', 'followed', 'x');
  assert.equal((await bob.post('/user_topics', { stream_id: ids.origin, topic: 'followed', visibility_policy: 3 })).status, 200);
  const q = await openQueue(bob, ['user_topic']);
  assert.equal((await admin.patch(`/messages/${m}`, { stream_id: ids.destination, topic: 'followed elsewhere', propagate_mode: 'change_all', send_notification_to_new_thread: false })).status, 200);
  const evs = await queuedEvents(bob, q);
  assert.deepEqual(
    evs.map((e: any) => [e.stream_id, e.topic_name, e.visibility_policy]),
    [
      [ids.origin, 'followed', 0],
      [ids.destination, 'followed elsewhere', 3],
    ],
  );
});

test('topic moves within a channel: permissions by organization and channel, breadcrumbs, history on every moved message', async () => {
  const a = await sendToChannel(bob, 'origin', 'renameme', 'one');
  const b = await sendToChannel(bob, 'origin', 'RENAMEME', 'two');
  assert.equal((await t.owner.patch('/realm', { can_move_messages_between_topics_group: { new: groups['role:administrators'] } })).status, 200);
  const denied = await bob.patch(`/messages/${a}`, { topic: 'renamed', propagate_mode: 'change_all' });
  assert.deepEqual([denied.status, denied.body.msg], [400, "You don't have permission to edit this message"], 'being the sender is not enough');
  assert.equal((await t.owner.patch(`/streams/${ids.origin}`, { can_move_messages_within_channel_group: { new: groups['role:members'] } })).status, 200);
  const ok = await bob.patch(`/messages/${a}`, { topic: 'renamed', propagate_mode: 'change_all', send_notification_to_old_thread: true });
  assert.equal(ok.status, 200);
  assert.equal((await t.owner.patch(`/streams/${ids.origin}`, { can_move_messages_within_channel_group: { new: groups['role:nobody'] } })).status, 200);
  assert.equal((await t.owner.patch('/realm', { can_move_messages_between_topics_group: { new: groups['role:everyone'] } })).status, 200);
  const bobMention = `@_**Bob Old|${bob.userId}**`;
  const moved = await latest(bob, 'origin', 'renamed');
  assert.deepEqual(moved.slice(0, 2).map((m: any) => m.id), [a, b]);
  assert.equal((await bob.get(`/messages/${moved[2].id}`)).body.raw_content, `This topic was moved here from #**origin>renameme** by ${bobMention}.`);
  const old = await latest(bob, 'origin', 'renameme');
  assert.equal((await bob.get(`/messages/${old[0].id}`)).body.raw_content, `This topic was moved to #**origin>renamed** by ${bobMention}.`);
  // Each moved message records its own former topic.
  const hb = (await bob.get(`/messages/${b}/history`)).body.message_history;
  assert.deepEqual([hb[1].prev_topic, hb[1].topic, hb[1].stream], ['RENAMEME', 'renamed', undefined]);
  const fetched = (await bob.get(`/messages/${b}`)).body.message;
  assert.equal(fetched.edit_history[0].prev_topic, 'RENAMEME');
  assert.equal(typeof fetched.last_moved_timestamp, 'number');
});

test('merging into an existing topic keeps the more visible policy; a renamed case keeps its policy', async () => {
  const a = await sendToChannel(ann, 'origin', 'merge-a', 'a');
  await sendToChannel(ann, 'origin', 'merge-b', 'b');
  assert.equal((await bob.post('/user_topics', { stream_id: ids.origin, topic: 'merge-a', visibility_policy: 3 })).status, 200);
  assert.equal((await bob.post('/user_topics', { stream_id: ids.origin, topic: 'merge-b', visibility_policy: 1 })).status, 200);
  const q = await openQueue(bob, ['user_topic']);
  assert.equal((await ann.patch(`/messages/${a}`, { topic: 'merge-b', propagate_mode: 'change_all', send_notification_to_new_thread: false })).status, 200);
  assert.deepEqual(
    (await queuedEvents(bob, q)).map((e: any) => [e.topic_name, e.visibility_policy]),
    [
      ['merge-a', 0],
      ['merge-b', 3],
    ],
  );
  // Only the case changes: the policy stays on the topic.
  const q2 = await openQueue(bob, ['user_topic']);
  assert.equal((await ann.patch(`/messages/${a}`, { topic: 'MERGE-B', propagate_mode: 'change_all', send_notification_to_new_thread: false })).status, 200);
  assert.deepEqual((await queuedEvents(bob, q2)).map((e: any) => [e.topic_name, e.visibility_policy]), [['merge-b', 0], ['MERGE-B', 3]]);
  const state = await bob.post('/register', { fetch_event_types: ['user_topic'] });
  assert.deepEqual(
    state.body.user_topics.filter((u: any) => u.topic_name.toLowerCase() === 'merge-b').map((u: any) => [u.topic_name, u.visibility_policy]),
    [['MERGE-B', 3]],
  );
});

test("can_create_topic_group, as Zulip's check_for_can_create_topic_group_violation: new topics by sending or moving, never by resolving", async () => {
  assert.equal((await t.owner.patch(`/streams/${ids.origin}`, { can_create_topic_group: { new: groups['role:administrators'] } })).status, 200);
  try {
    const refused = 'You do not have permission to create new topics in this channel.';
    await sendToChannel(admin, 'origin', 'agreed topic', 'started by an administrator');
    const mine = await sendToChannel(ann, 'origin', 'agreed topic', 'a member may post in it');
    const fresh = await ann.post('/messages', { type: 'stream', to: 'origin', topic: 'brand new', content: 'x' });
    assert.deepEqual([fresh.status, fresh.body.msg], [400, refused]);
    const moved = await ann.patch(`/messages/${mine}`, { topic: 'elsewhere new' });
    assert.deepEqual([moved.status, moved.body.msg], [400, refused]);
    const resolved = await ann.patch(`/messages/${mine}`, { topic: '✔ agreed topic', propagate_mode: 'change_all' });
    assert.equal(resolved.status, 200, 'resolving is not creating');
    assert.equal((await admin.patch(`/messages/${mine}`, { topic: 'admins may', send_notification_to_new_thread: false })).status, 200);
  } finally {
    await t.owner.patch(`/streams/${ids.origin}`, { can_create_topic_group: { new: groups['role:everyone'] } });
  }
});

test("stream_id equal to the message's channel: Zulip's build_message_edit_request still counts a channel move", async () => {
  const m = await sendToChannel(ann, 'origin', 'same place', 'stays put');
  const qb = await openQueue(bob, ['update_message']);
  const res = await ann.patch(`/messages/${m}`, { stream_id: ids.origin });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const [ev] = (await queuedEvents(bob, qb)).filter((e: any) => e.type === 'update_message');
  assert.equal(ev.stream_id, ids.origin);
  assert.equal(ev.new_stream_id, ids.origin);
  assert.equal(ev.orig_subject, 'same place');
  assert.equal(ev.propagate_mode, 'change_one');
  const history = (await ann.get(`/messages/${m}/history`)).body.message_history;
  assert.deepEqual([history.length, history[1].prev_stream, history[1].stream], [2, ids.origin, ids.origin]);
  // As a move, it takes the channel-move permission and cannot carry content.
  const withContent = await ann.patch(`/messages/${m}`, { stream_id: ids.origin, content: 'new text' });
  assert.deepEqual([withContent.status, withContent.body.msg], [400, 'Cannot change message content while changing channel']);
});

test("resolving a topic at the length limit: Zulip's truncate_topic cuts \"✔ \" + topic to 57 characters and \"...\", and it still counts as resolving", async () => {
  const long = 'y'.repeat(60);
  const m = await sendToChannel(ann, 'origin', long, 'long topic');
  const q = await openQueue(bob, ['message', 'update_message']);
  const res = await ann.patch(`/messages/${m}`, { topic: `✔ ${long}`, propagate_mode: 'change_all' });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const evs = await queuedEvents(bob, q);
  assert.deepEqual(evs.map((e: any) => e.type), ['update_message', 'message']);
  const resolvedTopic = `✔ ${'y'.repeat(55)}...`;
  assert.equal(evs[0].subject, resolvedTopic);
  assert.equal(evs[1].message.subject, resolvedTopic);
  assert.equal((await bob.get(`/messages/${evs[1].message.id}`)).body.raw_content, `@_**Ann Mover|${ann.userId}** has marked this topic as resolved.`);
});
