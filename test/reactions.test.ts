// Emoji reactions: adding and removing, name-only requests, votes, errors, access and events.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openQueue, queuedEvents, startTestServer, type Client, type TestServer } from './helpers.js';

let t: TestServer;
let ann: Client;
let bob: Client;
let cat: Client;
let guest: Client;
let msgId: number;
before(async () => {
  t = await startTestServer();
  ann = await t.createUser({ name: 'Ann Reacts' });
  bob = await t.createUser({ name: 'Bob Votes' });
  cat = await t.createUser({ name: 'Cat Outsider' });
  guest = await t.createUser({ name: 'Gus Guest', role: 'guest' });
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'reacting' }], principals: [t.owner.userId, ann.userId, bob.userId] });
  msgId = (await ann.post('/messages', { type: 'stream', to: 'reacting', topic: 'hello', content: 'react to me' })).body.id;
});
after(async () => {
  await t.close();
});

const reactionsOf = async (c: Client, id: number) => (await c.get(`/messages/${id}`)).body.message.reactions;

test('reactions: add by name, vote, read back in messages, remove, with events', async () => {
  const qb = await openQueue(bob, ['reaction']);
  const res = await ann.post(`/messages/${msgId}/reactions`, { emoji_name: 'octopus' });
  assert.equal(res.status, 200);
  assert.equal(res.body.result, 'success');
  // An alias names the same emoji: a vote with the first reaction's name.
  assert.equal((await bob.post(`/messages/${msgId}/reactions`, { emoji_name: 'thumbs_up', emoji_code: '1f44d', reaction_type: 'unicode_emoji' })).status, 200);
  assert.equal((await ann.post(`/messages/${msgId}/reactions`, { emoji_name: '+1' })).status, 200);
  assert.deepEqual(await reactionsOf(bob, msgId), [
    { emoji_name: 'octopus', emoji_code: '1f419', reaction_type: 'unicode_emoji', user_id: ann.userId },
    { emoji_name: 'thumbs_up', emoji_code: '1f44d', reaction_type: 'unicode_emoji', user_id: bob.userId },
    { emoji_name: 'thumbs_up', emoji_code: '1f44d', reaction_type: 'unicode_emoji', user_id: ann.userId },
  ]);
  const page = await bob.get('/messages', { anchor: 'newest', num_before: 5, num_after: 0, narrow: [{ operator: 'channel', operand: 'reacting' }] });
  const listed = page.body.messages.find((m: any) => m.id === msgId);
  assert.equal(listed.reactions.length, 3);

  const evs = await queuedEvents(bob, qb);
  assert.equal(evs.length, 3);
  assert.deepEqual(
    { ...evs[0], id: undefined },
    {
      id: undefined,
      type: 'reaction',
      op: 'add',
      user_id: ann.userId,
      user: { user_id: ann.userId, email: ann.email, full_name: 'Ann Reacts' },
      message_id: msgId,
      emoji_name: 'octopus',
      emoji_code: '1f419',
      reaction_type: 'unicode_emoji',
    },
  );
  assert.equal(evs[2].emoji_name, 'thumbs_up');

  assert.equal((await ann.delete(`/messages/${msgId}/reactions`, { emoji_name: 'octopus' })).status, 200);
  assert.equal((await bob.delete(`/messages/${msgId}/reactions`, { emoji_code: '1f44d', reaction_type: 'unicode_emoji' })).status, 200);
  // The queue still holds the earlier events (nothing acknowledged them).
  const after = (await queuedEvents(bob, qb)).slice(3);
  assert.deepEqual(after.map((e: any) => [e.op, e.user_id, e.emoji_name, e.emoji_code]), [
    ['remove', ann.userId, 'octopus', '1f419'],
    ['remove', bob.userId, 'thumbs_up', '1f44d'],
  ]);
  assert.deepEqual(await reactionsOf(ann, msgId), [{ emoji_name: 'thumbs_up', emoji_code: '1f44d', reaction_type: 'unicode_emoji', user_id: ann.userId }]);
  assert.equal((await ann.delete(`/messages/${msgId}/reactions`, { emoji_name: 'thumbs_up' })).status, 200);
});

