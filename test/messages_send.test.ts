// POST /messages: every form of recipient, the rules of sending (access, permissions, topics,
// content limits, direct-message policy), the flags each recipient gets and the one message event.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client, queuedEvents, startTestServer, type TestServer } from './helpers.js';

let t: TestServer;
let ann: Client;
let bob: Client;
let carl: Client;
let guest: Client;
let generalId: number;

const MESSAGE_FIELDS = [
  'avatar_url', 'client', 'content', 'content_type', 'display_recipient', 'id', 'is_me_message', 'reactions', 'recipient_id',
  'sender_email', 'sender_full_name', 'sender_id', 'sender_realm_str', 'subject', 'submessages', 'timestamp', 'topic_links', 'type',
];

before(async () => {
  t = await startTestServer();
  ann = await t.createUser({ name: 'Ann Lee' });
  bob = await t.createUser({ name: 'Bob Stone' });
  carl = await t.createUser({ name: 'Carl Oak' });
  guest = await t.createUser({ role: 'guest', name: 'Gina Guest' });
  await subscribe(t.owner, 'general', [t.owner.userId, ann.userId, bob.userId]);
  await subscribe(t.owner, 'secret', [t.owner.userId, ann.userId], { invite_only: true });
  await subscribe(t.owner, 'guests-welcome', [t.owner.userId, guest.userId]);
  generalId = await channelId('general');
});
after(async () => {
  await t.close();
});

async function subscribe(c: Client, name: string, principals: number[], extra: Record<string, unknown> = {}) {
  const res = await c.post('/users/me/subscriptions', { subscriptions: [{ name }], principals, ...extra } as Record<string, object>);
  assert.equal(res.status, 200, JSON.stringify(res.body));
}

/** An event queue for message events, with rendered content as most clients ask for it. */
async function openQueue(c: Client, eventTypes: string[]): Promise<string> {
  const reg = await c.post('/register', { event_types: eventTypes, fetch_event_types: ['message'], apply_markdown: true });
  assert.equal(reg.status, 200, JSON.stringify(reg.body));
  return reg.body.queue_id;
}

async function channelId(name: string): Promise<number> {
  return (await t.owner.get('/get_stream_id', { stream: name })).body.stream_id;
}

const toChannel = (c: Client, to: unknown, topic: string | undefined, content: string, extra: Record<string, unknown> = {}) =>
  c.post('/messages', { type: "stream", to, topic, content, ...extra } as Record<string, any>);
const toUsers = (c: Client, to: unknown, content: string, extra: Record<string, unknown> = {}) =>
  c.post('/messages', { type: "direct", to, content, ...extra } as Record<string, any>);

