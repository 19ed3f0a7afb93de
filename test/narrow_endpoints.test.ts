// GET /messages/matches_narrow, POST /messages/flags/narrow and GET /messages/{id}/read_receipts.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client, openQueue, queuedEvents, startTestServer, type TestServer, sendToChannel } from './helpers.js';
import { setMessageDate } from './beyond_api.js';

let t: TestServer;
let ann: Client;
let bob: Client;
let carl: Client;
let dora: Client;

before(async () => {
  t = await startTestServer();
  ann = await t.createUser({ name: 'Ann Lee' });
  bob = await t.createUser({ name: 'Bob Stone' });
  carl = await t.createUser({ name: 'Carl Oak' });
  dora = await t.createUser({ name: 'Dora Elm' });
  for (const name of ['general', 'random']) {
    const res = await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name }], principals: [t.owner.userId, ann.userId, bob.userId, carl.userId] });
    assert.equal(res.status, 200, JSON.stringify(res.body));
  }
});
after(async () => {
  await t.close();
});


test('matches_narrow: which of the given messages match, with search highlighting', async () => {
  const a = await sendToChannel(bob, 'general', 'Lunch plans', 'Pizza at noon?');
  const b = await sendToChannel(bob, 'general', 'other', 'no food talk');
  const c = await sendToChannel(bob, 'random', 'lunch', 'pizza again');
  const dmId = (await bob.post('/messages', { type: 'private', to: [carl.userId], content: 'pizza secret' })).body.id;

  const res = await ann.get('/messages/matches_narrow', { msg_ids: [a, b, c, dmId, 99999], narrow: [{ operator: 'search', operand: 'pizza' }] });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual(Object.keys(res.body.messages).sort(), [String(a), String(c)].sort(), 'not the DM Ann did not receive, nor a missing id');
  assert.deepEqual(res.body.messages[a], { match_content: '<p><span class="highlight">Pizza</span> at noon?</p>', match_subject: 'Lunch plans' });

  const topicSearch = await ann.get('/messages/matches_narrow', { msg_ids: [a, c], narrow: [{ operator: 'search', operand: 'lunch' }] });
  assert.equal(topicSearch.body.messages[a].match_subject, '<span class="highlight">Lunch</span> plans');

  // Without a search: the HTML and the escaped topic as they are.
  const channel = await ann.get('/messages/matches_narrow', { msg_ids: [a, b, c], narrow: [['channel', 'general']] });
  assert.deepEqual(channel.body.messages, {
    [a]: { match_content: '<p>Pizza at noon?</p>', match_subject: 'Lunch plans' },
    [b]: { match_content: '<p>no food talk</p>', match_subject: 'other' },
  });
  const empty = await ann.get('/messages/matches_narrow', { msg_ids: [], narrow: [] });
  assert.deepEqual(empty.body.messages, {});

  for (const [params, msg] of [
    [{ narrow: [] }, "Missing 'msg_ids' argument"],
    [{ msg_ids: [a] }, "Missing 'narrow' argument"],
    [{ msg_ids: 'x', narrow: [] }, 'msg_ids is not valid JSON'],
    [{ msg_ids: [a], narrow: [{ operator: 'has', operand: 'gifs' }] }, "Invalid narrow operator: unknown 'has' operand gifs"],
  ] as const) {
    const bad = await ann.get('/messages/matches_narrow', params as unknown as Record<string, object>);
    assert.deepEqual([bad.status, bad.body.result, bad.body.msg], [400, 'error', msg], JSON.stringify(params));
  }
});

