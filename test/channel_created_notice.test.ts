// The Notification Bot's message in every channel a request creates (Zulip's
// send_user_subscribed_and_new_channel_notifications): "**Public** channel created by @_**Name|id**.
// **Description:**" and the description in a quote block, in the topic "channel events"; read for
// the creator, unread for everyone else subscribed; after the new-channels announcement.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type Client, openQueue, queuedEvents, testServerFor, NOTIFICATION_BOT, channelId, messagesIn, messageContent } from './helpers.js';
import { createGeneralChannel } from '../src/actions/channels.js';

const t = testServerFor({ member: { name: 'Mia Member' }, other: { name: 'Otto Other' } });

async function subscribe(c: Client, subscriptions: Array<{ name: string; description?: string }>, extra: Record<string, any> = {}) {
  const res = await c.post('/users/me/subscriptions', { subscriptions, ...extra });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

/** The message events a queue holds, with their flags. */
async function messages(c: Client, queue: string): Promise<any[]> {
  return messagesIn(await queuedEvents(c, queue));
}

/** Every message of a channel, oldest first, as `c` may read them. */
async function channelMessages(c: Client, streamId: number): Promise<any[]> {
  const res = await c.get('/messages', { anchor: 'oldest', num_before: 0, num_after: 100, allow_empty_topic_name: true, narrow: JSON.stringify([{ operator: 'channel', operand: streamId }]) });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.messages;
}

const mention = (name: string, id: number) => `<span class="user-mention silent" data-user-id="${id}">${name}</span>`;

test('a public channel: the creator reads it as read, the others subscribed as unread; its Markdown renders as written', async () => {
  const memberQ = await openQueue(t.member, ['message']);
  const otherQ = await openQueue(t.other, ['message']);
  await subscribe(t.member, [{ name: 'garden', description: 'Plants and **soil**' }], { principals: [t.member.userId, t.other.userId] });
  const garden = await channelId(t.owner, 'garden');

  const mine = await messages(t.member, memberQ);
  assert.equal(mine.length, 1, JSON.stringify(mine));
  const msg = mine[0];
  assert.equal(msg.sender_email, NOTIFICATION_BOT);
  assert.equal(msg.stream_id, garden);
  assert.equal(msg.subject, 'channel events');
  assert.deepEqual(msg.flags, ['read'], 'read for the one who created the channel');
  const theirs = await messages(t.other, otherQ);
  assert.equal(theirs.length, 1, 'no direct message about a channel the request created');
  assert.equal(theirs[0].id, msg.id);
  assert.deepEqual(theirs[0].flags, [], 'unread for the others subscribed');

  const markdown = `**Public** channel created by @_**${t.member.fullName}|${t.member.userId}**. **Description:**\n\`\`\`\` quote\nPlants and **soil**\n\`\`\`\``;
  assert.equal(await messageContent(t.other, msg.id, false), markdown);
  const html =
    `<p><strong>Public</strong> channel created by ${mention(t.member.fullName, t.member.userId)}. <strong>Description:</strong></p>\n` +
    '<blockquote>\n<p>Plants and <strong>soil</strong></p>\n</blockquote>';
  assert.equal(await messageContent(t.other, msg.id, true), html);
  // What a user's own message with the same text renders to.
  const own = await t.owner.post('/messages', { type: 'stream', to: garden, topic: 'check', content: markdown });
  assert.equal(own.status, 200, JSON.stringify(own.body));
  assert.equal(await messageContent(t.owner, own.body.id, true), html);

  const unread = (await t.other.post('/register', { fetch_event_types: ['message', 'update_message_flags'] })).body.unread_msgs;
  assert.deepEqual(unread.streams.find((s: any) => s.stream_id === garden)?.unread_message_ids, [msg.id]);
  const creatorUnread = (await t.member.post('/register', { fetch_event_types: ['message', 'update_message_flags'] })).body.unread_msgs;
  assert.equal(creatorUnread.streams.find((s: any) => s.stream_id === garden && s.unread_message_ids.includes(msg.id)), undefined);
});

test('mentions in the description flag the mentioned as in any message: unread mentions, the topic followed', async () => {
  const groupName = 'greeters';
  const made = await t.owner.post('/user_groups/create', { name: groupName, description: 'They greet', members: JSON.stringify([t.owner.userId]) });
  assert.equal(made.status, 200, JSON.stringify(made.body));
  const otherQ = await openQueue(t.other, ['message', 'user_topic']);
  const ownerQ = await openQueue(t.owner, ['message']);
  await subscribe(t.member, [{ name: 'mentions-room', description: `Ask @**${'Otto Other'}** or @*${groupName}*` }], { principals: [t.member.userId, t.other.userId, t.owner.userId] });
  const room = await channelId(t.owner, 'mentions-room');

  const [theirs] = await messages(t.other, otherQ);
  assert.equal(theirs?.stream_id, room);
  assert.deepEqual(theirs.flags, ['mentioned'], 'a mention inside the quoted description counts');
  assert.match(await messageContent(t.other, theirs.id, true), /<blockquote>\n<p>Ask <span class="user-mention" data-user-id="\d+">@Otto Other<\/span>/);
  const [owners] = await messages(t.owner, ownerQ);
  assert.deepEqual(owners?.flags, ['mentioned'], 'as a member of the group mentioned');
  const followed = (await queuedEvents(t.other, otherQ)).filter((e) => e.type === 'user_topic');
  assert.deepEqual(followed.map((e) => [e.stream_id, e.topic_name, e.visibility_policy]), [[room, 'channel events', 3]], 'follows a topic they are mentioned in, by default');

  const unread = (await t.other.post('/register', { fetch_event_types: ['message', 'update_message_flags'] })).body.unread_msgs;
  assert.ok(unread.mentions.includes(theirs.id), JSON.stringify(unread.mentions));
});

test('a group the Notification Bot may not mention: no message, as Zulip refuses its internal send', async () => {
  const groups = (await t.owner.get('/user_groups')).body.user_groups;
  const admins = groups.find((g: any) => g.name === 'role:administrators').id;
  const made = await t.owner.post('/user_groups/create', { name: 'guarded', description: 'Admins only', members: JSON.stringify([t.owner.userId]), can_mention_group: JSON.stringify(admins) });
  assert.equal(made.status, 200, JSON.stringify(made.body));
  await subscribe(t.owner, [{ name: 'guarded-room', description: 'For @*guarded*' }], { principals: [t.owner.userId, t.other.userId] });
  assert.deepEqual(await channelMessages(t.other, await channelId(t.owner, 'guarded-room')), []);
  await subscribe(t.owner, [{ name: 'quiet-guarded-room', description: 'For @_*guarded*' }], { principals: [t.owner.userId, t.other.userId] });
  assert.equal((await channelMessages(t.other, await channelId(t.owner, 'quiet-guarded-room'))).length, 1, 'a silent mention is no mention');
});

test('channel links in the description: the channel itself and another one created with it link, as do existing public ones', async () => {
  await subscribe(t.owner, [{ name: 'Linked Room', description: 'Here: #**linked room**, next door: #**Side Room**, and #**garden**' }, { name: 'Side Room' }]);
  const linked = await channelId(t.owner, 'Linked Room');
  const side = await channelId(t.owner, 'Side Room');
  const garden = await channelId(t.owner, 'garden');
  const [msg] = await channelMessages(t.owner, linked);
  assert.equal(
    await messageContent(t.owner, msg.id, true),
    `<p><strong>Public</strong> channel created by ${mention(t.owner.fullName, t.owner.userId)}. <strong>Description:</strong></p>\n` +
      `<blockquote>\n<p>Here: <a class="stream" data-stream-id="${linked}" href="/#narrow/channel/${linked}-Linked-Room">#Linked Room</a>, ` +
      `next door: <a class="stream" data-stream-id="${side}" href="/#narrow/channel/${side}-Side-Room">#Side Room</a>, ` +
      `and <a class="stream" data-stream-id="${garden}" href="/#narrow/channel/${garden}-garden">#garden</a></p>\n</blockquote>`,
  );
});

test('a private channel linked in its own description: not linked, as the Notification Bot cannot see it', async () => {
  await subscribe(t.owner, [{ name: 'hidden-room', description: 'See #**hidden-room**' }], { invite_only: true });
  const [msg] = await channelMessages(t.owner, await channelId(t.owner, 'hidden-room'));
  assert.match(await messageContent(t.owner, msg.id, true), /<blockquote>\n<p>See #<strong>hidden-room<\/strong><\/p>/);
});

test('a channel wildcard in the description flags everyone subscribed', async () => {
  const q = await openQueue(t.other, ['message']);
  await subscribe(t.member, [{ name: 'wild-room', description: 'Hello @**all**' }], { principals: [t.member.userId, t.other.userId] });
  const [theirs] = await messages(t.other, q);
  assert.deepEqual(theirs?.flags, ['stream_wildcard_mentioned', 'wildcard_mentioned']);
});

test('private channels name their history policy; no description says so', async () => {
  await subscribe(t.member, [{ name: 'protected-room' }], { invite_only: true });
  await subscribe(t.member, [{ name: 'shared-room', description: 'Shared' }], { invite_only: true, history_public_to_subscribers: true });
  const [protectedMsgs, sharedMsgs] = [await channelMessages(t.member, await channelId(t.owner, 'protected-room')), await channelMessages(t.member, await channelId(t.owner, 'shared-room'))];
  assert.equal(protectedMsgs.length, 1);
  assert.equal(
    await messageContent(t.member, protectedMsgs[0].id, false),
    `**Private, protected history** channel created by @_**${t.member.fullName}|${t.member.userId}**. **Description:**\n\`\`\`\` quote\n*No description.*\n\`\`\`\``,
  );
  assert.equal(
    await messageContent(t.member, protectedMsgs[0].id, true),
    `<p><strong>Private, protected history</strong> channel created by ${mention(t.member.fullName, t.member.userId)}. <strong>Description:</strong></p>\n` +
      '<blockquote>\n<p><em>No description.</em></p>\n</blockquote>',
  );
  assert.equal(sharedMsgs.length, 1);
  assert.equal(
    await messageContent(t.member, sharedMsgs[0].id, false),
    `**Private, shared history** channel created by @_**${t.member.fullName}|${t.member.userId}**. **Description:**\n\`\`\`\` quote\nShared\n\`\`\`\``,
  );
});

test('a web-public channel', async () => {
  assert.equal((await t.owner.patch('/realm', { enable_spectator_access: true })).status, 200);
  await subscribe(t.owner, [{ name: 'open-house', description: 'Everyone welcome' }], { is_web_public: true });
  const got = await channelMessages(t.owner, await channelId(t.owner, 'open-house'));
  assert.equal(got.length, 1);
  assert.equal(
    await messageContent(t.owner, got[0].id, false),
    `**Web-public** channel created by @_**${t.owner.fullName}|${t.owner.userId}**. **Description:**\n\`\`\`\` quote\nEveryone welcome\n\`\`\`\``,
  );
});

test('several channels at once: each gets its own, after the new-channels announcement', async () => {
  await subscribe(t.owner, [{ name: 'news' }]);
  const news = await channelId(t.owner, 'news');
  assert.equal((await t.owner.patch('/realm', { new_stream_announcements_stream_id: news })).status, 200);
  const q = await openQueue(t.owner, ['message']);
  await subscribe(t.owner, [{ name: 'one-of-two' }, { name: 'two-of-two' }], { announce: true });
  const got = await messages(t.owner, q);
  assert.deepEqual(
    got.map((m) => [m.stream_id, m.subject]),
    [[news, 'new channels'], [await channelId(t.owner, 'one-of-two'), 'channel events'], [await channelId(t.owner, 'two-of-two'), 'channel events']],
  );
  assert.ok(got[0].id < got[1].id && got[1].id < got[2].id);
  assert.deepEqual(got.map((m) => m.flags), [['read'], ['read'], ['read']]);
  assert.equal((await t.owner.patch('/realm', { new_stream_announcements_stream_id: -1 })).status, 200);
});

test('only for channels the request creates', async () => {
  const q = await openQueue(t.other, ['message']);
  await subscribe(t.other, [{ name: 'garden' }]);
  assert.deepEqual(await messages(t.other, q), []);
  assert.equal((await channelMessages(t.other, await channelId(t.owner, 'garden'))).filter((m) => m.subject === 'channel events').length, 1);
});

test('a channel that allows only the empty topic gets it there', async () => {
  await subscribe(t.owner, [{ name: 'no-topics' }], { topics_policy: 'empty_topic_only' });
  const got = await channelMessages(t.owner, await channelId(t.owner, 'no-topics'));
  assert.equal(got.length, 1);
  assert.equal(got[0].subject, '');
});

test('POST /channels/create: the message when it subscribes someone; none with nobody subscribed, as Zulip answers early', async () => {
  const made = await t.member.post('/channels/create', { name: 'made-room', subscribers: JSON.stringify([t.other.userId]), description: 'Later' });
  assert.equal(made.status, 200, JSON.stringify(made.body));
  const got = await channelMessages(t.other, made.body.id);
  assert.equal(got.length, 1);
  assert.equal(got[0].subject, 'channel events');
  assert.deepEqual(got[0].flags, [], 'unread for the subscriber, who is not the creator');
  assert.equal(
    await messageContent(t.other, got[0].id, false),
    `**Public** channel created by @_**${t.member.fullName}|${t.member.userId}**. **Description:**\n\`\`\`\` quote\nLater\n\`\`\`\``,
  );
  assert.equal((await t.other.get(`/streams/${made.body.id}`)).body.stream.first_message_id, got[0].id);

  const empty = await t.member.post('/channels/create', { name: 'empty-room', subscribers: JSON.stringify([]) });
  assert.equal(empty.status, 200, JSON.stringify(empty.body));
  assert.deepEqual(await channelMessages(t.other, empty.body.id), []);
  assert.equal((await t.other.get(`/streams/${empty.body.id}`)).body.stream.first_message_id, null);
});

test("a new organization's #general has none, as Zulip's do_create_realm makes it", async () => {
  const org = await t.createOrg('Quiet Org');
  const services = t.server.services;
  await createGeneralChannel(services, (await services.cache.realm(org.realmId))!, (await services.cache.user(org.realmId, org.owner.userId))!);
  const general = (await org.owner.get('/get_stream_id', { stream: 'general' })).body.stream_id;
  assert.deepEqual(await channelMessages(org.owner, general), []);
});