async function flagsOf(c: Client, id: number): Promise<string[]> {
  const res = await c.get(`/messages/${id}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return (res.body.message.flags as string[]).sort();
}

test('a channel message: one event to each subscriber with their own flags, the full message object', async () => {
  const qa = await openQueue(ann, ['message']);
  const qb = await openQueue(bob, ['message']);
  const qc = await openQueue(carl, ['message']);
  const qo = await openQueue(t.owner, ['message']);
  const res = await toChannel(t.owner, 'general', 'greetings', 'Hello @**Ann Lee**!', { read_by_sender: true });
  assert.equal(res.status, 200);
  assert.equal(typeof res.body.id, 'number');
  // The owner starts this topic, so their automatic follow policy reports the change.
  assert.deepEqual(Object.keys(res.body).sort(), ['automatic_new_visibility_policy', 'id', 'msg', 'result']);
  const [ea, ...moreA] = await queuedEvents(ann, qa);
  assert.equal(moreA.length, 0, 'exactly one event');
  assert.equal(ea.type, 'message');
  assert.deepEqual(ea.flags, ['mentioned']);
  const m = ea.message;
  for (const field of [...MESSAGE_FIELDS, 'stream_id']) assert.ok(field in m, `message.${field}`);
  assert.equal(m.id, res.body.id);
  assert.equal(m.type, 'stream');
  assert.equal(m.display_recipient, 'general');
  assert.equal(m.stream_id, generalId);
  assert.equal(m.subject, 'greetings');
  assert.equal(m.sender_id, t.owner.userId);
  assert.equal(m.sender_full_name, 'Olivia Owner');
  assert.equal(m.content_type, 'text/html');
  assert.equal(m.content, `<p>Hello <span class="user-mention" data-user-id="${ann.userId}">@Ann Lee</span>!</p>`);
  assert.equal(m.client, 'ConfabTest');
  assert.ok(Math.abs(m.timestamp - Date.now() / 1000) < 60);
  const [eb] = await queuedEvents(bob, qb);
  assert.deepEqual(eb.flags, []);
  assert.equal(eb.message.recipient_id, m.recipient_id);
  const [eo] = await queuedEvents(t.owner, qo);
  assert.deepEqual(eo.flags, ['read'], 'read_by_sender marks it read for the sender');
  assert.deepEqual(await queuedEvents(carl, qc), [], 'a non-subscriber gets nothing');
});

test('to: a channel id, a JSON name, a one-element list, a plain name; subject is the legacy topic', async () => {
  for (const to of [generalId, JSON.stringify('general'), JSON.stringify([generalId]), JSON.stringify(['general']), 'general', ' general ']) {
    const res = await toChannel(ann, to, 'forms', `to=${to}`);
    assert.equal(res.status, 200, `to=${to}: ${JSON.stringify(res.body)}`);
  }
  const channel = await ann.post('/messages', { type: 'channel', to: 'general', topic: 'forms', content: 'type channel' });
  assert.equal(channel.status, 200);
  const legacy = await ann.post('/messages', { type: 'stream', to: 'general', subject: 'old clients', content: 'subject' });
  assert.equal((await ann.get(`/messages/${legacy.body.id}`)).body.message.subject, 'old clients');
  // Both names at once: Zulip's refusal, on sending, editing and scheduling alike.
  const confusing = { result: 'error', msg: "Can't decide between 'topic' and 'subject' arguments", code: 'REQUEST_CONFUSING_VAR', var_name1: 'topic', var_name2: 'subject' };
  const both = await ann.post('/messages', { type: 'stream', to: 'general', topic: 'a', subject: 'b', content: 'both' });
  assert.deepEqual([both.status, both.body], [400, confusing]);
  const editBoth = await ann.patch(`/messages/${legacy.body.id}`, { topic: 'a', subject: 'b' });
  assert.deepEqual([editBoth.status, editBoth.body], [400, confusing]);
  const later = Math.floor(Date.now() / 1000) + 3600;
  const scheduleBoth = await ann.post('/scheduled_messages', { type: 'stream', to: generalId, topic: 'a', subject: 'b', content: 'x', scheduled_delivery_timestamp: later });
  assert.deepEqual([scheduleBoth.status, scheduleBoth.body], [400, confusing]);
  const scheduledLegacy = await ann.post('/scheduled_messages', { type: 'stream', to: generalId, subject: 'old scheduler', content: 'x', scheduled_delivery_timestamp: later });
  assert.equal(scheduledLegacy.status, 200, 'subject names the topic of a scheduled message too');
  const listed = (await ann.get('/scheduled_messages')).body.scheduled_messages.find((m: any) => m.scheduled_message_id === scheduledLegacy.body.scheduled_message_id);
  assert.equal(listed.topic, 'old scheduler');
  assert.equal((await ann.delete(`/scheduled_messages/${scheduledLegacy.body.scheduled_message_id}`)).status, 200);
  const two = await toChannel(ann, JSON.stringify([generalId, generalId]), 't', 'x');
  assert.deepEqual([two.status, two.body.msg], [400, 'Expected exactly one channel']);
  const bad = await toChannel(ann, 'true', 't', 'x');
  assert.deepEqual([bad.status, bad.body.msg], [400, 'Invalid data type for channel']);
  const type = await ann.post('/messages', { type: 'telegram', to: 'general', topic: 't', content: 'x' });
  assert.deepEqual([type.status, type.body.code], [400, 'BAD_REQUEST']);
  const noTo = await ann.post('/messages', { type: 'stream', topic: 't', content: 'x' });
  assert.deepEqual([noTo.body.code, noTo.body.var_name], ['REQUEST_VARIABLE_MISSING', 'to']);
  const noTopic = await toChannel(ann, 'general', undefined, 'x');
  assert.deepEqual([noTopic.status, noTopic.body.msg], [400, 'Missing topic']);
});

test('missing and inaccessible channels give the same error; archived and restricted channels refuse', async () => {
  const missing = await toChannel(bob, 'nowhere', 't', 'x');
  assert.equal(missing.status, 400);
  assert.deepEqual(missing.body, { result: 'error', msg: "Channel 'nowhere' does not exist", code: 'STREAM_DOES_NOT_EXIST', stream: 'nowhere' });
  const secret = await toChannel(bob, 'secret', 't', 'x');
  assert.deepEqual(secret.body, { result: 'error', msg: "Channel 'secret' does not exist", code: 'STREAM_DOES_NOT_EXIST', stream: 'secret' });
  const secretId = await channelId('secret');
  const byId = await toChannel(bob, secretId, 't', 'x');
  const missingId = await toChannel(bob, 99999999, 't', 'x');
  assert.deepEqual(byId.body, { result: 'error', msg: `Channel with ID '${secretId}' does not exist`, code: 'STREAM_DOES_NOT_EXIST', stream_id: secretId });
  assert.deepEqual(missingId.body.code, 'STREAM_DOES_NOT_EXIST');
  assert.equal((await toChannel(ann, 'secret', 't', 'a subscriber may')).status, 200);

  // Another organization's channel does not exist here.
  const other = await t.createOrg('Elsewhere');
  const theirs = await other.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'elsewhere-room' }] });
  assert.equal(theirs.status, 200);
  const theirId = (await other.owner.get('/get_stream_id', { stream: 'elsewhere-room' })).body.stream_id;
  assert.equal((await toChannel(ann, 'elsewhere-room', 't', 'x')).body.code, 'STREAM_DOES_NOT_EXIST');
  assert.equal((await toChannel(ann, theirId, 't', 'x')).body.code, 'STREAM_DOES_NOT_EXIST');

  const admins = (await t.owner.get('/user_groups')).body.user_groups.find((g: any) => g.name === 'role:administrators').id;
  await subscribe(t.owner, 'announce', [t.owner.userId, ann.userId], { can_send_message_group: admins });
  const denied = await toChannel(ann, 'announce', 't', 'may I?');
  assert.deepEqual([denied.status, denied.body.msg], [400, 'You do not have permission to post in this channel.']);
  assert.equal((await toChannel(t.owner, 'announce', 't', 'yes')).status, 200);

  await subscribe(t.owner, 'archive', [ann.userId]);
  const archiveId = await channelId('archive');
  assert.equal((await t.owner.delete(`/streams/${archiveId}`)).status, 200);
  const archived = await toChannel(ann, 'archive', 't', 'hello?');
  assert.deepEqual([archived.status, archived.body.msg], [400, "Not authorized to send to channel 'archive'"]);
});

test('guests send only to channels they can access', async () => {
  const outside = await toChannel(guest, 'general', 't', 'x');
  assert.equal(outside.body.code, 'STREAM_DOES_NOT_EXIST', 'a public channel a guest is not in is hidden from them');
  assert.equal((await toChannel(guest, 'guests-welcome', 't', 'hi all')).status, 200);
});

test('a bot posts where its owner is subscribed', async () => {
  const made = await ann.post('/bots', { full_name: 'Ann Helper', short_name: 'annhelper' });
  assert.equal(made.status, 200);
  const email = (await ann.get(`/users/${made.body.user_id}`)).body.user.email;
  const bot = new Client(t.url, email, made.body.api_key, made.body.user_id);
  assert.equal((await toChannel(bot, 'secret', 'bots', 'beep')).status, 200, "the owner's private channel");
  assert.equal((await toChannel(bot, 'guests-welcome', 'bots', 'beep')).status, 200, 'a public channel');
  const qa = await openQueue(ann, ['message']);
  const mention = await toChannel(t.owner, 'guests-welcome', 'bots', 'hey @**Ann Helper**');
  assert.equal(mention.status, 200);
  const botEvents = await (async () => {
    const q = await openQueue(bot, ['message']);
    await toChannel(t.owner, 'guests-welcome', 'bots', 'again @**Ann Helper**');
    return queuedEvents(bot, q);
  })();
  assert.equal(botEvents.length, 1, 'a mentioned generic bot receives the message though not subscribed');
  assert.deepEqual(botEvents[0].flags, ['mentioned']);
  assert.deepEqual(await queuedEvents(ann, qa), [], 'its owner does not');
});

test('direct messages: ids, emails, comma-separated emails, the sender ignored unless alone', async () => {
  const qb = await openQueue(bob, ['message']);
  const qa = await openQueue(ann, ['message']);
  const byId = await toUsers(ann, [bob.userId], 'hi bob', { read_by_sender: true });
  assert.equal(byId.status, 200);
  const [eb] = await queuedEvents(bob, qb);
  assert.equal(eb.message.type, 'private');
  assert.equal('stream_id' in eb.message, false);
  assert.equal(eb.message.subject, '');
  assert.deepEqual(eb.flags, []);
  assert.deepEqual(
    eb.message.display_recipient.map((u: any) => [u.id, u.email, u.full_name, u.is_mirror_dummy]).sort(),
    [[ann.userId, ann.email, 'Ann Lee', false], [bob.userId, bob.email, 'Bob Stone', false]].sort(),
  );
  const [ea] = await queuedEvents(ann, qa);
  assert.deepEqual(ea.flags, ['read']);

  const forms: unknown[] = [JSON.stringify([bob.email]), bob.email, JSON.stringify(bob.email), ` ${bob.email.toUpperCase()} `, [ann.userId, bob.userId], [bob.userId, bob.userId]];
  for (const to of forms) {
    const res = await toUsers(ann, to, `form ${JSON.stringify(to)}`);
    assert.equal(res.status, 200, `${JSON.stringify(to)}: ${JSON.stringify(res.body)}`);
    assert.equal((await ann.get(`/messages/${res.body.id}`)).body.message.recipient_id, eb.message.recipient_id, JSON.stringify(to));
  }
  const group = await toUsers(ann, `${bob.email},${carl.email}`, 'group');
  assert.equal(group.status, 200);
  const groupMsg = (await carl.get(`/messages/${group.body.id}`)).body.message;
  assert.deepEqual(groupMsg.display_recipient.map((u: any) => u.id).sort((a: number, b: number) => a - b), [ann.userId, bob.userId, carl.userId].sort((a, b) => a - b));
  assert.notEqual(groupMsg.recipient_id, eb.message.recipient_id);

  const self = await toUsers(ann, [ann.userId], 'note to self');
  const selfMsg = (await ann.get(`/messages/${self.body.id}`)).body.message;
  assert.deepEqual(selfMsg.display_recipient.map((u: any) => u.id), [ann.userId]);
});

test('direct message recipient errors', async () => {
  const cases: Array<[unknown, string]> = [
    [[99999999], 'Invalid user ID 99999999'],
    [JSON.stringify(['nobody@example.com']), "Invalid email 'nobody@example.com'"],
    [JSON.stringify([bob.userId, bob.email]), 'Recipient lists may contain emails or user IDs, but not both.'],
    [JSON.stringify([bob.email, bob.userId]), 'Recipient lists may contain emails or user IDs, but not both.'],
    ['7', 'Invalid data type for recipients'],
    ['{}', 'Invalid data type for recipients'],
    ['[]', 'Message must have recipients'],
  ];
  for (const [to, msg] of cases) {
    const res = await toUsers(ann, to, 'x');
    assert.deepEqual([res.status, res.body.code, res.body.msg], [400, 'BAD_REQUEST', msg], JSON.stringify(to));
  }
  const other = await t.createOrg('Another Org');
  const res = await toUsers(ann, [other.owner.userId], 'across organizations');
  assert.equal(res.body.msg, `Invalid user ID ${other.owner.userId}`);
  const byEmail = await toUsers(ann, JSON.stringify([other.owner.email]), 'x');
  assert.equal(byEmail.body.msg, `Invalid email '${other.owner.email}'`);

  const gone = await t.createUser({ name: 'Gone Away' });
  const off = await t.owner.delete(`/users/${gone.userId}`);
  assert.equal(off.status, 200);
  const toGone = await toUsers(ann, [gone.userId], 'hello?');
  assert.deepEqual([toGone.status, toGone.body.msg], [400, `'${gone.email}' is no longer using Zulip.`]);
});

test('the direct-message policy: who may take part, who may start a conversation', async () => {
  const groups = (await t.owner.get('/user_groups')).body.user_groups;
  const id = (name: string) => groups.find((g: any) => g.name === name).id;
  const dora = await t.createUser({ name: 'Dora Dee' });
  const eve = await t.createUser({ name: 'Eve Ewe' });
  try {
    assert.equal((await t.owner.patch('/realm', { direct_message_permission_group: JSON.stringify({ new: id('role:nobody') }) })).status, 200);
    const off = await toUsers(dora, [eve.userId], 'x');
    assert.deepEqual([off.status, off.body.msg], [400, 'Direct messages are disabled in this organization.']);
    assert.equal((await toUsers(dora, [dora.userId], 'to myself')).status, 200, 'notes to self are always allowed');
    assert.equal((await t.owner.patch('/realm', { direct_message_permission_group: JSON.stringify({ new: id('role:administrators') }) })).status, 200);
    const noAdmin = await toUsers(dora, [eve.userId], 'x');
    assert.equal(noAdmin.body.msg, 'This conversation does not include any users who can authorize it.');
    assert.equal((await toUsers(dora, [eve.userId, t.owner.userId], 'an administrator takes part')).status, 200);
    assert.equal((await t.owner.patch('/realm', { direct_message_permission_group: JSON.stringify({ new: id('role:everyone') }) })).status, 200);

    assert.equal((await t.owner.patch('/realm', { direct_message_initiator_group: JSON.stringify({ new: id('role:administrators') }) })).status, 200);
    const start = await toUsers(dora, [eve.userId], 'may I start?');
    assert.deepEqual([start.status, start.body.msg], [400, 'You do not have permission to initiate direct message conversations.']);
    assert.equal((await toUsers(t.owner, [dora.userId], 'an administrator starts')).status, 200);
    assert.equal((await toUsers(dora, [t.owner.userId], 'and Dora replies')).status, 200, 'replying to an existing conversation is allowed');
  } finally {
    await t.owner.patch('/realm', { direct_message_permission_group: JSON.stringify({ new: id('role:everyone') }) });
    await t.owner.patch('/realm', { direct_message_initiator_group: JSON.stringify({ new: id('role:everyone') }) });
  }
});

test('content: empty refused, trimmed, truncated at 10000 characters', async () => {
  for (const content of ['', '   ', '\n\n \t ']) {
    const res = await toChannel(ann, 'general', 't', content);
    assert.deepEqual([res.status, res.body.msg], [400, 'Message must not be empty'], JSON.stringify(content));
  }
  const trimmed = await toChannel(ann, 'general', 't', '\n\n  indented\nline   \n\n');
  assert.equal((await ann.get(`/messages/${trimmed.body.id}`)).body.raw_content, '  indented\nline');
  const long = await toChannel(ann, 'general', 't', 'é'.repeat(10050));
  assert.equal(long.status, 200);
  const raw = (await ann.get(`/messages/${long.body.id}`)).body.raw_content as string;
  assert.equal(raw.length, 10000);
  assert.ok(raw.endsWith('\n[message truncated]'));
  // Lengths count characters, not UTF-16 units: 9000 emoji fit.
  const emoji = await toChannel(ann, 'general', 't', '😀'.repeat(9000));
  assert.equal((await ann.get(`/messages/${emoji.body.id}`)).body.raw_content, '😀'.repeat(9000));
});

test('topics: truncated at 60 characters, "(no topic)" and "general chat" are the empty topic, bad characters refused', async () => {
  const long = await toChannel(ann, 'general', 'x'.repeat(80), 'long topic');
  const subject = (await ann.get(`/messages/${long.body.id}`)).body.message.subject;
  assert.equal(subject, 'x'.repeat(57) + '...');
  for (const topic of ['(no topic)', 'general chat', '', '   ']) {
    const res = await toChannel(ann, 'general', topic, `topic ${JSON.stringify(topic)}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const m = (await ann.get(`/messages/${res.body.id}`, { allow_empty_topic_name: true })).body.message;
    assert.equal(m.subject, '', JSON.stringify(topic));
    assert.equal((await ann.get(`/messages/${res.body.id}`)).body.message.subject, 'general chat');
  }
  const control = await toChannel(ann, 'general', 'bad\u0001topic', 'x');
  assert.deepEqual([control.status, control.body.msg], [400, 'Invalid character in topic, at position 4!']);
});

