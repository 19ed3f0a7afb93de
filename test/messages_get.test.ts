// GET /messages and GET /messages/{id}: windows around every kind of anchor, every narrow
// operator in both encodings, what each reader may see (their own rows, open channel history,
// never a private channel's protected history or another organization's messages).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client, sendToChannel, startTestServer, type TestServer } from './helpers.js';
import { seedChannelHistory } from './beyond_api.js';

let t: TestServer;
let ann: Client;
let bob: Client;
let carl: Client;
let guest: Client;
let generalId: number;
/** Messages of the channel "general" in the topic "window", oldest first. */
const window: number[] = [];

const NEWEST = 10000000000000000;

before(async () => {
  t = await startTestServer();
  ann = await t.createUser({ name: 'Ann Lee' });
  bob = await t.createUser({ name: 'Bob Stone' });
  carl = await t.createUser({ name: 'Carl Oak' });
  guest = await t.createUser({ role: 'guest', name: 'Gina Guest' });
  await subscribe('general', [t.owner.userId, ann.userId, bob.userId]);
  generalId = (await t.owner.get('/get_stream_id', { stream: 'general' })).body.stream_id;
  for (let i = 0; i < 6; i++) window.push(await sendToChannel(bob, 'general', 'window', `window ${i}`));
});
after(async () => {
  await t.close();
});

async function subscribe(name: string, principals: number[], extra: Record<string, unknown> = {}) {
  const res = await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name }], principals, ...extra } as Record<string, object>);
  assert.equal(res.status, 200, JSON.stringify(res.body));
}