test('reactions: errors', async () => {
  assert.equal((await ann.post(`/messages/${msgId}/reactions`, { emoji_name: 'tada' })).status, 200);
  const again = await ann.post(`/messages/${msgId}/reactions`, { emoji_name: 'tada' });
  assert.deepEqual([again.status, again.body.code, again.body.msg], [400, 'REACTION_ALREADY_EXISTS', 'Reaction already exists.']);
  const missing = await bob.delete(`/messages/${msgId}/reactions`, { emoji_name: 'tada' });
  assert.deepEqual([missing.status, missing.body.code, missing.body.msg], [400, 'REACTION_DOES_NOT_EXIST', "Reaction doesn't exist."]);
  const unknown = await ann.post(`/messages/${msgId}/reactions`, { emoji_name: 'no_such_emoji' });
  assert.deepEqual([unknown.status, unknown.body.code, unknown.body.msg], [400, 'BAD_REQUEST', "Emoji 'no_such_emoji' does not exist"]);
  const badCode = await ann.post(`/messages/${msgId}/reactions`, { emoji_name: 'heart', emoji_code: 'ffffff', reaction_type: 'unicode_emoji' });
  assert.equal(badCode.body.msg, 'Invalid emoji code.');
  const badName = await ann.post(`/messages/${msgId}/reactions`, { emoji_name: 'heart', emoji_code: '1f419', reaction_type: 'unicode_emoji' });
  assert.equal(badName.body.msg, 'Invalid emoji name.');
  const badType = await ann.post(`/messages/${msgId}/reactions`, { emoji_name: 'heart', reaction_type: 'sticker' });
  assert.deepEqual([badType.status, badType.body.msg], [400, 'Invalid emoji type.']);
  const badCustom = await ann.post(`/messages/${msgId}/reactions`, { emoji_name: 'parrot', emoji_code: '999', reaction_type: 'realm_emoji' });
  assert.equal(badCustom.body.msg, 'Invalid custom emoji.');
  const noName = await ann.post(`/messages/${msgId}/reactions`, {});
  assert.deepEqual([noName.status, noName.body.code], [400, 'REQUEST_VARIABLE_MISSING']);
  // Removing checks no type, as in Zulip: one no emoji has, or the wrong one for the name, matches nothing.
  for (const params of [{ emoji_name: 'tada', reaction_type: 'sticker' }, { emoji_code: '1f389', reaction_type: 'sticker' }, { emoji_name: 'tada', reaction_type: 'realm_emoji' }]) {
    const res = await ann.delete(`/messages/${msgId}/reactions`, params);
    assert.deepEqual([res.status, res.body.code], [400, 'REACTION_DOES_NOT_EXIST'], JSON.stringify(params));
  }
  const nothing = await ann.delete(`/messages/${msgId}/reactions`, {});
  assert.deepEqual([nothing.status, nothing.body.msg], [400, 'At least one of the following arguments must be present: emoji_name, emoji_code']);
  const noMessage = await ann.post('/messages/99999999/reactions', { emoji_name: 'tada' });
  assert.deepEqual([noMessage.status, noMessage.body.msg], [400, 'Invalid message(s)']);
  assert.equal((await ann.post('/messages/abc/reactions', { emoji_name: 'tada' })).body.msg, 'Invalid message(s)');
  // The Zulip extra emoji.
  assert.equal((await ann.post(`/messages/${msgId}/reactions`, { emoji_name: 'zulip' })).status, 200);
  const zulip = (await reactionsOf(ann, msgId)).find((r: any) => r.emoji_name === 'zulip');
  assert.deepEqual(zulip, { emoji_name: 'zulip', emoji_code: 'zulip', reaction_type: 'zulip_extra_emoji', user_id: ann.userId });
  assert.equal((await ann.post(`/messages/${msgId}/reactions`, { emoji_name: 'zulip', emoji_code: 'zulipp', reaction_type: 'zulip_extra_emoji' })).body.msg, 'Invalid emoji code.');
});

test('reactions: access as reading the message; shared-history subscribers hear about it', async () => {
  // A direct message between Ann and Bob: Cat can neither see it nor react.
  const dm = (await ann.post('/messages', { type: 'direct', to: [bob.userId], content: 'just us' })).body.id;
  const denied = await cat.post(`/messages/${dm}/reactions`, { emoji_name: 'tada' });
  assert.deepEqual([denied.status, denied.body.msg], [400, 'Invalid message(s)']);
  assert.equal((await cat.delete(`/messages/${dm}/reactions`, { emoji_name: 'tada' })).body.msg, 'Invalid message(s)');
  const qc = await openQueue(cat, ['reaction']);
  assert.equal((await bob.post(`/messages/${dm}/reactions`, { emoji_name: 'heart' })).status, 200);
  assert.deepEqual(await queuedEvents(cat, qc), []);

  // A public channel Cat is not subscribed to: Cat can read it, so may react (the message then
  // reaches Cat's history), and a guest who cannot read it may not.
  assert.equal((await cat.post(`/messages/${msgId}/reactions`, { emoji_name: 'smile' })).status, 200);
  const mine = (await reactionsOf(cat, msgId)).find((r: any) => r.user_id === cat.userId);
  assert.deepEqual(mine, { emoji_name: 'smile', emoji_code: '1f604', reaction_type: 'unicode_emoji', user_id: cat.userId });
  const g = await guest.post(`/messages/${msgId}/reactions`, { emoji_name: 'tada' });
  assert.deepEqual([g.status, g.body.msg], [400, 'Invalid message(s)']);
  // Cat now gets later reactions on it.
  assert.equal((await bob.post(`/messages/${msgId}/reactions`, { emoji_name: 'smile' })).status, 200);
  const evs = await queuedEvents(cat, qc);
  // Cat hears of their own reaction (they now have the message) and of Bob's.
  assert.deepEqual(evs.map((e: any) => [e.op, e.user_id, e.message_id]), [
    ['add', cat.userId, msgId],
    ['add', bob.userId, msgId],
  ]);

  // A subscriber who joined after the message (shared history) hears reactions too.
  const dan = await t.createUser({ name: 'Dan Late' });
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'reacting' }], principals: [dan.userId] });
  const qd = await openQueue(dan, ['reaction']);
  assert.equal((await ann.post(`/messages/${msgId}/reactions`, { emoji_name: 'heart' })).status, 200);
  assert.equal((await queuedEvents(dan, qd)).length, 1);
});