test('topics policy: the organization or the channel may require topics, or allow only the empty one', async () => {
  assert.equal((await t.owner.patch('/realm', { topics_policy: 'disable_empty_topic' })).status, 200);
  try {
    for (const topic of ['', '(no topic)', 'general chat']) {
      const res = await toChannel(ann, 'general', topic, 'x');
      assert.deepEqual([res.status, res.body.msg], [400, 'Sending messages to the general chat is not allowed in this channel.'], topic);
    }
    assert.equal((await toChannel(ann, 'general', 'named', 'fine')).status, 200);
  } finally {
    await t.owner.patch('/realm', { topics_policy: 'allow_empty_topic' });
  }
  await subscribe(t.owner, 'chat-only', [ann.userId], { topics_policy: 'empty_topic_only' });
  const named = await toChannel(ann, 'chat-only', 'a topic', 'x');
  assert.deepEqual([named.status, named.body.msg], [400, 'Only the general chat topic is allowed in this channel.']);
  assert.equal((await toChannel(ann, 'chat-only', '', 'x')).status, 200);
  await subscribe(t.owner, 'must-name', [ann.userId], { topics_policy: 'disable_empty_topic' });
  assert.equal((await toChannel(ann, 'must-name', '(no topic)', 'x')).status, 400);
  assert.equal((await toChannel(ann, 'must-name', 'named', 'x')).status, 200);
});

