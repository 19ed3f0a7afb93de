// The Notification Bot's messages about subscriptions (Zulip's
// send_user_subscribed_and_new_channel_notifications): a direct message to each person someone
// else subscribes to existing channels, and the announcement of channels created with announce=true
// in the organization's new-channel announcements channel; with the response's
// new_subscription_messages_sent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, openQueue, queuedEvents, testServerFor, NOTIFICATION_BOT, channelId, messagesIn, messageContent } from './helpers.js';
import { createGeneralChannel } from '../src/actions/channels.js';

const t = testServerFor({ member: { name: 'Mia Member' }, other: { name: 'Otto Other' } });

async function subscribe(c: Client, names: string[], extra: Record<string, any> = {}) {
  const res = await c.post('/users/me/subscriptions', { subscriptions: names.map((name) => ({ name })), ...extra });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

const seen = new Map<string, number>();

/** The message events a queue received since the last look. */
async function messages(c: Client, queue: string): Promise<any[]> {
  const events = (await queuedEvents(c, queue)).filter((e) => e.id > (seen.get(queue) ?? -1));
  if (events.length) seen.set(queue, events[events.length - 1].id);
  return messagesIn(events);
}

/** Leaves out the channel-created messages (channel_created_notice.test.ts is about those). */
const notCreationNotices = (got: any[]) => got.filter((m) => m.subject !== 'channel events');

test('someone subscribed to one existing channel gets a direct message saying who did it', async () => {
  await subscribe(t.owner, ['lounge']);
  const lounge = await channelId(t.owner, 'lounge');
  const q = await openQueue(t.member, ['message']);
  const body = await subscribe(t.owner, ['lounge'], { principals: [t.member.userId] });
  assert.deepEqual(body.subscribed, { [String(t.member.userId)]: ['lounge'] });
  assert.equal(body.new_subscription_messages_sent, true);

  const got = await messages(t.member, q);
  assert.equal(got.length, 1, JSON.stringify(got));
  const dm = got[0];
  assert.equal(dm.sender_email, NOTIFICATION_BOT);
  assert.equal(dm.type, 'private');
  assert.deepEqual(dm.display_recipient.map((r: any) => r.id).sort(), [dm.sender_id, t.member.userId].sort());
  assert.deepEqual(dm.flags, [], 'unread for the recipient');
  assert.equal(
    await messageContent(t.member, dm.id, true),
    `<p><span class="user-mention silent" data-user-id="${t.owner.userId}">${t.owner.fullName}</span> subscribed you to ` +
      `<a class="stream" data-stream-id="${lounge}" href="/#narrow/channel/${lounge}-lounge">#lounge</a>.</p>`,
  );
  assert.equal(await messageContent(t.member, dm.id), `@_**${t.owner.fullName}|${t.owner.userId}** subscribed you to #**lounge**.`);
  const unread = (await t.member.post('/register', { fetch_event_types: ['message', 'update_message_flags'] })).body.unread_msgs;
  assert.deepEqual(unread.pms.find((p: any) => p.other_user_id === dm.sender_id)?.unread_message_ids, [dm.id]);
});

test('several people at once, some already in a conversation with the bot: each gets one message in their own, by user id', async () => {
  await subscribe(t.owner, ['porch']);
  const fresh = [await t.createUser({ name: 'Fay First' }), await t.createUser({ name: 'Gil Second' })];
  const people = [t.member, ...fresh].sort((a, b) => a.userId - b.userId);
  const queues = await Promise.all(people.map((c) => openQueue(c, ['message'])));
  await subscribe(t.owner, ['porch'], { principals: people.map((c) => c.userId) });
  const got = await Promise.all(people.map(async (c, i) => notCreationNotices(await messages(c, queues[i]!))));
  for (const [i, c] of people.entries()) {
    assert.equal(got[i]!.length, 1, JSON.stringify(got[i]));
    assert.deepEqual(got[i]![0].display_recipient.map((r: any) => r.id).sort(), [got[i]![0].sender_id, c.userId].sort());
    const conversation = await c.get('/messages', { anchor: 'newest', num_before: 10, num_after: 0, narrow: [{ operator: 'dm', operand: [got[i]![0].sender_id] }] });
    assert.equal(conversation.body.messages.at(-1).id, got[i]![0].id);
  }
  const ids = got.map((g) => g[0].id);
  assert.deepEqual(ids, [...ids].sort((a, b) => a - b), 'written in order of user id');
});

test('several channels in one message, sorted by name; channels the request creates are left out', async () => {
  await subscribe(t.owner, ['zeta', 'alpha']);
  const [alpha, zeta] = [await channelId(t.owner, 'alpha'), await channelId(t.owner, 'zeta')];
  const q = await openQueue(t.other, ['message']);
  const body = await subscribe(t.owner, ['zeta', 'brand-new', 'alpha'], { principals: [t.other.userId] });
  assert.deepEqual(body.subscribed[String(t.other.userId)].sort(), ['alpha', 'brand-new', 'zeta']);
  assert.equal(body.new_subscription_messages_sent, true);
  const all = await messages(t.other, q);
  // And brand-new's channel-created message, after it.
  assert.deepEqual(all.map((m) => m.subject), ['', 'channel events']);
  const got = notCreationNotices(all);
  assert.equal(got.length, 1);
  assert.equal(
    await messageContent(t.other, got[0].id),
    `@_**${t.owner.fullName}|${t.owner.userId}** subscribed you to the following channels:\n\n* #**alpha**\n* #**zeta**`,
  );
  assert.equal(
    await messageContent(t.other, got[0].id, true),
    `<p><span class="user-mention silent" data-user-id="${t.owner.userId}">${t.owner.fullName}</span> subscribed you to the following channels:</p>\n` +
      `<ul>\n<li><a class="stream" data-stream-id="${alpha}" href="/#narrow/channel/${alpha}-alpha">#alpha</a></li>\n` +
      `<li><a class="stream" data-stream-id="${zeta}" href="/#narrow/channel/${zeta}-zeta">#zeta</a></li>\n</ul>`,
  );
});

test('no message for a channel the request creates, for subscribing oneself, or for the already subscribed', async () => {
  const memberQ = await openQueue(t.member, ['message']);
  const ownerQ = await openQueue(t.owner, ['message']);
  let body = await subscribe(t.owner, ['created-now'], { principals: [t.member.userId, t.owner.userId] });
  assert.equal(body.subscribed[String(t.member.userId)][0], 'created-now');
  assert.equal(body.new_subscription_messages_sent, true);
  body = await subscribe(t.member, ['lounge', 'alpha'], { principals: [t.member.userId] });
  assert.equal(body.new_subscription_messages_sent, true, 'present and true whenever asked and few enough were subscribed');
  body = await subscribe(t.owner, ['lounge'], { principals: [t.member.userId] });
  assert.deepEqual(body.already_subscribed, { [String(t.member.userId)]: ['lounge'] });
  // Only created-now's channel-created message.
  assert.deepEqual(notCreationNotices(await messages(t.member, memberQ)), []);
  assert.deepEqual(notCreationNotices(await messages(t.owner, ownerQ)), []);
});

test('bots are never told; people subscribed alongside them are', async () => {
  const made = await t.owner.post('/bots', { full_name: 'Helper Bot', short_name: 'helper' });
  assert.equal(made.status, 200, JSON.stringify(made.body));
  const botEmail = (await t.owner.get(`/users/${made.body.user_id}`)).body.user.email;
  const bot = new Client(t.url, botEmail, made.body.api_key, made.body.user_id);
  await subscribe(t.owner, ['bot-room']);
  const botQ = await openQueue(bot, ['message']);
  const otherQ = await openQueue(t.other, ['message']);
  const body = await subscribe(t.owner, ['bot-room'], { principals: [bot.userId, t.other.userId] });
  assert.equal(Object.keys(body.subscribed).length, 2);
  assert.deepEqual(await messages(bot, botQ), []);
  assert.equal((await messages(t.other, otherQ)).length, 1);
});

test('send_new_subscription_messages=false: no message, and no new_subscription_messages_sent', async () => {
  await subscribe(t.owner, ['quiet']);
  const q = await openQueue(t.member, ['message']);
  const body = await subscribe(t.owner, ['quiet'], { principals: [t.member.userId], send_new_subscription_messages: false });
  assert.deepEqual(body.subscribed, { [String(t.member.userId)]: ['quiet'] });
  assert.equal('new_subscription_messages_sent' in body, false);
  assert.deepEqual(await messages(t.member, q), []);
  // The same request at the default tells the person.
  const otherQ = await openQueue(t.other, ['message']);
  await subscribe(t.owner, ['quiet'], { principals: [t.other.userId] });
  assert.equal((await messages(t.other, otherQ)).length, 1);
});

test('more than max_bulk_new_subscription_messages new subscribers: nobody is told, and the answer says so', async () => {
  const max = (await t.member.post('/register', { fetch_event_types: ['realm'] })).body.max_bulk_new_subscription_messages;
  assert.equal(max, 100);
  const many: number[] = [t.member.userId];
  for (let i = 0; i < max; i++) many.push((await t.createUser({ name: `Bulk ${i}` })).userId);
  await subscribe(t.owner, ['crowd', 'small']);
  const q = await openQueue(t.member, ['message']);
  let body = await subscribe(t.owner, ['crowd'], { principals: many });
  assert.equal(Object.keys(body.subscribed).length, max + 1);
  assert.equal(body.new_subscription_messages_sent, false);
  assert.deepEqual(await messages(t.member, q), []);
  // Exactly the limit still sends: those already subscribed do not count.
  body = await subscribe(t.owner, ['small'], { principals: many.slice(0, max) });
  assert.equal(body.new_subscription_messages_sent, true);
  assert.equal((await messages(t.member, q)).length, 1);
});

test('PATCH /users/me/subscriptions answers new_subscription_messages_sent as Zulip does', async () => {
  const res = await t.member.patch('/users/me/subscriptions', { add: JSON.stringify([{ name: 'patched' }]) });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.new_subscription_messages_sent, true);
});