test('reactions: deleting a message deletes its reactions', async () => {
  const id = (await ann.post('/messages', { type: 'stream', to: 'reacting', topic: 'gone', content: 'soon gone' })).body.id;
  assert.equal((await bob.post(`/messages/${id}/reactions`, { emoji_name: 'tada' })).status, 200);
  assert.equal((await t.owner.delete(`/messages/${id}`)).status, 200);
  assert.equal((await bob.post(`/messages/${id}/reactions`, { emoji_name: 'tada' })).body.msg, 'Invalid message(s)');
});

test('reactions: odd values on a real message get a 4xx envelope, never a 500', async () => {
  const values = ['', ' ', 'null', '[]', '{}', '\ud800', 'x'.repeat(5000), '1f419-', '../1f419', '0'];
  for (const v of values) {
    for (const params of [{ emoji_name: v }, { emoji_name: 'octopus', emoji_code: v }, { emoji_name: v, emoji_code: v, reaction_type: 'realm_emoji' }, { emoji_name: 'octopus', reaction_type: v }]) {
      for (const method of ['POST', 'DELETE']) {
        const res = await ann.request(method, `/messages/${msgId}/reactions`, params);
        assert.ok(res.status < 500 && (res.status === 200 || res.body.result === 'error'), `${method} ${JSON.stringify(params).slice(0, 80)} -> ${res.status}`);
        if (res.status === 200 && method === 'POST') await ann.request('DELETE', `/messages/${msgId}/reactions`, params);
      }
    }
  }
});

test('reactions: none on messages in an archived channel', async () => {
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'old-room' }], principals: [ann.userId] });
  const id = (await ann.post('/messages', { type: 'stream', to: 'old-room', topic: 't', content: 'before archiving' })).body.id;
  assert.equal((await ann.post(`/messages/${id}/reactions`, { emoji_name: 'tada' })).status, 200);
  const streamId = (await ann.get('/get_stream_id', { stream: 'old-room' })).body.stream_id;
  assert.equal((await t.owner.delete(`/streams/${streamId}`)).status, 200);
  const add = await ann.post(`/messages/${id}/reactions`, { emoji_name: 'heart' });
  assert.deepEqual([add.status, add.body.msg], [400, 'Invalid message(s)']);
  assert.equal((await ann.delete(`/messages/${id}/reactions`, { emoji_name: 'tada' })).body.msg, 'Invalid message(s)');
});

test('reactions: a reaction is participation for the automatic follow setting', async () => {
  assert.equal((await bob.patch('/settings', { automatically_follow_topics_policy: 1 })).status, 200);
  const id = (await ann.post('/messages', { type: 'stream', to: 'reacting', topic: 'follow me', content: 'react to follow' })).body.id;
  const q = await openQueue(bob, ['user_topic']);
  assert.equal((await bob.post(`/messages/${id}/reactions`, { emoji_name: 'eyes' })).status, 200);
  const evs = await queuedEvents(bob, q);
  assert.deepEqual(evs.map((e: any) => [e.type, e.topic_name, e.visibility_policy]), [['user_topic', 'follow me', 3]]);
  // Already following: no second change.
  assert.equal((await bob.post(`/messages/${id}/reactions`, { emoji_name: 'tada' })).status, 200);
  assert.equal((await queuedEvents(bob, q)).length, 1);
  // Someone with the default setting is left alone.
  const qa = await openQueue(ann, ['user_topic']);
  assert.equal((await ann.post(`/messages/${id}/reactions`, { emoji_name: 'eyes' })).status, 200);
  assert.deepEqual(await queuedEvents(ann, qa), []);
  assert.equal((await bob.patch('/settings', { automatically_follow_topics_policy: 3 })).status, 200);
});

test("reaction events go to whom Zulip's event_recipient_ids_for_action_on_messages names: not to a former subscriber of a private channel", async () => {
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'backroom' }], principals: [ann.userId, bob.userId], invite_only: true });
  const id = (await ann.post('/messages', { type: 'stream', to: 'backroom', topic: 'x', content: 'members only' })).body.id;
  assert.equal((await t.owner.delete('/users/me/subscriptions', { subscriptions: ['backroom'], principals: [bob.userId] })).status, 200);
  const qb = await openQueue(bob, ['reaction']);
  const qa = await openQueue(ann, ['reaction']);
  assert.equal((await ann.post(`/messages/${id}/reactions`, { emoji_name: 'lock' })).status, 200);
  assert.deepEqual(await queuedEvents(bob, qb), [], 'bob still holds the message but left the channel');
  assert.equal((await queuedEvents(ann, qa)).length, 1);
});
