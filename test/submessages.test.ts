// Zulip's message widgets: /poll and /todo messages carry the `widget` submessage Zulip's server
// writes; votes, options, tasks and title changes arrive through POST /submessage as Zulip's clients
// send them, are checked as Zulip checks them, ride on every message object and go out as
// `submessage` events to everyone who can see the message.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client, openQueue, queuedEvents, sendToChannel, startTestServer, type TestServer } from './helpers.js';

let t: TestServer;
let alice: Client;
let bob: Client;
let outsider: Client;
let general: number;

before(async () => {
  t = await startTestServer();
  alice = await t.createUser({ name: 'Alice Asker' });
  bob = await t.createUser({ name: 'Bob Voter' });
  outsider = await t.createUser({ name: 'Olga Outsider' });
  for (const c of [alice, bob]) await c.post('/users/me/subscriptions', { subscriptions: [{ name: 'polls' }] });
  await alice.post('/users/me/subscriptions', { subscriptions: [{ name: 'hidden' }], invite_only: true, principals: [alice.userId, bob.userId] });
  general = (await alice.get('/get_stream_id', { stream: 'polls' })).body.stream_id;
});
after(async () => {
  await t.close();
});

async function fetchOne(c: Client, id: number): Promise<any> {
  const res = await c.get('/messages', { anchor: id, num_before: 0, num_after: 0, narrow: [] });
  return res.body.messages.find((m: any) => m.id === id);
}

test('a /poll message carries the widget submessage Zulip writes, in the message event and in fetches', async () => {
  const q = await openQueue(bob, ['message']);
  const id = await sendToChannel(alice, 'polls', 'lunch', '/poll What for lunch? Café?\n- Pizza\n* Salad\n\n  Soup  ');
  const expected = '{"widget_type": "poll", "extra_data": {"question": "What for lunch? Caf\\u00e9?", "options": ["Pizza", "Salad", "Soup"]}}';
  const event = (await queuedEvents(bob, q)).find((e) => e.type === 'message');
  assert.deepEqual(event.message.submessages, [{ id: event.message.submessages[0].id, message_id: id, sender_id: alice.userId, msg_type: 'widget', content: expected }]);
  const fetched = await fetchOne(bob, id);
  assert.deepEqual(fetched.submessages, event.message.submessages);
  assert.deepEqual(JSON.parse(expected).extra_data.question, 'What for lunch? Café?');
  const plain = await fetchOne(bob, await sendToChannel(alice, 'polls', 'lunch', 'no widget here /poll'));
  assert.deepEqual(plain.submessages, []);
});

test('a /todo message: title, tasks with descriptions after the first ": "', async () => {
  const id = await sendToChannel(alice, 'polls', 'lunch', '/todo Trip\n- Tickets: two, return\nPack');
  const [sub] = (await fetchOne(alice, id)).submessages;
  assert.equal(sub.content, '{"widget_type": "todo", "extra_data": {"task_list_title": "Trip", "tasks": [{"task": "Tickets", "desc": "two, return"}, {"task": "Pack", "desc": ""}]}}');
  const empty = await fetchOne(alice, await sendToChannel(alice, 'polls', 'lunch', '/todo'));
  assert.equal(empty.submessages[0].content, '{"widget_type": "todo", "extra_data": {"task_list_title": "", "tasks": []}}');
});

test('votes and new options: stored as sent, events to everyone who can see the message, in order', async () => {
  const id = await sendToChannel(alice, 'polls', 'lunch', '/poll Tea or coffee?\nTea\nCoffee');
  const qa = await openQueue(alice, ['submessage']);
  const qb = await openQueue(bob, ['submessage']);
  const qo = await openQueue(outsider, ['submessage']);
  const vote = JSON.stringify({ type: 'vote', key: 'canned,1', vote: 1 });
  const res = await bob.post('/submessage', { message_id: id, msg_type: 'widget', content: vote });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const option = JSON.stringify({ type: 'new_option', idx: 1, option: 'Water' });
  assert.equal((await bob.post('/submessage', { message_id: id, msg_type: 'widget', content: option })).status, 200);
  for (const q of [qa, qb]) {
    const evs = (await queuedEvents(q === qa ? alice : bob, q)).filter((e) => e.type === 'submessage');
    assert.deepEqual(
      evs.map((e) => [e.msg_type, e.message_id, e.sender_id, e.content, typeof e.submessage_id]),
      [
        ['widget', id, bob.userId, vote, 'number'],
        ['widget', id, bob.userId, option, 'number'],
      ],
    );
  }
  assert.deepEqual((await queuedEvents(outsider, qo)).filter((e) => e.type === 'submessage'), [], 'a non-subscriber of a public channel hears nothing');
  const subs = (await fetchOne(alice, id)).submessages;
  assert.deepEqual(subs.map((s: any) => [s.sender_id, s.content]), [
    [alice.userId, subs[0].content],
    [bob.userId, vote],
    [bob.userId, option],
  ]);
  assert.ok(subs[0].id < subs[1].id && subs[1].id < subs[2].id);
  // Someone reading the public channel's history may vote too.
  assert.equal((await outsider.post('/submessage', { message_id: id, msg_type: 'widget', content: vote })).status, 200);
});