test('local echo: local_message_id only on the named queue; queue_id and local_id need each other', async () => {
  const q1 = await openQueue(ann, ['message']);
  const q2 = await openQueue(ann, ['message']);
  const res = await toChannel(ann, 'general', 'echo', 'echo', { queue_id: q1, local_id: '123.01' });
  assert.equal(res.status, 200);
  const [e1] = await queuedEvents(ann, q1);
  const [e2] = await queuedEvents(ann, q2);
  assert.equal(e1.local_message_id, '123.01');
  assert.equal('local_message_id' in e2, false);
  const noQueue = await toChannel(ann, 'general', 'echo', 'x', { local_id: '1' });
  assert.deepEqual([noQueue.status, noQueue.body.code, noQueue.body.var_name], [400, 'REQUEST_VARIABLE_MISSING', 'queue_id']);
  const noLocal = await toChannel(ann, 'general', 'echo', 'x', { queue_id: q1 });
  assert.deepEqual([noLocal.status, noLocal.body.var_name], [400, 'local_id']);
});

test('read_by_sender: explicit, or decided from the client name as Zulip does', async () => {
  const api = await toChannel(ann, 'general', 'rbs', 'from a script');
  assert.deepEqual(await flagsOf(ann, api.body.id), [], 'an API client does not mark its own message read');
  const explicit = await toChannel(ann, 'general', 'rbs', 'explicit', { read_by_sender: true });
  assert.deepEqual(await flagsOf(ann, explicit.body.id), ['read']);
  for (const agent of ['ZulipMobile/27.1', 'ZulipElectron/5.9', 'ZulipDesktop/1.0']) {
    const res = await ann.request('POST', '/messages', { type: 'stream', to: 'general', topic: 'rbs', content: agent }, { 'User-Agent': agent });
    assert.deepEqual(await flagsOf(ann, res.body.id), ['read'], agent);
  }
  const website = await toChannel(ann, 'general', 'rbs', 'web', { client: 'website', read_by_sender: false });
  assert.deepEqual(await flagsOf(ann, website.body.id), [], 'an explicit false wins over the client');
  const bad = await toChannel(ann, 'general', 'rbs', 'x', { read_by_sender: 'maybe' });
  assert.equal(bad.status, 400);
});

