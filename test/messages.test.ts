// Sending and reading messages over HTTP: recipients in every form, the rules of sending,
// events with flags, fetching windows with narrows and anchors, access to history.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type Client, type TestServer } from './helpers.js';

let t: TestServer;
let ann: Client;
let bob: Client;
let carl: Client;
let guest: Client;
before(async () => {
  t = await startTestServer();
  ann = await t.createUser({ name: 'Ann Lee' });
  bob = await t.createUser({ name: 'Bob Stone' });
  carl = await t.createUser({ name: 'Carl Oak' });
  guest = await t.createUser({ role: 'guest', name: 'Gina Guest' });
  const r1 = await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'general' }], principals: [t.owner.userId, ann.userId, bob.userId] });
  assert.equal(r1.status, 200);
  const r2 = await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'private-room' }], principals: [t.owner.userId, ann.userId], invite_only: true });
  assert.equal(r2.status, 200);
});
after(async () => {
  await t.close();
});

async function register(c: Client, extra: Record<string, unknown> = {}) {
  const reg = await c.post('/register', { event_types: ['message', 'update_message_flags'], fetch_event_types: ['message'], apply_markdown: true, ...extra });
  assert.equal(reg.status, 200);
  return reg.body.queue_id as string;
}

async function drain(c: Client, queueId: string): Promise<any[]> {
  const res = await c.get('/events', { queue_id: queueId, last_event_id: -1, dont_block: true });
  assert.equal(res.status, 200);
  return res.body.events;
}

test('a channel message reaches every subscriber with per-user flags', async () => {
  const qa = await register(ann);
  const qb = await register(bob);
  const qc = await register(carl);
  const res = await t.owner.post('/messages', { type: 'stream', to: 'general', topic: 'greetings', content: 'Hello @**Ann Lee**!' });
  assert.equal(res.status, 200);
  assert.equal(typeof res.body.id, 'number');
  const [ea] = await drain(ann, qa);
  assert.equal(ea.type, 'message');
  assert.equal(ea.message.id, res.body.id);
  assert.equal(ea.message.display_recipient, 'general');
  assert.equal(ea.message.subject, 'greetings');
  assert.equal(ea.message.type, 'stream');
  assert.match(ea.message.content, /<span class="user-mention" data-user-id="\d+">@Ann Lee<\/span>/);
  assert.deepEqual(ea.flags, ['mentioned']);
  const [eb] = await drain(bob, qb);
  assert.deepEqual(eb.flags, []);
  assert.deepEqual(await drain(carl, qc), [], 'non-subscribers get nothing');
});

test('to accepts a channel id, a JSON name, and a one-element list', async () => {
  const id = (await t.owner.get('/get_stream_id', { stream: 'general' })).body.stream_id;
  for (const to of [String(id), JSON.stringify('general'), JSON.stringify([id]), 'general']) {
    const res = await ann.post('/messages', { type: 'channel', to, topic: 'forms', content: `to=${to}` });
    assert.equal(res.status, 200, `to=${to}: ${JSON.stringify(res.body)}`);
  }
  const subject = await ann.post('/messages', { type: 'stream', to: 'general', subject: 'legacy', content: 'subject alias' });
  assert.equal(subject.status, 200);
  const fetched = await ann.get(`/messages/${subject.body.id}`);
  assert.equal(fetched.body.message.subject, 'legacy');
});