async function fetch(c: Client, params: Record<string, unknown>) {
  const res = await c.get('/messages', params as Record<string, string>);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

const idsOf = (body: any): number[] => body.messages.map((m: any) => m.id);
const inWindow = [{ operator: 'channel', operand: 'general' }, { operator: 'topic', operand: 'window' }];

test('anchors: newest, oldest, a message id, between ids, first unread, with found_* as Zulip reports them', async () => {
  const newest = await fetch(ann, { anchor: 'newest', num_before: 2, num_after: 3, narrow: inWindow });
  assert.deepEqual(idsOf(newest), window.slice(-2));
  assert.deepEqual([newest.anchor, newest.found_anchor, newest.found_oldest, newest.found_newest, newest.history_limited], [NEWEST, false, false, true, false]);

  const oldest = await fetch(ann, { anchor: 'oldest', num_before: 3, num_after: 2, narrow: inWindow });
  assert.deepEqual(idsOf(oldest), window.slice(0, 2));
  assert.deepEqual([oldest.anchor, oldest.found_oldest, oldest.found_newest], [0, true, false]);

  const around = await fetch(ann, { anchor: window[2], num_before: 1, num_after: 1, narrow: inWindow });
  assert.deepEqual(idsOf(around), window.slice(1, 4));
  assert.deepEqual([around.anchor, around.found_anchor, around.found_oldest, around.found_newest], [window[2], true, false, false]);

  const all = await fetch(ann, { anchor: window[2], num_before: 10, num_after: 10, narrow: inWindow });
  assert.deepEqual(idsOf(all), window);
  assert.deepEqual([all.found_oldest, all.found_newest], [true, true]);

  const onlyAnchor = await fetch(ann, { anchor: window[3], narrow: inWindow });
  assert.deepEqual(idsOf(onlyAnchor), [window[3]], 'num_before and num_after default to 0');

  const excluded = await fetch(ann, { anchor: window[3], num_before: 2, include_anchor: false, narrow: inWindow });
  assert.deepEqual(idsOf(excluded), window.slice(1, 3));
  assert.equal(excluded.found_anchor, false);

  const beyond = await fetch(ann, { anchor: window[5]! + 1000, num_before: 1, narrow: inWindow });
  assert.deepEqual([idsOf(beyond), beyond.anchor, beyond.found_anchor], [[window[5]], window[5]! + 1000, false]);

  const negative = await fetch(ann, { anchor: -5, num_after: 1, narrow: inWindow });
  assert.deepEqual([negative.anchor, idsOf(negative), negative.found_oldest], [0, [window[0]], true]);
  const huge = await fetch(ann, { anchor: '99999999999999999999', num_before: 1, narrow: inWindow });
  assert.deepEqual([huge.anchor, idsOf(huge), huge.found_newest], [NEWEST, [window[5]], true]);

  // Ann has read nothing yet: the first unread is the first message of the narrow.
  const firstUnread = await fetch(ann, { anchor: 'first_unread', num_before: 0, num_after: 1, narrow: inWindow });
  assert.deepEqual([firstUnread.anchor, idsOf(firstUnread)], [window[0], window.slice(0, 2)]);
  const legacy = await fetch(ann, { use_first_unread_anchor: true, num_after: 1, narrow: inWindow });
  assert.deepEqual(idsOf(legacy), window.slice(0, 2));
  // The sender's own API-sent messages are unread for them too; with everything read, the anchor is the newest.
  await ann.post('/messages/flags', { messages: window, op: 'add', flag: 'read' });
  const allRead = await fetch(ann, { anchor: 'first_unread', num_before: 1, num_after: 1, narrow: inWindow });
  assert.deepEqual([allRead.anchor, idsOf(allRead), allRead.found_newest], [NEWEST, [window[5]], true]);
});

test('parameters are validated as Zulip validates them', async () => {
  const missing = await ann.get('/messages', { num_before: 1 });
  // parse_anchor_value's own sentence and code, not the missing-argument error.
  assert.deepEqual([missing.status, missing.body.code, missing.body.msg], [400, 'BAD_REQUEST', "Missing 'anchor' argument."]);
  const cases: Array<[Record<string, unknown>, string, string]> = [
    [{ anchor: 'middle' }, 'BAD_REQUEST', 'Invalid anchor'],
    [{ anchor: '1.5' }, 'BAD_REQUEST', 'Invalid anchor'],
    [{ anchor: 'newest', num_before: -1 }, 'BAD_REQUEST', 'num_before is too small'],
    [{ anchor: 'newest', num_after: 'many' }, 'BAD_REQUEST', 'num_after is not an integer'],
    [{ anchor: 'newest', num_before: 4000, num_after: 1001 }, 'BAD_REQUEST', 'Too many messages requested (maximum 5000).'],
    [{ anchor: window[2], num_before: 1, num_after: 1, include_anchor: false }, 'BAD_REQUEST', 'The anchor can only be excluded at an end of the range'],
    [{ anchor: 'newest', narrow: '[{' }, 'BAD_REQUEST', 'narrow is not valid JSON'],
    [{ anchor: 'newest', narrow: '{}' }, 'BAD_REQUEST', 'narrow is not a list'],
    [{ anchor: 'newest', narrow: [['channel', 5]] }, 'BAD_REQUEST', 'Invalid narrow: element is not a string pair'],
    [{ anchor: 'newest', narrow: [{ operator: 'nonsense', operand: 'x' }] }, 'BAD_NARROW', 'Invalid narrow operator: unknown operator nonsense'],
    [{ anchor: 'newest', narrow: [{ operator: 'is', operand: 'sleepy' }] }, 'BAD_NARROW', "Invalid narrow operator: unknown 'is' operand sleepy"],
    [
      { anchor: 'newest', narrow: [{ operator: 'channel', operand: 'general' }, { operator: 'is', operand: 'dm' }] },
      'BAD_NARROW',
      'Invalid narrow operator: No message can be both a channel message and direct message',
    ],
    [{ anchor: 'newest', apply_markdown: 'perhaps' }, 'BAD_REQUEST', 'apply_markdown is not a boolean'],
  ];
  for (const [params, code, msg] of cases) {
    const res = await ann.get('/messages', params as Record<string, string>);
    assert.deepEqual([res.status, res.body.code, res.body.msg], [400, code, msg], JSON.stringify(params));
  }
  assert.equal((await ann.get('/messages', { anchor: 'newest', num_before: 5000, num_after: 0 })).status, 200, 'exactly 5000 is allowed');
});

test('narrows: channel by name or id, topic, sender, id, search, negation, legacy pairs', async () => {
  const other = await sendToChannel(ann, 'general', 'Other Topic', 'not in the window');
  const byId = await fetch(ann, { anchor: 'newest', num_before: 20, narrow: [{ operator: 'channel', operand: generalId }, { operator: 'topic', operand: 'WINDOW' }] });
  assert.deepEqual(idsOf(byId), window, 'topics match without regard to case');
  const legacy = await fetch(ann, { anchor: 'newest', num_before: 20, narrow: [['stream', 'general'], ['subject', 'window']] });
  assert.deepEqual(idsOf(legacy), window);
  const bySender = await fetch(ann, { anchor: 'newest', num_before: 20, narrow: [{ operator: 'channel', operand: 'general' }, { operator: 'sender', operand: ann.email }] });
  assert.deepEqual(idsOf(bySender), [other]);
  const senderId = await fetch(ann, { anchor: 'newest', num_before: 20, narrow: [{ operator: 'sender', operand: ann.userId }, { operator: 'channel', operand: 'general' }] });
  assert.deepEqual(idsOf(senderId), [other]);
  const me = await fetch(ann, { anchor: 'newest', num_before: 20, narrow: [['sender', 'me'], ['stream', 'general']] });
  assert.deepEqual(idsOf(me), [other]);
  const notWindow = await fetch(ann, { anchor: 'newest', num_before: 20, narrow: [{ operator: 'channel', operand: 'general' }, { operator: 'topic', operand: 'window', negated: true }] });
  assert.ok(idsOf(notWindow).includes(other) && !idsOf(notWindow).some((id) => window.includes(id)));
  const one = await fetch(ann, { anchor: 'newest', num_before: 20, narrow: [{ operator: 'id', operand: window[1] }] });
  assert.deepEqual(idsOf(one), [window[1]]);
  const search = await fetch(ann, { anchor: 'newest', num_before: 20, narrow: [{ operator: 'search', operand: 'WINDOW 4' }] });
  assert.deepEqual(idsOf(search), [window[4]]);
  const publicOnly = await fetch(ann, { anchor: 'newest', num_before: 20, narrow: [{ operator: 'channels', operand: 'public' }] });
  assert.ok(idsOf(publicOnly).includes(other));
  const unknownChannel = await ann.get('/messages', { anchor: 'newest', narrow: [{ operator: 'channel', operand: 'no-such' }] });
  assert.equal(unknownChannel.body.code, 'BAD_NARROW');
});

test('channels:web-public: the web-public channels, with no history for a logged-in viewer (as Zulip includes none)', async () => {
  assert.equal((await t.owner.patch('/realm', { enable_spectator_access: true })).status, 200);
  await subscribe('showcase', [t.owner.userId, ann.userId], { is_web_public: true });
  const shown = await sendToChannel(t.owner, 'showcase', 'demo', 'on the web');
  const plain = await sendToChannel(t.owner, 'general', 'demo', 'members only');
  const narrow = [{ operator: 'channels', operand: 'web-public' }];
  const mine = idsOf(await fetch(ann, { anchor: 'newest', num_before: 20, narrow }));
  assert.ok(mine.includes(shown) && !mine.includes(plain), JSON.stringify(mine));
  assert.deepEqual(idsOf(await fetch(ann, { anchor: 'newest', num_before: 20, narrow: [['streams', 'web-public']] })), mine, 'the legacy spelling');
  assert.deepEqual(idsOf(await fetch(bob, { anchor: 'newest', num_before: 20, narrow })), [], 'not received: no history');
  assert.ok(idsOf(await fetch(bob, { anchor: 'newest', num_before: 20, narrow: [{ operator: 'channels', operand: 'public' }] })).includes(shown), 'channels:public reads history');
  const unknown = await ann.get('/messages', { anchor: 'newest', narrow: [{ operator: 'channels', operand: 'private' }] });
  assert.deepEqual([unknown.body.code, unknown.body.msg], ['BAD_NARROW', 'Invalid narrow operator: unknown channels operand private']);
});

test('the empty topic: "general chat" in a topic narrow, and allow_empty_topic_name', async () => {
  const empty = await sendToChannel(ann, 'general', '', 'in the general chat');
  const shown = await fetch(ann, { anchor: 'newest', num_before: 5, narrow: [{ operator: 'channel', operand: 'general' }, { operator: 'topic', operand: 'general chat' }] });
  assert.deepEqual(idsOf(shown), [empty]);
  assert.equal(shown.messages[0].subject, 'general chat');
  const raw = await fetch(ann, { anchor: 'newest', num_before: 5, allow_empty_topic_name: true, narrow: [{ operator: 'channel', operand: 'general' }, { operator: 'topic', operand: '' }] });
  assert.deepEqual([idsOf(raw), raw.messages[0].subject], [[empty], '']);
});

test('direct-message narrows: by ids or emails, group conversations, is:dm and its legacy name', async () => {
  const one = (await bob.post('/messages', { type: 'direct', to: [carl.userId], content: 'bob to carl' })).body.id;
  const group = (await bob.post('/messages', { type: 'direct', to: [carl.userId, ann.userId], content: 'to both' })).body.id;
  const byIds = await fetch(carl, { anchor: 'newest', num_before: 5, narrow: [{ operator: 'dm', operand: [bob.userId] }] });
  assert.deepEqual(idsOf(byIds), [one]);
  const byEmail = await fetch(carl, { anchor: 'newest', num_before: 5, narrow: [['pm-with', bob.email]] });
  assert.deepEqual(idsOf(byEmail), [one]);
  const withSelf = await fetch(carl, { anchor: 'newest', num_before: 5, narrow: [{ operator: 'dm', operand: [bob.userId, carl.userId] }] });
  assert.deepEqual(idsOf(withSelf), [one], 'naming oneself changes nothing');
  const groupNarrow = await fetch(carl, { anchor: 'newest', num_before: 5, narrow: [{ operator: 'dm', operand: `${ann.email},${bob.email}` }] });
  assert.deepEqual(idsOf(groupNarrow), [group]);
  for (const operand of ['dm', 'private']) {
    const dms = await fetch(carl, { anchor: 'newest', num_before: 50, narrow: [{ operator: 'is', operand }] });
    assert.deepEqual(idsOf(dms), [one, group]);
    assert.ok(dms.messages.every((m: any) => m.type === 'private'));
  }
  const none = await fetch(ann, { anchor: 'newest', num_before: 5, narrow: [{ operator: 'dm', operand: [bob.userId] }] });
  assert.deepEqual(idsOf(none), [], "Ann does not see Bob's conversation with Carl");
  const unknown = await carl.get('/messages', { anchor: 'newest', narrow: [{ operator: 'dm', operand: ['nobody@example.com'] }] });
  assert.equal(unknown.body.code, 'BAD_NARROW');
});

test('flag narrows: is:starred, is:mentioned, is:unread', async () => {
  const mention = await sendToChannel(t.owner, 'general', 'flags', 'hey @**Bob Stone**');
  const plain = await sendToChannel(t.owner, 'general', 'flags', 'no mention');
  assert.equal((await bob.post('/messages/flags', { messages: [plain], op: 'add', flag: 'starred' })).status, 200);
  const flagsNarrow = (operand: string) => [{ operator: 'is', operand }, { operator: 'channel', operand: 'general' }, { operator: 'topic', operand: 'flags' }];
  assert.deepEqual(idsOf(await fetch(bob, { anchor: 'newest', num_before: 10, narrow: flagsNarrow('starred') })), [plain]);
  assert.deepEqual(idsOf(await fetch(bob, { anchor: 'newest', num_before: 10, narrow: flagsNarrow('mentioned') })), [mention]);
  assert.deepEqual(idsOf(await fetch(bob, { anchor: 'newest', num_before: 10, narrow: flagsNarrow('unread') })), [mention, plain]);
  await bob.post('/messages/flags', { messages: [mention], op: 'add', flag: 'read' });
  const unread = await fetch(bob, { anchor: 'newest', num_before: 10, narrow: flagsNarrow('unread') });
  assert.deepEqual(idsOf(unread), [plain]);
  assert.deepEqual(unread.messages[0].flags.sort(), ['starred']);
});

test('apply_markdown, client_gravatar and the message object', async () => {
  const id = await sendToChannel(ann, 'general', 'format', '**bold** /me');
  const html = await fetch(ann, { anchor: id, narrow: [{ operator: 'id', operand: id }] });
  assert.deepEqual([html.messages[0].content, html.messages[0].content_type], ['<p><strong>bold</strong> /me</p>', 'text/html']);
  const raw = await fetch(ann, { anchor: id, apply_markdown: false, narrow: [{ operator: 'id', operand: id }] });
  assert.deepEqual([raw.messages[0].content, raw.messages[0].content_type], ['**bold** /me', 'text/x-markdown']);
  const gravatar = await fetch(ann, { anchor: id, client_gravatar: false, narrow: [{ operator: 'id', operand: id }] });
  assert.match(gravatar.messages[0].avatar_url, /^https:\/\//);
  const m = html.messages[0];
  assert.deepEqual([m.is_me_message, typeof m.sender_realm_str, m.display_recipient, m.stream_id, m.topic_links, m.reactions, m.submessages], [false, 'string', 'general', generalId, [], [], []]);
  const me = await sendToChannel(ann, 'general', 'format', '/me waves');
  assert.equal((await ann.get(`/messages/${me}`)).body.message.is_me_message, true);
  const bare = await sendToChannel(ann, 'general', 'format', '/me');
  assert.equal((await ann.get(`/messages/${bare}`)).body.message.is_me_message, false, 'Zulip needs "/me " with the space');
});

test('history: open channel history reads as read+historical; protected history and other channels stay hidden', async () => {
  const early = await sendToChannel(t.owner, 'general', 'history', 'before carl');
  const inChannel = await fetch(carl, { anchor: 'newest', num_before: 10, narrow: [{ operator: 'channel', operand: 'general' }, { operator: 'topic', operand: 'history' }] });
  assert.deepEqual(idsOf(inChannel), [early], 'a member reads a public channel without subscribing');
  assert.deepEqual(inChannel.messages[0].flags.sort(), ['historical', 'read']);
  const home = await fetch(carl, { anchor: 'newest', num_before: 50 });
  assert.ok(!idsOf(home).includes(early), 'without a channel narrow only received messages count');
  const asGuest = await guest.get('/messages', { anchor: 'newest', num_before: 10, narrow: [{ operator: 'channel', operand: 'general' }] });
  const noChannel = await guest.get('/messages', { anchor: 'newest', num_before: 10, narrow: [{ operator: 'channel', operand: 'nonexistent' }] });
  assert.equal(asGuest.status, 400, 'a guest cannot see a public channel they are not in');
  assert.deepEqual({ ...asGuest.body, msg: asGuest.body.msg.replace('general', 'X') }, { ...noChannel.body, msg: noChannel.body.msg.replace('nonexistent', 'X') });
  assert.equal((await guest.get(`/messages/${early}`)).body.msg, 'Invalid message(s)');

  await subscribe('protected', [t.owner.userId], { invite_only: true, history_public_to_subscribers: false });
  const before = await sendToChannel(t.owner, 'protected', 't', 'before ann');
  await subscribe('protected', [ann.userId]);
  const afterId = await sendToChannel(t.owner, 'protected', 't', 'after ann');
  const annView = await fetch(ann, { anchor: 'newest', num_before: 10, narrow: [{ operator: 'channel', operand: 'protected' }] });
  assert.deepEqual(idsOf(annView), [afterId], 'protected history is not shown');
  assert.equal((await ann.get(`/messages/${before}`)).status, 400);
  const outsider = await bob.get('/messages', { anchor: 'newest', num_before: 10, narrow: [{ operator: 'channel', operand: 'protected' }] });
  assert.equal(outsider.body.code, 'BAD_NARROW', 'a private channel is unknown to non-subscribers');
  const protectedId = (await t.owner.get('/get_stream_id', { stream: 'protected' })).body.stream_id;
  const missing = await bob.get('/messages', { anchor: 'newest', num_before: 10, narrow: [{ operator: 'channel', operand: 999999 }] });
  const outsiderById = await bob.get('/messages', { anchor: 'newest', num_before: 10, narrow: [{ operator: 'channel', operand: protectedId }] });
  assert.deepEqual([outsiderById.status, outsiderById.body], [400, { ...missing.body, msg: `Invalid narrow operator: unknown channel ${protectedId}` }], 'by id too, a private channel is as unknown as a missing one');
  // A subscription ended (its row kept, inactive) gives no access.
  await subscribe('protected', [carl.userId]);
  assert.equal((await carl.get('/messages', { anchor: 'newest', num_before: 10, narrow: [{ operator: 'channel', operand: protectedId }] })).status, 200);
  assert.equal((await carl.delete('/users/me/subscriptions', { subscriptions: ['protected'] })).status, 200);
  const former = await carl.get('/messages', { anchor: 'newest', num_before: 10, narrow: [{ operator: 'channel', operand: 'protected' }] });
  assert.deepEqual([former.status, former.body], [400, { ...noChannel.body, msg: 'Invalid narrow operator: unknown channel protected' }]);

  await subscribe('shared', [t.owner.userId], { invite_only: true, history_public_to_subscribers: true });
  const old = await sendToChannel(t.owner, 'shared', 't', 'old news');
  await subscribe('shared', [ann.userId]);
  const shared = await fetch(ann, { anchor: 'newest', num_before: 10, narrow: [{ operator: 'channel', operand: 'shared' }] });
  assert.deepEqual(shared.messages.map((m: any) => m.subject), ['channel events', 't'], 'the channel-created message is history too');
  assert.deepEqual(idsOf(shared).slice(1), [old], 'a private channel with shared history shows it to new subscribers');
  assert.deepEqual(shared.messages[0].flags.sort(), ['historical', 'read']);
  const single = await ann.get(`/messages/${old}`);
  assert.deepEqual([single.status, single.body.message?.flags.sort()], [200, ['historical', 'read']], 'one message of the shared history, by id');
});

test('a window carries each message its own reactions and submessages, and each channel its name', async () => {
  await subscribe('extras', [t.owner.userId, ann.userId, bob.userId]);
  const poll = await sendToChannel(ann, 'extras', 'mixed', '/poll Lunch?\nPizza\nSoup');
  const plain = await sendToChannel(bob, 'extras', 'mixed', 'plain words');
  const liked = await sendToChannel(bob, 'extras', 'mixed', 'nice words');
  const react = async (c: Client, id: number, emoji_name: string) => assert.equal((await c.post(`/messages/${id}/reactions`, { emoji_name })).status, 200);
  await react(ann, liked, 'octopus');
  await react(bob, poll, 'tada');
  await react(t.owner, liked, 'octopus');
  await react(bob, liked, 'tada');
  const vote = JSON.stringify({ type: 'vote', key: 'canned,1', vote: 1 });
  assert.equal((await bob.post('/submessage', { message_id: poll, msg_type: 'widget', content: vote })).status, 200);

  const page = await fetch(bob, { anchor: 'newest', num_before: 10, narrow: [{ operator: 'channel', operand: 'extras' }, { operator: 'topic', operand: 'mixed' }] });
  assert.deepEqual(idsOf(page), [poll, plain, liked]);
  const [p, q, l] = page.messages;
  const reaction = (c: Client, name: string, code: string) => ({ emoji_name: name, emoji_code: code, reaction_type: 'unicode_emoji', user_id: c.userId });
  assert.deepEqual(
    [p.reactions, q.reactions, l.reactions],
    [[reaction(bob, 'tada', '1f389')], [], [reaction(ann, 'octopus', '1f419'), reaction(t.owner, 'octopus', '1f419'), reaction(bob, 'tada', '1f389')]],
    'in the order they were added',
  );
  assert.deepEqual(
    p.submessages.map((s: any) => [s.message_id, s.sender_id, s.msg_type, s.content === vote]),
    [
      [poll, ann.userId, 'widget', false],
      [poll, bob.userId, 'widget', true],
    ],
  );
  assert.ok(p.submessages[0].id < p.submessages[1].id);
  assert.deepEqual([q.submessages, l.submessages], [[], []]);
  assert.deepEqual(page.messages.map((m: any) => m.display_recipient), ['extras', 'extras', 'extras']);
  // Named by a negated term, a channel's messages are not in the window; the others' names still are.
  const elsewhere = await fetch(bob, { anchor: 'newest', num_before: 50, narrow: [{ operator: 'channel', operand: 'general', negated: true }] });
  const names = new Map(elsewhere.messages.map((m: any) => [m.id, m.display_recipient]));
  assert.deepEqual([names.get(poll), names.get(liked), names.has(window[0])], ['extras', 'extras', false]);
});

test("another organization's messages are never visible", async () => {
  const other = await t.createOrg('Elsewhere');
  await other.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'general' }] });
  const theirs = (await other.owner.post('/messages', { type: 'stream', to: 'general', topic: 'window', content: 'elsewhere' })).body.id;
  assert.equal((await ann.get(`/messages/${theirs}`)).body.msg, 'Invalid message(s)');
  const byId = await fetch(ann, { anchor: 'newest', num_before: 10, narrow: [{ operator: 'id', operand: theirs }] });
  assert.deepEqual(idsOf(byId), []);
  const byChannel = await fetch(ann, { anchor: 'newest', num_before: 50, narrow: inWindow });
  assert.ok(!idsOf(byChannel).includes(theirs));
  const everything = await fetch(t.owner, { anchor: 'newest', num_before: 5000 });
  assert.ok(!idsOf(everything).includes(theirs));
});