test('mention flags: personal, silent, channel and topic wildcards, groups', async () => {
  const silent = await toChannel(t.owner, 'general', 'mentions', 'fyi @_**Ann Lee**');
  assert.deepEqual(await flagsOf(ann, silent.body.id), []);
  const byId = await toChannel(t.owner, 'general', 'mentions', `hi @**Ann Lee|${ann.userId}**`);
  assert.deepEqual(await flagsOf(ann, byId.body.id), ['mentioned']);
  const wrongName = await toChannel(t.owner, 'general', 'mentions', `hi @**Bob Stone|${ann.userId}**`);
  assert.deepEqual(await flagsOf(ann, wrongName.body.id), [], 'a name that does not match the id mentions nobody');

  const all = await toChannel(t.owner, 'general', 'mentions', 'hello @**all**');
  assert.deepEqual(await flagsOf(ann, all.body.id), ['stream_wildcard_mentioned', 'wildcard_mentioned']);
  assert.deepEqual(await flagsOf(bob, all.body.id), ['stream_wildcard_mentioned', 'wildcard_mentioned']);

  // Topic wildcards reach those who have posted in the topic (the sender included).
  await toChannel(bob, 'general', 'topic wildcards', 'I was here');
  const topic = await toChannel(t.owner, 'general', 'topic wildcards', 'ping @**topic**', { read_by_sender: true });
  assert.deepEqual(await flagsOf(bob, topic.body.id), ['topic_wildcard_mentioned', 'wildcard_mentioned']);
  assert.deepEqual(await flagsOf(t.owner, topic.body.id), ['read', 'topic_wildcard_mentioned', 'wildcard_mentioned']);
  assert.deepEqual(await flagsOf(ann, topic.body.id), [], 'not a participant of the topic');

  const made = await t.owner.post('/user_groups/create', { name: 'reviewers', description: 'Code review', members: [ann.userId, carl.userId] });
  assert.equal(made.status, 200);
  const group = await toChannel(t.owner, 'general', 'mentions', 'over to @*reviewers*');
  assert.equal(group.status, 200);
  const html = (await ann.get(`/messages/${group.body.id}`)).body.message.content;
  assert.equal(html, `<p>over to <span class="user-group-mention" data-user-group-id="${made.body.group_id}">@reviewers</span></p>`);
  assert.deepEqual(await flagsOf(ann, group.body.id), ['mentioned']);
  assert.deepEqual(await flagsOf(bob, group.body.id), []);
  assert.equal((await carl.get(`/messages/${group.body.id}`)).status, 200, 'a public channel message is readable by members');
  assert.deepEqual(await flagsOf(carl, group.body.id), ['historical', 'read'], 'group members who are not subscribed get no row');

  const admins = (await t.owner.get('/user_groups')).body.user_groups.find((g: any) => g.name === 'role:administrators').id;
  const locked = await t.owner.post('/user_groups/create', { name: 'leads', description: 'Leads', members: [bob.userId], can_mention_group: admins });
  assert.equal(locked.status, 200);
  const refused = await toChannel(ann, 'general', 'mentions', 'calling @*leads*');
  assert.deepEqual([refused.status, refused.body.msg], [400, "You are not allowed to mention user group 'leads'."]);
  assert.equal((await toChannel(ann, 'general', 'mentions', 'quietly @_*leads*')).status, 200, 'silent group mentions need no permission');
  assert.equal((await toChannel(t.owner, 'general', 'mentions', 'calling @*leads*')).status, 200);
});