test('channel errors: missing, inaccessible, no topic, empty content, bad type', async () => {
  const missing = await ann.post('/messages', { type: 'stream', to: 'nowhere', topic: 't', content: 'x' });
  assert.equal(missing.status, 400);
  assert.equal(missing.body.code, 'STREAM_DOES_NOT_EXIST');
  assert.equal(missing.body.stream, 'nowhere');
  const secret = await bob.post('/messages', { type: 'stream', to: 'private-room', topic: 't', content: 'x' });
  assert.equal(secret.body.code, 'STREAM_DOES_NOT_EXIST');
  assert.equal(secret.body.stream, 'private-room');
  const badId = await ann.post('/messages', { type: 'stream', to: '999999', topic: 't', content: 'x' });
  assert.equal(badId.body.code, 'STREAM_DOES_NOT_EXIST');
  assert.equal(badId.body.stream_id, 999999);
  const noTopic = await ann.post('/messages', { type: 'stream', to: 'general', content: 'x' });
  assert.equal(noTopic.status, 400);
  const empty = await ann.post('/messages', { type: 'stream', to: 'general', topic: 't', content: '   ' });
  assert.equal(empty.status, 400);
  assert.equal(empty.body.msg, 'Message must not be empty');
  const badType = await ann.post('/messages', { type: 'telegram', to: 'general', topic: 't', content: 'x' });
  assert.equal(badType.status, 400);
  const missingTo = await ann.post('/messages', { type: 'stream', topic: 't', content: 'x' });
  assert.equal(missingTo.body.code, 'REQUEST_VARIABLE_MISSING');
  assert.equal(missingTo.body.var_name, 'to');
  const guestSend = await guest.post('/messages', { type: 'stream', to: 'general', topic: 't', content: 'x' });
  assert.equal(guestSend.body.code, 'STREAM_DOES_NOT_EXIST');
});

test('topics: "(no topic)" is the empty topic, long topics and content are truncated', async () => {
  const res = await ann.post('/messages', { type: 'stream', to: 'general', topic: '(no topic)', content: 'empty topic' });
  assert.equal(res.status, 200);
  const raw = await ann.get(`/messages/${res.body.id}`, { allow_empty_topic_name: true });
  assert.equal(raw.body.message.subject, '');
  const shown = await ann.get(`/messages/${res.body.id}`);
  assert.equal(shown.body.message.subject, 'general chat');
  const long = await ann.post('/messages', { type: 'stream', to: 'general', topic: 't'.repeat(100), content: 'c'.repeat(10050) });
  assert.equal(long.status, 200);
  const got = await ann.get(`/messages/${long.body.id}`);
  assert.ok(got.body.message.subject.length <= 60);
  assert.ok(got.body.raw_content.length <= 10000);
  assert.match(got.body.raw_content, /\[message truncated\]$/);
});

test('an organization that requires topics refuses the empty topic', async () => {
  const set = await t.owner.patch('/realm', { topics_policy: 'disable_empty_topic' });
  assert.equal(set.status, 200);
  try {
    for (const topic of ['', '(no topic)', 'general chat']) {
      const res = await ann.post('/messages', { type: 'stream', to: 'general', topic, content: 'x' });
      assert.equal(res.status, 400, `topic ${JSON.stringify(topic)}`);
    }
  } finally {
    await t.owner.patch('/realm', { topics_policy: 'allow_empty_topic' });
  }
});

test('direct messages: ids, emails, the sender alone, invalid users', async () => {
  const qb = await register(bob);
  const byId = await ann.post('/messages', { type: 'direct', to: [bob.userId], content: 'hi bob' });
  assert.equal(byId.status, 200);
  const [e] = await drain(bob, qb);
  assert.equal(e.message.type, 'private');
  assert.deepEqual(e.message.display_recipient.map((u: any) => u.id).sort(), [ann.userId, bob.userId].sort());

  const byEmail = await ann.post('/messages', { type: 'private', to: JSON.stringify([bob.email]), content: 'by email' });
  assert.equal(byEmail.status, 200);
  const commaEmails = await ann.post('/messages', { type: 'private', to: `${bob.email},${carl.email}`, content: 'group' });
  assert.equal(commaEmails.status, 200);
  const withSelf = await ann.post('/messages', { type: 'direct', to: [ann.userId, bob.userId], content: 'self listed' });
  assert.equal(withSelf.status, 200);
  const a = await ann.get(`/messages/${byId.body.id}`);
  const b = await ann.get(`/messages/${withSelf.body.id}`);
  assert.equal(a.body.message.recipient_id, b.body.message.recipient_id, 'the sender in the list is ignored');

  const self = await ann.post('/messages', { type: 'direct', to: [ann.userId], content: 'note to self' });
  assert.equal(self.status, 200);
  const selfMsg = await ann.get(`/messages/${self.body.id}`);
  assert.deepEqual(selfMsg.body.message.display_recipient.map((u: any) => u.id), [ann.userId]);

  const badId = await ann.post('/messages', { type: 'direct', to: [999999], content: 'x' });
  assert.equal(badId.status, 400);
  assert.equal(badId.body.code, 'BAD_REQUEST');
  const badEmail = await ann.post('/messages', { type: 'direct', to: JSON.stringify(['ghost@example.com']), content: 'x' });
  assert.equal(badEmail.status, 400);
  const mixed = await ann.post('/messages', { type: 'direct', to: JSON.stringify([bob.userId, carl.email]), content: 'x' });
  assert.equal(mixed.status, 400);
  const org = await t.createOrg('Other Org');
  const crossOrg = await ann.post('/messages', { type: 'direct', to: [org.owner.userId], content: 'x' });
  assert.equal(crossOrg.status, 400);
});