test("a new organization's #general is where new channels are announced, as Zulip's do_create_realm sets it", async () => {
  const org = await t.createOrg('Announcing Org');
  const services = t.server.services;
  const realm = (await services.cache.realm(org.realmId))!;
  await createGeneralChannel(services, realm, (await services.cache.user(org.realmId, org.owner.userId))!);
  const general = (await org.owner.get('/get_stream_id', { stream: 'general' })).body.stream_id;
  const state = (await org.owner.post('/register', { fetch_event_types: JSON.stringify(['realm']) })).body;
  assert.equal(state.realm_new_stream_announcements_stream_id, general);
  assert.equal(state.realm_zulip_update_announcements_stream_id, general);
  const q = await openQueue(org.owner, ['message']);
  await subscribe(org.owner, ['first-announced'], { announce: true });
  const got = notCreationNotices(await messages(org.owner, q));
  assert.equal(got.length, 1, JSON.stringify(got));
  assert.equal(got[0].stream_id, general);
  assert.equal(got[0].subject, 'new channels');
  assert.equal(await messageContent(org.owner, got[0].id), `@_**${(await org.owner.get("/users/me")).body.full_name}|${org.owner.userId}** created a new channel #**first-announced**.`);
});

test('announce=true: the new channels are announced in the announcements channel, private ones too', async () => {
  await subscribe(t.owner, ['announcements'], { principals: [t.owner.userId, t.member.userId, t.other.userId] });
  const announcements = await channelId(t.owner, 'announcements');
  const otherQ = await openQueue(t.other, ['message']);
  const memberQ = await openQueue(t.member, ['message']);

  // Not configured (-1): nothing.
  await subscribe(t.member, ['unannounced'], { announce: true });
  assert.deepEqual(await messages(t.other, otherQ), []);

  assert.equal((await t.owner.patch('/realm', { new_stream_announcements_stream_id: announcements })).status, 200);
  await subscribe(t.member, ['not-asked']);
  assert.deepEqual(await messages(t.other, otherQ), [], 'announce defaults to false');

  await subscribe(t.member, ['fresh'], { announce: true });
  const fresh = await channelId(t.owner, 'fresh');
  let got = await messages(t.other, otherQ);
  assert.equal(got.length, 1);
  assert.equal(got[0].sender_email, NOTIFICATION_BOT);
  assert.equal(got[0].stream_id, announcements);
  assert.equal(got[0].subject, 'new channels');
  assert.deepEqual(got[0].flags, []);
  assert.equal(await messageContent(t.other, got[0].id), `@_**${t.member.fullName}|${t.member.userId}** created a new channel #**fresh**.`);
  assert.equal(
    await messageContent(t.other, got[0].id, true),
    `<p><span class="user-mention silent" data-user-id="${t.member.userId}">${t.member.fullName}</span> created a new channel ` +
      `<a class="stream" data-stream-id="${fresh}" href="/#narrow/channel/${fresh}-fresh">#fresh</a>.</p>`,
  );
  const mine = notCreationNotices(await messages(t.member, memberQ));
  assert.equal(mine.length, 1, JSON.stringify(mine));
  assert.deepEqual(mine[0].flags, ['read'], 'read for the one who created the channel');

  await subscribe(t.member, ['secret-one', 'secret-two', 'lounge'], { announce: true, invite_only: true });
  got = await messages(t.other, otherQ);
  assert.equal(got.length, 1);
  assert.equal(await messageContent(t.other, got[0].id), `@_**${t.member.fullName}|${t.member.userId}** created the following channels: #**secret-one**, #**secret-two**.`);

  await subscribe(t.member, ['lounge'], { announce: true });
  assert.deepEqual(await messages(t.other, otherQ), [], 'nothing created, nothing announced');

  assert.equal((await t.owner.patch('/realm', { new_stream_announcements_stream_id: -1 })).status, 200);
  await subscribe(t.member, ['after-disabled'], { announce: true });
  assert.deepEqual(await messages(t.other, otherQ), []);
});

test('POST /channels/create announces only when it subscribes someone', async () => {
  const announcements = await channelId(t.owner, 'announcements');
  assert.equal((await t.owner.patch('/realm', { new_stream_announcements_stream_id: announcements })).status, 200);
  const q = await openQueue(t.other, ['message']);
  const empty = await t.member.post('/channels/create', { name: 'nobody-in', subscribers: JSON.stringify([]), announce: true });
  assert.equal(empty.status, 200, JSON.stringify(empty.body));
  assert.deepEqual(await messages(t.other, q), []);
  const made = await t.member.post('/channels/create', { name: 'with-people', subscribers: JSON.stringify([t.member.userId, t.other.userId]), announce: true });
  assert.equal(made.status, 200, JSON.stringify(made.body));
  const got = notCreationNotices(await messages(t.other, q));
  assert.equal(got.length, 1, 'the announcement only: no direct message about a channel just created');
  assert.equal(await messageContent(t.other, got[0].id), `@_**${t.member.fullName}|${t.member.userId}** created a new channel #**with-people**.`);
  assert.equal((await t.owner.patch('/realm', { new_stream_announcements_stream_id: -1 })).status, 200);
});