test('GET /messages/{id}: raw_content, apply_markdown, and one error for missing or inaccessible', async () => {
  const id = await sendToChannel(ann, 'general', 'single', 'some *text*');
  const res = await ann.get(`/messages/${id}`);
  assert.equal(res.status, 200);
  assert.equal(res.body.raw_content, 'some *text*');
  assert.equal(res.body.message.content, '<p>some <em>text</em></p>');
  assert.deepEqual(res.body.message.flags, []);
  const raw = await ann.get(`/messages/${id}`, { apply_markdown: false });
  assert.equal(raw.body.message.content, 'some *text*');
  const dm = (await ann.post('/messages', { type: 'direct', to: [bob.userId], content: 'private words' })).body.id;
  const snoop = await carl.get(`/messages/${dm}`);
  const missing = await carl.get('/messages/999999999');
  assert.deepEqual(snoop.body, missing.body);
  assert.deepEqual([missing.status, missing.body.code, missing.body.msg], [400, 'BAD_REQUEST', 'Invalid message(s)']);
  assert.equal((await carl.get('/messages/abc')).status, 400);
});

test("GET /messages/{id} after leaving a private channel: Zulip's access_message requires access to the channel, not only the message's row", async () => {
  await subscribe('inner circle', [ann.userId, bob.userId], { invite_only: true });
  const id = await sendToChannel(ann, 'inner circle', 'plans', 'just between us');
  assert.equal((await bob.get(`/messages/${id}`)).status, 200);
  assert.equal((await t.owner.delete('/users/me/subscriptions', { subscriptions: ['inner circle'], principals: [bob.userId] })).status, 200);
  const gone = await bob.get(`/messages/${id}`);
  assert.deepEqual([gone.status, gone.body.msg], [400, 'Invalid message(s)']);
  assert.equal((await bob.get(`/messages/${id}/history`)).status, 400, 'nor its edit history');
  assert.equal((await ann.get(`/messages/${id}`)).status, 200, 'a subscriber still reads it');
});

// Correctness over a large channel; its speed is the benchmark's figure (GET /messages topic narrow).
test('a channel-and-topic narrow over a large channel finds its messages', { timeout: 120_000 }, async () => {
  await subscribe('big', [t.owner.userId, ann.userId]);
  const bigId = (await t.owner.get('/get_stream_id', { stream: 'big' })).body.stream_id;
  // 20,000 messages in other topics, written straight to the store.
  await seedChannelHistory(t, {
    channelId: bigId, senderId: t.owner.userId, readerId: ann.userId, flags: 1, count: 20_000,
    topic: (n) => `noise ${n % 97}`, content: () => 'noise',
  });
  const wanted: number[] = [];
  for (let i = 0; i < 5; i++) wanted.push(await sendToChannel(t.owner, 'big', 'needle', `needle ${i}`));
  const narrow = [{ operator: 'channel', operand: 'big' }, { operator: 'topic', operand: 'needle' }];
  await fetch(ann, { anchor: 'newest', num_before: 50, narrow });
  const body = await fetch(ann, { anchor: 'newest', num_before: 50, narrow });
  assert.deepEqual(idsOf(body), wanted);
});