test('local echo: queue_id and local_id come back as local_message_id on that queue only', async () => {
  const q1 = await register(ann);
  const q2 = await register(ann);
  const res = await ann.post('/messages', { type: 'stream', to: 'general', topic: 'echo', content: 'echo', queue_id: q1, local_id: '123.01' });
  assert.equal(res.status, 200);
  const [e1] = await drain(ann, q1);
  const [e2] = await drain(ann, q2);
  assert.equal(e1.local_message_id, '123.01');
  assert.equal(e2.local_message_id, undefined);
  const half = await ann.post('/messages', { type: 'stream', to: 'general', topic: 'echo', content: 'x', local_id: '1' });
  assert.equal(half.status, 400);
});

test('read_by_sender: explicit, and decided from the client name', async () => {
  const q = await register(ann);
  await ann.post('/messages', { type: 'stream', to: 'general', topic: 'rbs', content: 'api client', read_by_sender: true });
  await ann.post('/messages', { type: 'stream', to: 'general', topic: 'rbs', content: 'api client 2' });
  const events = await drain(ann, q);
  assert.deepEqual(events[0].flags, ['read']);
  assert.deepEqual(events[1].flags, [], 'an API client does not mark its own message read');
  const web = await ann.request('POST', '/messages', { type: 'stream', to: 'general', topic: 'rbs', content: 'from the app' }, { 'User-Agent': 'ZulipMobile/27.1' });
  assert.equal(web.status, 200);
  const fetched = await ann.get(`/messages/${web.body.id}`);
  assert.ok(fetched.body.message.flags.includes('read'));
});

test('apply_markdown=false queues receive the Markdown source', async () => {
  const q = await register(bob, { apply_markdown: false });
  await ann.post('/messages', { type: 'stream', to: 'general', topic: 'md', content: '**bold**' });
  const [e] = await drain(bob, q);
  assert.equal(e.message.content, '**bold**');
  assert.equal(e.message.content_type, 'text/x-markdown');
});