test('flags/narrow: marks a window of a narrow, reports counts and ends, and sends the flag event', async () => {
  const ids: number[] = [];
  for (let i = 0; i < 5; i++) ids.push(await sendToChannel(bob, 'general', 'bulk', `bulk ${i}`));
  const q = await openQueue(ann, ['update_message_flags']);
  const narrow = [{ operator: 'channel', operand: 'general' }, { operator: 'topic', operand: 'bulk' }];

  const first = await ann.post('/messages/flags/narrow', { anchor: String(ids[1]), include_anchor: true, num_before: 0, num_after: 2, narrow, op: 'add', flag: 'read' });
  assert.equal(first.status, 200, JSON.stringify(first.body));
  assert.deepEqual(first.body, {
    result: 'success',
    msg: '',
    processed_count: 3,
    updated_count: 3,
    first_processed_id: ids[1],
    last_processed_id: ids[3],
    found_oldest: false,
    found_newest: false,
  });
  const events = await queuedEvents(ann, q);
  assert.deepEqual(
    events.filter((e) => e.type === 'update_message_flags').map((e) => [e.op, e.flag, e.messages]),
    [['add', 'read', ids.slice(1, 4)]],
  );

  // Already read messages are processed but not updated; the window reaches both ends.
  const all = await ann.post('/messages/flags/narrow', { anchor: 'oldest', num_before: 0, num_after: 100, narrow, op: 'add', flag: 'read' });
  assert.deepEqual([all.body.processed_count, all.body.updated_count, all.body.first_processed_id, all.body.last_processed_id, all.body.found_oldest, all.body.found_newest], [5, 2, ids[0], ids[4], true, true]);

  const starred = await ann.post('/messages/flags/narrow', { anchor: 'newest', num_before: 2, num_after: 0, narrow, op: 'add', flag: 'starred' });
  assert.deepEqual([starred.body.processed_count, starred.body.updated_count, starred.body.first_processed_id, starred.body.last_processed_id], [2, 2, ids[3], ids[4]]);
  const view = await ann.get('/messages', { anchor: 'newest', num_before: 10, narrow: [...narrow, { operator: 'is', operand: 'starred' }] });
  assert.deepEqual(view.body.messages.map((m: any) => m.id), ids.slice(3));

  // Marking unread reports channels the user is not subscribed to (none here).
  const unread = await ann.post('/messages/flags/narrow', { anchor: String(ids[0]), include_anchor: false, num_before: 0, num_after: 1, narrow, op: 'remove', flag: 'read' });
  assert.deepEqual([unread.body.processed_count, unread.body.updated_count, unread.body.first_processed_id, unread.body.ignored_because_not_subscribed_channels], [1, 1, ids[1], []]);

  const nothing = await ann.post('/messages/flags/narrow', { anchor: 'newest', num_before: 5, num_after: 0, narrow: [{ operator: 'search', operand: 'nonexistentword' }], op: 'add', flag: 'read' });
  assert.deepEqual([nothing.body.processed_count, nothing.body.updated_count, nothing.body.first_processed_id, nothing.body.last_processed_id], [0, 0, null, null]);

  const base = { anchor: 'newest', num_before: 1, num_after: 0, narrow: [], op: 'add', flag: 'read' };
  for (const [params, msg] of [
    [{ ...base, anchor: undefined }, "Missing 'anchor' argument"],
    [{ ...base, num_before: undefined }, "Missing 'num_before' argument"],
    [{ ...base, narrow: undefined }, "Missing 'narrow' argument"],
    [{ ...base, num_before: -1 }, 'num_before is too small'],
    [{ ...base, anchor: String(ids[2]), num_after: 1, include_anchor: false }, 'The anchor can only be excluded at an end of the range'],
    [{ ...base, flag: 'mentioned' }, "Flag not editable: 'mentioned'"],
    [{ ...base, flag: 'shiny' }, "Invalid flag: 'shiny'"],
    [{ ...base, op: 'toggle' }, "Invalid message flag operation: 'toggle'"],
    [{ ...base, narrow: [{ operator: 'channel', operand: 'nowhere' }] }, 'Invalid narrow operator: unknown channel nowhere'],
    [{ ...base, narrow: [{ operator: 'channel', operand: 999999 }] }, 'Invalid narrow operator: unknown channel 999999'],
    [{ ...base, narrow: [{ operator: 'dm', operand: 'nobody@example.com' }] }, 'Invalid narrow operator: unknown user in nobody@example.com'],
    [{ ...base, narrow: [{ operator: 'dm', operand: [999999] }] }, 'Invalid narrow operator: unknown user in [999999]'],
    [{ ...base, narrow: [{ operator: 'sender', operand: 'nobody@example.com' }] }, 'Invalid narrow operator: unknown user nobody@example.com'],
  ] as const) {
    const bad = await ann.post('/messages/flags/narrow', params as unknown as Record<string, object>);
    assert.deepEqual([bad.status, bad.body.result, bad.body.msg], [400, 'error', msg], JSON.stringify(params));
  }
});

