// POST /messages/flags: which flags users may change, the requested ids echoed (the changed ones in events), historical rows for
// channel history, marking unread only in subscribed channels, and the update_message_flags events.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client, queuedEvents, startTestServer, type TestServer, sendToChannel } from './helpers.js';

let t: TestServer;
let ann: Client;
let bob: Client;
let carl: Client;
let guest: Client;
let generalId: number;

before(async () => {
  t = await startTestServer();
  ann = await t.createUser({ name: 'Ann Lee' });
  bob = await t.createUser({ name: 'Bob Stone' });
  carl = await t.createUser({ name: 'Carl Oak' });
  guest = await t.createUser({ role: 'guest', name: 'Gina Guest' });
  await subscribe('general', [t.owner.userId, ann.userId, bob.userId]);
  await subscribe('secret', [t.owner.userId, ann.userId], { invite_only: true });
  await subscribe('protected', [t.owner.userId], { invite_only: true, history_public_to_subscribers: false });
  generalId = (await t.owner.get('/get_stream_id', { stream: 'general' })).body.stream_id;
});
after(async () => {
  await t.close();
});

async function subscribe(name: string, principals: number[], extra: Record<string, unknown> = {}) {
  const res = await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name }], principals, ...extra } as Record<string, object>);
  assert.equal(res.status, 200, JSON.stringify(res.body));
}


const flags = (c: Client, messages: number[], op: string, flag: string) => c.post('/messages/flags', { messages, op, flag });