test('direct messages flag wildcards too; muted senders arrive read', async () => {
  const dm = await toUsers(ann, [bob.userId, carl.userId], 'attention @**everyone**');
  assert.deepEqual(await flagsOf(carl, dm.body.id), ['stream_wildcard_mentioned', 'wildcard_mentioned']);
  assert.equal((await carl.post(`/users/me/muted_users/${ann.userId}`)).status, 200);
  const muted = await toChannel(ann, 'general', 'muted', 'you muted me');
  assert.equal(muted.status, 200);
  const dm2 = await toUsers(ann, [carl.userId], 'still muted');
  assert.deepEqual(await flagsOf(carl, dm2.body.id), ['read']);
  assert.equal((await carl.delete(`/users/me/muted_users/${ann.userId}`)).status, 200);
});

test('the channel remembers its first message', async () => {
  await subscribe(t.owner, 'fresh', [t.owner.userId]);
  const id = await channelId('fresh');
  // A new channel's first message is the Notification Bot's channel-created one.
  const created = (await t.owner.get(`/streams/${id}`)).body.stream;
  const oldest = (await t.owner.get('/messages', { anchor: 'oldest', num_before: 0, num_after: 5, narrow: [{ operator: 'channel', operand: id }] })).body.messages;
  assert.deepEqual(oldest.map((m: any) => m.subject), ['channel events']);
  assert.equal(created.first_message_id, oldest[0].id);
  // Once that is gone the channel has none, until the next message.
  assert.equal((await t.owner.post(`/streams/${id}/delete_topic`, { topic_name: 'channel events' })).status, 200);
  const before = (await t.owner.get(`/streams/${id}`)).body.stream;
  assert.equal(before.first_message_id, null);
  const first = await toChannel(t.owner, 'fresh', 't', 'first');
  await toChannel(t.owner, 'fresh', 't', 'second');
  const after = (await t.owner.get(`/streams/${id}`)).body.stream;
  assert.equal(after.first_message_id, first.body.id);
});

test('a channel with many subscribers: every subscriber gets a row from one send', async () => {
  const many: Client[] = [];
  for (let i = 0; i < 40; i++) many.push(await t.createUser({ name: `Crowd ${i}` }));
  await subscribe(t.owner, 'crowd', [t.owner.userId, ...many.map((c) => c.userId)]);
  const res = await toChannel(t.owner, 'crowd', 'everyone', 'hello crowd');
  assert.equal(res.status, 200);
  const rows = await t.server.services.database.db.selectFrom('user_messages').select('user_id').where('message_id', '=', res.body.id).execute();
  assert.equal(rows.length, 41);
  const last = many[many.length - 1]!;
  const view = await last.get('/messages', { anchor: 'newest', num_before: 1, num_after: 0, narrow: [{ operator: 'channel', operand: 'crowd' }] });
  assert.deepEqual(view.body.messages.map((m: any) => [m.id, m.flags]), [[res.body.id, []]]);
});