test('flags/narrow: at most 5000 messages per request, and only messages the user may read', async () => {
  // Dora is in no channel: nothing of the channel is hers to flag.
  const dora0 = await dora.post('/messages/flags/narrow', { anchor: 'newest', num_before: 6000, num_after: 0, narrow: [], op: 'add', flag: 'starred' });
  assert.equal(dora0.status, 200, JSON.stringify(dora0.body));
  assert.deepEqual([dora0.body.processed_count, dora0.body.found_oldest, dora0.body.found_newest], [0, true, true]);
  // A large window is clamped, not refused.
  const big = await ann.post('/messages/flags/narrow', { anchor: 'oldest', num_before: 4000, num_after: 4000, narrow: [], op: 'add', flag: 'read' });
  assert.equal(big.status, 200, JSON.stringify(big.body));
  assert.ok(big.body.processed_count > 0);
});

test('read receipts: readers other than the sender who share them, minus muted users; the realm switch', async () => {
  const id = await sendToChannel(bob, 'general', 'receipts', 'who read this?');
  const receipts = async (c: Client, mid = id) => c.get(`/messages/${mid}/read_receipts`);
  assert.deepEqual((await receipts(ann)).body.user_ids, []);
  for (const c of [ann, carl, t.owner, bob]) assert.equal((await c.post('/messages/flags', { messages: [id], op: 'add', flag: 'read' })).status, 200);
  const all = await receipts(ann);
  assert.equal(all.status, 200, JSON.stringify(all.body));
  assert.deepEqual(all.body, { result: 'success', msg: '', user_ids: [t.owner.userId, ann.userId, carl.userId].sort((x, y) => x - y) });

  // Carl stops sharing read receipts.
  assert.equal((await carl.patch('/settings', { send_read_receipts: false })).status, 200);
  assert.deepEqual((await receipts(ann)).body.user_ids, [t.owner.userId, ann.userId].sort((x, y) => x - y));
  // Ann mutes the owner: hidden for her; the owner, muted by Ann, does not see Ann either.
  assert.equal((await ann.post(`/users/me/muted_users/${t.owner.userId}`)).status, 200);
  assert.deepEqual((await receipts(ann)).body.user_ids, [ann.userId]);
  assert.deepEqual((await receipts(t.owner)).body.user_ids, [t.owner.userId]);
  assert.deepEqual((await receipts(bob)).body.user_ids, [t.owner.userId, ann.userId].sort((x, y) => x - y));

  // Missing and inaccessible messages get the same error.
  const dmId = (await bob.post('/messages', { type: 'private', to: [carl.userId], content: 'private' })).body.id;
  for (const res of [await receipts(ann, dmId), await receipts(ann, 999999)]) {
    assert.deepEqual([res.status, res.body.code, res.body.msg], [400, 'BAD_REQUEST', 'Invalid message(s)']);
  }

  const off = await t.owner.patch('/realm', { enable_read_receipts: false });
  assert.equal(off.status, 200, JSON.stringify(off.body));
  const disabled = await receipts(ann);
  assert.deepEqual([disabled.status, disabled.body.result, disabled.body.msg], [400, 'error', 'Read receipts are disabled in this organization.']);
  const hidden = await receipts(ann, dmId);
  assert.equal(hidden.body.msg, 'Invalid message(s)', 'as in Zulip, the message is looked up before the setting');
});