test('GET /messages: windows around anchors, narrows, found_* flags', async () => {
  const ids: number[] = [];
  for (let i = 0; i < 6; i++) ids.push((await bob.post('/messages', { type: 'stream', to: 'general', topic: i % 2 ? 'odd' : 'even', content: `n${i}` })).body.id);
  const narrow = [{ operator: 'channel', operand: 'general' }, { operator: 'topic', operand: 'odd' }];
  const newest = await ann.get('/messages', { anchor: 'newest', num_before: 2, num_after: 0, narrow });
  assert.equal(newest.status, 200);
  assert.deepEqual(newest.body.messages.map((m: any) => m.id), [ids[3], ids[5]]);
  assert.equal(newest.body.found_newest, true);
  assert.equal(newest.body.found_oldest, false);

  const around = await ann.get('/messages', { anchor: ids[2]!, num_before: 1, num_after: 1, narrow: [['stream', 'general'], ['topic', 'even']] });
  assert.deepEqual(around.body.messages.map((m: any) => m.id), [ids[0], ids[2], ids[4]]);
  assert.equal(around.body.found_anchor, true);
  assert.equal(around.body.anchor, ids[2]);

  // Zulip's get_messages_backend excludes the anchor only at an end of the window.
  const excl = await ann.get('/messages', { anchor: ids[2]!, num_before: 1, num_after: 0, include_anchor: false, narrow: [['stream', 'general'], ['topic', 'even']] });
  assert.deepEqual(excl.body.messages.map((m: any) => m.id), [ids[0]]);
  const exclBoth = await ann.get('/messages', { anchor: ids[2]!, num_before: 1, num_after: 1, include_anchor: false, narrow: [['stream', 'general'], ['topic', 'even']] });
  assert.deepEqual([exclBoth.status, exclBoth.body.msg], [400, 'The anchor can only be excluded at an end of the range']);

  const oldest = await ann.get('/messages', { anchor: 'oldest', num_before: 0, num_after: 1, narrow: [{ operator: 'sender', operand: bob.email }] });
  assert.equal(oldest.body.found_oldest, true);
  assert.equal(oldest.body.messages[0].sender_id, bob.userId);

  const unreadFirst = await ann.get('/messages', { anchor: 'first_unread', num_before: 0, num_after: 1, narrow: [{ operator: 'is', operand: 'unread' }] });
  assert.equal(unreadFirst.status, 200);
  assert.ok(unreadFirst.body.messages.every((m: any) => !m.flags.includes('read')));
});

test('GET /messages validates its parameters', async () => {
  const noAnchor = await ann.get('/messages', { num_before: 1, num_after: 1 });
  // Zulip's parse_anchor_value: a sentence of its own, not the missing-argument error.
  assert.deepEqual([noAnchor.body.code, noAnchor.body.msg], ['BAD_REQUEST', "Missing 'anchor' argument."]);
  const badAnchor = await ann.get('/messages', { anchor: 'middle', num_before: 1, num_after: 1 });
  assert.equal(badAnchor.status, 400);
  const tooMany = await ann.get('/messages', { anchor: 'newest', num_before: 5000, num_after: 1 });
  assert.equal(tooMany.status, 400);
  const badOperator = await ann.get('/messages', { anchor: 'newest', num_before: 1, num_after: 0, narrow: [{ operator: 'nonsense', operand: 'x' }] });
  assert.equal(badOperator.status, 400);
  assert.equal(badOperator.body.code, 'BAD_NARROW');
  const secret = await bob.get('/messages', { anchor: 'newest', num_before: 1, num_after: 0, narrow: [{ operator: 'channel', operand: 'private-room' }] });
  const nothing = await bob.get('/messages', { anchor: 'newest', num_before: 1, num_after: 0, narrow: [{ operator: 'channel', operand: 'no-such-room' }] });
  assert.equal(secret.status, 400);
  // The refusal repeats the operand (as Zulip does) and is otherwise the same as for a missing channel.
  assert.deepEqual({ ...secret.body, msg: secret.body.msg.replace('private-room', 'X') }, { ...nothing.body, msg: nothing.body.msg.replace('no-such-room', 'X') });
  assert.equal(nothing.body.msg, 'Invalid narrow operator: unknown channel no-such-room');
  const badJson = await ann.get('/messages', { anchor: 'newest', num_before: 1, num_after: 0, narrow: '[{' });
  assert.equal(badJson.status, 400);
});