test("Zulip's checks of poll and to-do submessages", async () => {
  const poll = await sendToChannel(alice, 'polls', 'lunch', '/poll Which day?\nMonday');
  const todo = await sendToChannel(alice, 'polls', 'lunch', '/todo Chores\nDishes');
  const post = (c: Client, id: number, content: unknown) => c.post('/submessage', { message_id: id, msg_type: 'widget', content: typeof content === 'string' ? content : JSON.stringify(content) });
  const cases: Array<[Client, number, unknown, string]> = [
    [bob, poll, 'not json', 'Invalid json for submessage'],
    [bob, poll, [1], 'poll data is not a dict'],
    [bob, poll, { key: 'x' }, 'type key is missing from poll data'],
    [bob, poll, { type: 'vote', key: 'canned,0', vote: 2 }, 'Invalid poll data["vote"]'],
    [bob, poll, { type: 'vote', key: 'canned,0' }, 'vote key is missing from poll data'],
    [bob, poll, { type: 'vote', key: 'canned,0', vote: 1, extra: true }, 'Unexpected arguments: extra'],
    [bob, poll, { type: 'question', question: 'Hijacked?' }, "You can't edit a question unless you are the author."],
    [bob, poll, { type: 'new_option', idx: 1001, option: 'x' }, 'poll data["idx"] is too large'],
    [bob, poll, { type: 'close' }, 'Unknown type for poll data: close'],
    [bob, todo, { type: 'new_task', key: 1, task: 'x', desc: '', completed: 'no' }, 'todo data["completed"] is not a boolean'],
    [bob, todo, { type: 'strike', key: 3 }, 'todo data["key"] is not a string'],
    [bob, todo, { type: 'new_task_list_title', title: 'Mine now' }, "You can't edit the task list title unless you are the author."],
  ];
  for (const [c, id, content, msg] of cases) {
    const res = await post(c, id, content);
    assert.deepEqual([res.status, res.body.msg], [400, msg], JSON.stringify(content));
  }
  for (const [c, id, content] of [
    [alice, poll, { type: 'question', question: 'Which day, really?' }],
    [bob, todo, { type: 'new_task', key: 1, task: 'Laundry', desc: 'whites', completed: false }],
    [bob, todo, { type: 'strike', key: '0,canned' }],
    [alice, todo, { type: 'new_task_list_title', title: 'House chores' }],
  ] as Array<[Client, number, unknown]>) {
    const res = await post(c, id, content);
    assert.equal(res.status, 200, JSON.stringify([content, res.body]));
  }
  assert.equal((await fetchOne(bob, todo)).submessages.length, 4);
});

test('who may attach: the sender first; readers only; widgets cannot be edited', async () => {
  const plain = await sendToChannel(alice, 'polls', 'lunch', 'an ordinary message');
  const first = await bob.post('/submessage', { message_id: plain, msg_type: 'widget', content: '{}' });
  assert.deepEqual([first.status, first.body.msg], [400, 'You cannot attach a submessage to this message.']);
  assert.equal((await alice.post('/submessage', { message_id: plain, msg_type: 'widget', content: '{"anything": 1}' })).status, 200);
  assert.equal((await bob.post('/submessage', { message_id: plain, msg_type: 'widget', content: '{"anything": 2}' })).status, 200, 'after the sender, anyone who can read it');

  const secret = await sendToChannel(alice, 'hidden', 'lunch', '/poll Secret?\nYes');
  const denied = await outsider.post('/submessage', { message_id: secret, msg_type: 'widget', content: '{"type": "vote", "key": "canned,0", "vote": 1}' });
  assert.deepEqual([denied.status, denied.body.msg], [400, 'Invalid message(s)']);
  const missing = await bob.post('/submessage', { message_id: 999999, msg_type: 'widget', content: '{}' });
  assert.deepEqual([missing.status, missing.body.msg], [400, 'Invalid message(s)']);
  assert.equal((await bob.post('/submessage', { message_id: secret, msg_type: 'widget', content: '{}' })).body.code, 'BAD_REQUEST');
  const noType = await bob.post('/submessage', { message_id: secret, content: '{}' });
  assert.deepEqual([noType.status, noType.body.code], [400, 'REQUEST_VARIABLE_MISSING']);

  const edit = await alice.patch(`/messages/${secret}`, { content: 'changed' });
  assert.deepEqual([edit.status, edit.body.msg], [400, 'Widgets cannot be edited.']);
  assert.equal((await alice.patch(`/messages/${secret}`, { topic: 'moved along' })).status, 200, 'its topic may still change');
  void general;
});

test('deleting a widget message deletes its submessages', async () => {
  const id = await sendToChannel(alice, 'polls', 'lunch', '/poll Gone soon?\nYes');
  await bob.post('/submessage', { message_id: id, msg_type: 'widget', content: '{"type": "vote", "key": "canned,0", "vote": 1}' });
  assert.equal((await t.owner.delete(`/messages/${id}`)).status, 200);
  const left = await t.server.services.database.db.selectFrom('submessages').select('id').where('message_id', '=', id).execute();
  assert.deepEqual(left, []);
});