test('GET /messages with message_ids: the requested messages the viewer may read, within the narrow', async () => {
  const a = await sendToChannel(bob, 'general', 'by-id', 'first pick');
  const b = await sendToChannel(bob, 'random', 'by-id', 'second pick');
  const secret = (await bob.post('/messages', { type: 'private', to: [carl.userId], content: 'not for ann' })).body.id;
  const res = await ann.get('/messages', { message_ids: [b, a, secret, 999999, a] });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual(res.body.messages.map((m: any) => m.id), [a, b]);
  assert.ok(!('anchor' in res.body));
  assert.deepEqual([res.body.found_anchor, res.body.found_oldest, res.body.found_newest, res.body.history_limited], [false, false, false, false]);
  const narrowed = await ann.get('/messages', { message_ids: [a, b], narrow: [{ operator: 'search', operand: 'second' }] });
  assert.deepEqual(narrowed.body.messages.map((m: any) => [m.id, m.match_content]), [[b, '<p><span class="highlight">second</span> pick</p>']]);
  // Dora reads a public channel's history by id only through a channel narrow.
  assert.deepEqual((await dora.get('/messages', { message_ids: [a] })).body.messages, []);
  assert.deepEqual((await dora.get('/messages', { message_ids: [a], narrow: [['channel', 'general']] })).body.messages.map((m: any) => m.id), [a]);

  const both = await ann.get('/messages', { message_ids: [a], anchor: 'newest', num_before: 2 });
  // get_messages_backend names every window parameter, and only a window asking for something conflicts.
  const all = 'num_before, num_after, anchor, message_ids, include_anchor, use_first_unread_anchor';
  assert.deepEqual([both.status, both.body.msg], [400, `Unsupported parameter combination: ${all}`]);
  assert.equal((await ann.get('/messages', { message_ids: [a], use_first_unread_anchor: true })).body.msg, `Unsupported parameter combination: ${all}`);
  const emptyWindow = await ann.get('/messages', { message_ids: [a], num_before: 0, num_after: 0, include_anchor: true });
  assert.deepEqual([emptyWindow.status, emptyWindow.body.messages?.map((m: any) => m.id)], [200, [a]]);
  const notInts = await ann.get('/messages', { message_ids: ['a'] });
  assert.equal(notInts.status, 400);
});

test('GET /messages with anchor=date: the first message of the narrow sent at or after anchor_date', async () => {
  const ids: number[] = [];
  for (let i = 0; i < 3; i++) ids.push(await sendToChannel(bob, 'general', 'dated', `dated ${i}`));
  // Later than every other message, in id order: 2030-01-01, 2031-06-15 12:00, 2032-01-01 (UTC).
  const dates = [Date.UTC(2030, 0, 1), Date.UTC(2031, 5, 15, 12), Date.UTC(2032, 0, 1)].map((ms) => ms / 1000);
  for (let i = 0; i < 3; i++) await setMessageDate(t, ids[i]!, dates[i]!);
  const narrow = [{ operator: 'channel', operand: 'general' }, { operator: 'topic', operand: 'dated' }];
  const at = async (anchor_date: string) => {
    const res = await ann.get('/messages', { anchor: 'date', anchor_date, num_before: 0, num_after: 1, narrow });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body;
  };
  assert.deepEqual([(await at('2029-12-31')).anchor, (await at('2029-12-31')).found_anchor], [ids[0], true]);
  assert.equal((await at('2030-01-02')).anchor, ids[1]);
  assert.equal((await at('2031-06-15T12:00:00')).anchor, ids[1]);
  assert.equal((await at('2031-06-15T12:00:01Z')).anchor, ids[2]);
  assert.equal((await at('2031-06-15T13:00:00+01:00')).anchor, ids[1]);
  const later = await at('2040-01-01');
  assert.deepEqual([later.anchor, later.found_newest, later.messages.length], [10000000000000000, true, 0]);

  const missing = await ann.get('/messages', { anchor: 'date', num_before: 1, num_after: 0 });
  assert.deepEqual([missing.status, missing.body.msg], [400, "Missing 'anchor_date' argument"]);
  const bad = await ann.get('/messages', { anchor: 'date', anchor_date: 'yesterday', num_before: 1, num_after: 0 });
  assert.deepEqual([bad.status, bad.body.msg], [400, 'Invalid anchor_date']);
  // flags/narrow takes the same anchor.
  const star = await ann.post('/messages/flags/narrow', { anchor: 'date', anchor_date: '2031-01-01', num_before: 0, num_after: 5, narrow, op: 'add', flag: 'starred' });
  assert.deepEqual([star.status, star.body.first_processed_id, star.body.processed_count], [200, ids[1], 2]);
});