test('public history: a late subscriber reads earlier messages as read+historical; protected history stays hidden', async () => {
  const early = await t.owner.post('/messages', { type: 'stream', to: 'general', topic: 'history', content: 'before carl' });
  const carlView = await carl.get('/messages', { anchor: 'newest', num_before: 10, num_after: 0, narrow: [{ operator: 'channel', operand: 'general' }, { operator: 'topic', operand: 'history' }] });
  assert.equal(carlView.status, 200);
  const m = carlView.body.messages.find((x: any) => x.id === early.body.id);
  assert.ok(m, 'a public channel shows its history to non-subscribers in the organization');
  assert.deepEqual(m.flags.sort(), ['historical', 'read']);

  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'protected' }], invite_only: true, history_public_to_subscribers: false });
  const before = await t.owner.post('/messages', { type: 'stream', to: 'protected', topic: 't', content: 'before ann' });
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'protected' }], principals: [ann.userId] });
  const after = await t.owner.post('/messages', { type: 'stream', to: 'protected', topic: 't', content: 'after ann' });
  const annView = await ann.get('/messages', { anchor: 'newest', num_before: 10, num_after: 0, narrow: [{ operator: 'channel', operand: 'protected' }] });
  const seen = annView.body.messages.map((x: any) => x.id);
  assert.ok(seen.includes(after.body.id));
  assert.ok(!seen.includes(before.body.id), 'protected history is not shown');
  const direct = await ann.get(`/messages/${before.body.id}`);
  assert.equal(direct.status, 400);
});

test('GET /messages/{id}: the same error for missing and inaccessible messages', async () => {
  const secret = await t.owner.post('/messages', { type: 'stream', to: 'private-room', topic: 't', content: 'secret' });
  const hidden = await bob.get(`/messages/${secret.body.id}`);
  const missing = await bob.get('/messages/99999999');
  assert.equal(hidden.status, 400);
  assert.deepEqual(hidden.body, missing.body);
  const dm = await ann.post('/messages', { type: 'direct', to: [t.owner.userId], content: 'private words' });
  const snoop = await bob.get(`/messages/${dm.body.id}`);
  assert.deepEqual(snoop.body, missing.body);
  const mine = await ann.get(`/messages/${dm.body.id}`);
  assert.equal(mine.status, 200);
  assert.equal(mine.body.raw_content, 'private words');
});

test('DM narrows find the conversation, is:dm lists direct messages only', async () => {
  const sent = await carl.post('/messages', { type: 'direct', to: [bob.userId], content: 'carl to bob' });
  const conv = await bob.get('/messages', { anchor: 'newest', num_before: 5, num_after: 0, narrow: [{ operator: 'dm', operand: [carl.userId] }] });
  assert.equal(conv.status, 200);
  assert.deepEqual(conv.body.messages.map((m: any) => m.id), [sent.body.id]);
  const byEmail = await bob.get('/messages', { anchor: 'newest', num_before: 5, num_after: 0, narrow: [['pm-with', carl.email]] });
  assert.deepEqual(byEmail.body.messages.map((m: any) => m.id), [sent.body.id]);
  const dms = await bob.get('/messages', { anchor: 'newest', num_before: 50, num_after: 0, narrow: [{ operator: 'is', operand: 'dm' }] });
  assert.ok(dms.body.messages.length >= 1);
  assert.ok(dms.body.messages.every((m: any) => m.type === 'private'));
  const notDm = await bob.get('/messages', { anchor: 'newest', num_before: 50, num_after: 0, narrow: [{ operator: 'is', operand: 'dm', negated: true }] });
  assert.ok(notDm.body.messages.every((m: any) => m.type === 'stream'));
});

test('POST /messages/render returns the HTML a send would store', async () => {
  const res = await ann.post('/messages/render', { content: '**hi** @**Bob Stone**' });
  assert.equal(res.status, 200);
  assert.match(res.body.rendered, /^<p><strong>hi<\/strong> <span class="user-mention" data-user-id="\d+">@Bob Stone<\/span><\/p>$/);
  const tooLong = await ann.post('/messages/render', { content: 'x'.repeat(10001) });
  assert.equal(tooLong.status, 400);
  for (const blank of ['', ' \n ']) {
    const rendered = await ann.post('/messages/render', { content: blank });
    assert.deepEqual([rendered.status, rendered.body.rendered], [200, ''], 'blank text renders to nothing, as in Zulip');
  }
  const escaped = await ann.post('/messages/render', { content: '<script>alert(1)</script>' });
  assert.ok(!escaped.body.rendered.includes('<script>'));
});