async function flagsOf(c: Client, id: number): Promise<string[]> {
  const res = await c.get(`/messages/${id}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return (res.body.message.flags as string[]).sort();
}

async function openQueue(c: Client): Promise<string> {
  const reg = await c.post('/register', { event_types: ['update_message_flags'], fetch_event_types: ['message'] });
  assert.equal(reg.status, 200);
  return reg.body.queue_id;
}

test('star and unstar: the requested ids in the response, the changed ones in one event', async () => {
  const a = await sendToChannel(t.owner, 'general', 'stars', 'one');
  const b = await sendToChannel(t.owner, 'general', 'stars', 'two');
  const q = await openQueue(ann);
  const res = await flags(ann, [a, b], 'add', 'starred');
  assert.equal(res.status, 200);
  assert.deepEqual(res.body, { result: 'success', msg: '', messages: [a, b] });
  assert.deepEqual(await flagsOf(ann, a), ['starred']);
  const again = await flags(ann, [a, b, a], 'add', 'starred');
  assert.deepEqual(again.body.messages, [a, b, a], 'the ids as requested, as Zulip echoes them; the event says none changed');
  const events = await queuedEvents(ann, q);
  assert.deepEqual(events, [
    { type: 'update_message_flags', op: 'add', operation: 'add', flag: 'starred', messages: [a, b], all: false, id: 0 },
    { type: 'update_message_flags', op: 'add', operation: 'add', flag: 'starred', messages: [], all: false, id: 1 },
  ]);
  const off = await flags(ann, [a], 'remove', 'starred');
  assert.deepEqual(off.body.messages, [a]);
  assert.deepEqual(await flagsOf(ann, a), []);
  assert.deepEqual(await flagsOf(bob, a), [], "another reader's flags are untouched");
  const collapsed = await flags(ann, [b], 'add', 'collapsed');
  assert.deepEqual([collapsed.status, await flagsOf(ann, b)], [200, ['collapsed', 'starred']]);
});

test('which flags and operations are accepted', async () => {
  const id = await sendToChannel(t.owner, 'general', 'rules', 'x');
  for (const flag of ['mentioned', 'stream_wildcard_mentioned', 'topic_wildcard_mentioned', 'group_mentioned', 'has_alert_word', 'historical', 'force_expand', 'force_collapse']) {
    const res = await flags(ann, [id], 'add', flag);
    assert.deepEqual([res.status, res.body.code, res.body.msg], [400, 'BAD_REQUEST', `Flag not editable: '${flag}'`]);
  }
  for (const flag of ['wildcard_mentioned', 'is_private', 'active_mobile_push_notification', 'shiny']) {
    const res = await flags(ann, [id], 'add', flag);
    assert.deepEqual([res.status, res.body.msg], [400, `Invalid flag: '${flag}'`]);
  }
  const op = await flags(ann, [id], 'toggle', 'starred');
  assert.deepEqual([op.status, op.body.msg], [400, "Invalid message flag operation: 'toggle'"]);
  const both = await flags(ann, [id], 'toggle', 'shiny');
  assert.equal(both.body.msg, "Invalid flag: 'shiny'", 'the flag is checked first');
  const notList = await ann.post('/messages/flags', { messages: '5', op: 'add', flag: 'read' });
  assert.deepEqual([notList.status, notList.body.msg], [400, 'messages is not a list']);
  const notInts = await ann.post('/messages/flags', { messages: '["a"]', op: 'add', flag: 'read' });
  assert.equal(notInts.status, 400);
  const missing = await ann.post('/messages/flags', { op: 'add', flag: 'read' });
  assert.deepEqual([missing.body.code, missing.body.var_name], ['REQUEST_VARIABLE_MISSING', 'messages']);
  const empty = await flags(ann, [], 'add', 'read');
  assert.deepEqual(empty.body.messages, []);
});

test('read and unread, with message_details for the messages marked unread', async () => {
  const plain = await sendToChannel(t.owner, 'general', 'reading', 'plain');
  const mention = await sendToChannel(t.owner, 'general', 'reading', 'hey @**Ann Lee**');
  const dm = (await bob.post('/messages', { type: 'direct', to: [ann.userId, carl.userId], content: 'group dm' })).body.id;
  const self = (await ann.post('/messages', { type: 'direct', to: [ann.userId], content: 'note', read_by_sender: true })).body.id;
  const read = await flags(ann, [plain, mention, dm], 'add', 'read');
  assert.deepEqual(read.body.messages, [plain, mention, dm]);
  assert.equal('ignored_because_not_subscribed_channels' in read.body, false, 'only marking unread reports ignored channels');
  const q = await openQueue(ann);
  const unread = await flags(ann, [plain, mention, dm, self], 'remove', 'read');
  assert.deepEqual(unread.body, { result: 'success', msg: '', messages: [plain, mention, dm, self], ignored_because_not_subscribed_channels: [] });
  const [event] = await queuedEvents(ann, q);
  assert.deepEqual(event.messages, [plain, mention, dm, self]);
  assert.equal(event.all, false);
  assert.deepEqual(event.message_details, {
    [plain]: { type: 'stream', stream_id: generalId, topic: 'reading', unmuted_stream_msg: true },
    [mention]: { type: 'stream', stream_id: generalId, topic: 'reading', unmuted_stream_msg: true, mentioned: true },
    [dm]: { type: 'private', user_ids: [bob.userId, carl.userId].sort((a, b) => a - b) },
    [self]: { type: 'private', user_ids: [] },
  });
  assert.deepEqual(await flagsOf(ann, mention), ['mentioned']);
  // Zulip's fields and no more: message_details rides only on marking unread (events/types.ts).
  const q2 = await openQueue(ann);
  await flags(ann, [plain], 'add', 'starred');
  await flags(ann, [plain], 'remove', 'starred');
  const keys = (await queuedEvents(ann, q2)).map((e) => [e.op, e.operation, Object.keys(e).sort().join()]);
  const fields = 'all,flag,id,messages,op,operation,type';
  assert.deepEqual(keys, [['add', 'add', fields], ['remove', 'remove', fields]]);
});

test('marking unread skips channels the user is not subscribed to, and says which', async () => {
  const id = await sendToChannel(t.owner, 'general', 'left', 'before carl leaves');
  await subscribe('general', [carl.userId]);
  const later = await sendToChannel(t.owner, 'general', 'left', 'carl is here');
  assert.deepEqual((await flags(carl, [later], 'add', 'read')).body.messages, [later]);
  const left = await carl.delete('/users/me/subscriptions', { subscriptions: ['general'] });
  assert.equal(left.status, 200);
  const res = await flags(carl, [id, later], 'remove', 'read');
  assert.equal(res.status, 200);
  assert.deepEqual(res.body.messages, [id, later]);
  assert.deepEqual(res.body.ignored_because_not_subscribed_channels, [generalId]);
  assert.deepEqual(await flagsOf(carl, later), ['read']);
});

test('channel history: starring creates a historical row; reading needs none; unread only when subscribed', async () => {
  await subscribe('late', [t.owner.userId]);
  const old = await sendToChannel(t.owner, 'late', 'history', 'before bob');
  assert.deepEqual(await flagsOf(bob, old), ['historical', 'read'], 'a public channel reads as history');
  const star = await flags(bob, [old], 'add', 'starred');
  assert.deepEqual(star.body.messages, [old]);
  assert.deepEqual(await flagsOf(bob, old), ['historical', 'read', 'starred']);
  const rows = await t.server.services.database.db.selectFrom('user_messages').select('flags').where('user_id', '=', bob.userId).where('message_id', '=', old).execute();
  assert.equal(rows.length, 1, 'the flag lives on a historical row');
  assert.deepEqual(await flagsOf(bob, old), ['historical', 'read', 'starred']);

  const other = await sendToChannel(t.owner, 'late', 'history', 'another');
  const read = await flags(bob, [other], 'add', 'read');
  assert.deepEqual(read.body.messages, [other], 'history is already read: no change, no row');
  const none = await t.server.services.database.db.selectFrom('user_messages').select('flags').where('user_id', '=', bob.userId).where('message_id', '=', other).execute();
  assert.equal(none.length, 0);
  const unstar = await flags(bob, [other], 'remove', 'starred');
  assert.deepEqual(unstar.body.messages, [other]);
  const unread = await flags(bob, [other], 'remove', 'read');
  assert.deepEqual([unread.body.messages, unread.body.ignored_because_not_subscribed_channels.length], [[other], 1]);

  await subscribe('late', [bob.userId]);
  const unreadNow = await flags(bob, [other], 'remove', 'read');
  assert.deepEqual(unreadNow.body.messages, [other], 'once subscribed, history may be marked unread');
  assert.deepEqual(await flagsOf(bob, other), ['historical']);
});

test('messages the user cannot read: ignored when nothing would change, refused otherwise', async () => {
  const secret = await sendToChannel(t.owner, 'secret', 't', 'for subscribers');
  const dm = (await t.owner.post('/messages', { type: 'direct', to: [ann.userId], content: 'just us' })).body.id;
  const hidden = await sendToChannel(t.owner, 'protected', 't', 'protected history');
  const other = await t.createOrg('Elsewhere');
  await other.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'theirs' }] });
  const theirs = (await other.owner.post('/messages', { type: 'stream', to: 'theirs', topic: 't', content: 'elsewhere' })).body.id;
  for (const id of [secret, dm, hidden, theirs, 999999999]) {
    const star = await flags(bob, [id], 'add', 'starred');
    assert.deepEqual([star.status, star.body.code, star.body.msg], [400, 'BAD_REQUEST', 'Invalid message(s)'], String(id));
    const read = await flags(bob, [id], 'add', 'read');
    assert.deepEqual([read.status, read.body.messages], [200, [id]], `reading ${id} changes nothing`);
  }
  const guestStar = await flags(guest, [await sendToChannel(t.owner, 'general', 'g', 'public')], 'add', 'starred');
  assert.equal(guestStar.body.msg, 'Invalid message(s)', "a guest cannot reach a public channel's history");
  const mixed = await flags(ann, [secret, theirs], 'add', 'starred');
  assert.equal(mixed.status, 400);
  assert.deepEqual(await flagsOf(ann, secret), [], 'a refused request changes nothing');
});
