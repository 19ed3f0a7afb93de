// Editing and deleting messages: content, topics with propagation, permissions, history, events.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { Client, openQueue, queuedEvents, sendToChannel, startTestServer, type TestServer } from './helpers.js';
import { backdateMessage } from './beyond_api.js';

let t: TestServer;
let ann: Client;
let bob: Client;
before(async () => {
  t = await startTestServer();
  ann = await t.createUser({ name: 'Ann Editor' });
  bob = await t.createUser({ name: 'Bob Reader' });
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'edits' }], principals: [t.owner.userId, ann.userId, bob.userId] });
});
after(async () => {
  await t.close();
});

test('content edits: only the sender, re-rendered, history kept, update_message to readers', async () => {
  const m = await sendToChannel(ann, 'edits', 'draft', 'first **version**');
  const q = await openQueue(bob, ['update_message']);
  const edit = await ann.patch(`/messages/${m}`, { content: 'second version, hi @**Bob Reader**' });
  assert.equal(edit.status, 200);
  const [ev] = await queuedEvents(bob, q);
  assert.equal(ev.type, 'update_message');
  assert.equal(ev.orig_content, 'first **version**');
  assert.match(ev.rendered_content, /user-mention/);
  assert.ok(ev.flags.includes('mentioned'), 'the newly mentioned reader is flagged');
  const fetched = await bob.get(`/messages/${m}`);
  assert.equal(fetched.body.raw_content, 'second version, hi @**Bob Reader**');
  assert.equal(typeof fetched.body.message.last_edit_timestamp, 'number');
  const history = await bob.get(`/messages/${m}/history`);
  assert.deepEqual(history.body.message_history.map((v: any) => v.content), ['first **version**', 'second version, hi @**Bob Reader**']);
  assert.equal(history.body.message_history[1].prev_content, 'first **version**');
  const notMine = await bob.patch(`/messages/${m}`, { content: 'hijack' });
  assert.equal(notMine.status, 400);
  const stale = await ann.patch(`/messages/${m}`, { content: 'third', prev_content_sha256: createHash('sha256').update('not it').digest('hex') });
  assert.equal(stale.status, 400);
  const fresh = await ann.patch(`/messages/${m}`, { content: 'third', prev_content_sha256: createHash('sha256').update('second version, hi @**Bob Reader**').digest('hex') });
  assert.equal(fresh.status, 200);
  assert.equal((await ann.patch(`/messages/${m}`, {})).status, 400);
  assert.equal((await ann.patch('/messages/999999', { content: 'x' })).status, 400);
});

test('topic edits: change_one, change_later, change_all', async () => {
  const ids = [];
  for (let i = 0; i < 4; i++) ids.push(await sendToChannel(ann, 'edits', 'old topic', `m${i}`));
  assert.equal((await ann.patch(`/messages/${ids[0]}`, { topic: 'first alone', send_notification_to_new_thread: false })).status, 200);
  assert.equal((await bob.patch(`/messages/${ids[2]}`, { topic: 'later ones', propagate_mode: 'change_later', send_notification_to_new_thread: false })).status, 200, 'members may move topics by default');
  const topicOf = async (id: number) => (await bob.get(`/messages/${id}`)).body.message.subject;
  assert.deepEqual([await topicOf(ids[0]), await topicOf(ids[1]), await topicOf(ids[2]), await topicOf(ids[3])], ['first alone', 'old topic', 'later ones', 'later ones']);
  const q = await openQueue(bob, ['update_message']);
  assert.equal((await ann.patch(`/messages/${ids[3]}`, { topic: 'everything', propagate_mode: 'change_all' })).status, 200);
  const [ev] = await queuedEvents(bob, q);
  assert.deepEqual(ev.message_ids.sort(), [ids[2], ids[3]].sort());
  assert.equal(ev.orig_subject, 'later ones');
  assert.equal(ev.subject, 'everything');
  assert.equal((await ann.patch(`/messages/${ids[0]}`, { topic: 'x', propagate_mode: 'sideways' })).status, 400);
  const dm = await ann.post('/messages', { type: 'direct', to: [bob.userId], content: 'dm' });
  assert.equal((await ann.patch(`/messages/${dm.body.id}`, { topic: 'nope' })).status, 400);
});

test("a topic edit's update_message carries the new topic's topic_links, as Zulip's do_update_message sends them", async () => {
  const made = await t.owner.post('/realm/filters', { pattern: 'ticket-(?P<id>[0-9]+)', url_template: 'https://tracker.example.com/t/{id}' });
  assert.equal(made.status, 200, JSON.stringify(made.body));
  try {
    const m = await sendToChannel(ann, 'edits', 'untracked', 'needs a ticket');
    const q = await openQueue(bob, ['update_message']);
    assert.equal((await ann.patch(`/messages/${m}`, { topic: 'see ticket-42', send_notification_to_new_thread: false })).status, 200);
    const [ev] = await queuedEvents(bob, q);
    assert.deepEqual(ev.topic_links, [{ text: 'ticket-42', url: 'https://tracker.example.com/t/42' }]);
    assert.deepEqual((await bob.get(`/messages/${m}`)).body.message.topic_links, ev.topic_links, 'the same as the fetched message');
  } finally {
    await t.owner.delete(`/realm/filters/${made.body.id}`);
  }
});

test('deleting: own messages by default, others only by administrators; events', async () => {
  const mine = await sendToChannel(ann, 'edits', 'deletions', 'oops');
  const theirs = await sendToChannel(bob, 'edits', 'deletions', 'not yours');
  const q = await openQueue(bob, ['delete_message']);
  assert.equal((await ann.delete(`/messages/${theirs}`)).status, 400);
  assert.equal((await ann.delete(`/messages/${mine}`)).status, 200);
  assert.equal((await bob.get(`/messages/${mine}`)).status, 400);
  assert.equal((await t.owner.delete(`/messages/${theirs}`)).status, 200, 'administrators may delete any message');
  const evs = await queuedEvents(bob, q);
  assert.deepEqual(evs.map((e: any) => e.message_ids[0]), [mine, theirs]);
  assert.equal((await ann.delete(`/messages/${mine}`)).status, 400);
});

test("deleting as Zulip's validate_can_delete_message: one's bots' messages count as one's own; past the time limit its own error", async () => {
  const made = await ann.post('/bots', { full_name: 'Ann Helper', short_name: 'annhelper' });
  assert.equal(made.status, 200, JSON.stringify(made.body));
  const email = (await ann.get(`/users/${made.body.user_id}`)).body.user.email;
  const bot = new Client(t.url, email, made.body.api_key, made.body.user_id);
  assert.equal((await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'edits' }], principals: [bot.userId] })).status, 200);
  const byBot = await sendToChannel(bot, 'edits', 'deletions', 'posted by a bot');
  assert.deepEqual((await bob.delete(`/messages/${byBot}`)).body.msg, "You don't have permission to delete this message");
  assert.equal((await ann.delete(`/messages/${byBot}`)).status, 200, "the bot's owner may delete it");

  const old = await sendToChannel(ann, 'edits', 'deletions', 'said long ago');
  await backdateMessage(t, old, 3600);
  assert.equal((await t.owner.patch('/realm', { message_content_delete_limit_seconds: 600 })).status, 200);
  try {
    const late = await ann.delete(`/messages/${old}`);
    assert.deepEqual([late.status, late.body.msg], [400, 'The time limit for deleting this message has passed']);
    assert.equal((await t.owner.delete(`/messages/${old}`)).status, 200, 'deleting any message has no time limit');
  } finally {
    await t.owner.patch('/realm', { message_content_delete_limit_seconds: JSON.stringify('unlimited') });
  }
});

test('an edit to blank content stores "(deleted)", as Zulip does', async () => {
  const m = await sendToChannel(ann, 'edits', 'withdrawn', 'oops, wrong channel');
  const q = await openQueue(bob, ['update_message']);
  const edit = await ann.patch(`/messages/${m}`, { content: ' \n\t ' });
  assert.deepEqual([edit.status, edit.body.result], [200, 'success']);
  const fetched = await bob.get(`/messages/${m}`);
  assert.deepEqual([fetched.body.raw_content, fetched.body.message.content], ['(deleted)', '<p>(deleted)</p>']);
  const [ev] = await queuedEvents(bob, q);
  assert.deepEqual([ev.content, ev.orig_content], ['(deleted)', 'oops, wrong channel']);
  const empty = await ann.patch(`/messages/${m}`, { content: '' });
  assert.equal(empty.status, 200, 'an empty string too');
});

test("edit history: content edits carry content_html_diff as Zulip's test_edit_message_history expects it", async () => {
  const one = await sendToChannel(ann, 'edits', 'diffs', 'content before edit');
  assert.equal((await ann.patch(`/messages/${one}`, { content: 'content after edit' })).status, 200);
  assert.equal((await ann.patch(`/messages/${one}`, { topic: 'diffs moved' })).status, 200);
  const history = (await bob.get(`/messages/${one}/history`)).body.message_history;
  assert.equal(
    history[1].content_html_diff,
    '<div><p>content <span class="highlight_text_inserted">after</span> <span class="highlight_text_deleted">before</span> edit</p></div>',
  );
  assert.equal('content_html_diff' in history[0], false, 'not on the original');
  assert.equal('content_html_diff' in history[2], false, 'not on a topic-only edit');

  const two = await sendToChannel(ann, 'edits', 'diffs', 'content before edit, line 1\n\ncontent before edit, line 3');
  const edited = await ann.patch(`/messages/${two}`, { content: 'content before edit, line 1\ncontent after edit, line 2\ncontent before edit, line 3' });
  assert.equal(edited.status, 200);
  const [, after] = (await bob.get(`/messages/${two}/history`)).body.message_history;
  assert.equal(
    after.content_html_diff,
    '<div><p>content before edit, line 1<br> content <span class="highlight_text_inserted">after edit, line 2<br> content</span> before edit, line 3</p></div>',
  );
});

test('edit history: the empty topic as "general chat" unless allow_empty_topic_name; the "moves" policy shows moves only', async () => {
  const m = await sendToChannel(ann, 'edits', '', 'in general chat');
  assert.equal((await ann.patch(`/messages/${m}`, { content: 'edited in general chat' })).status, 200);
  assert.equal((await ann.patch(`/messages/${m}`, { topic: 'named', content: 'moved and edited' })).status, 200);
  const named = (await bob.get(`/messages/${m}/history`)).body;
  assert.deepEqual(named.message_history.map((v: any) => [v.topic, v.prev_topic]), [['general chat', undefined], ['general chat', undefined], ['named', 'general chat']]);
  assert.equal(named.ignored_parameters_unsupported, undefined);
  const raw = (await bob.get(`/messages/${m}/history`, { allow_empty_topic_name: true })).body;
  assert.deepEqual(raw.message_history.map((v: any) => [v.topic, v.prev_topic]), [['', undefined], ['', undefined], ['named', '']]);
  assert.deepEqual(raw.ignored_parameters_unsupported, undefined, 'the parameter is understood');

  assert.equal((await t.owner.patch('/realm', { message_edit_history_visibility_policy: 'moves' })).status, 200);
  try {
    const moves = (await bob.get(`/messages/${m}/history`)).body.message_history;
    assert.equal(moves.length, 2, 'the content-only edit is left out');
    assert.deepEqual([moves[1].prev_topic, 'prev_content' in moves[1], 'content_html_diff' in moves[1]], ['general chat', false, false]);
    assert.equal((await t.owner.patch('/realm', { message_edit_history_visibility_policy: 'none' })).status, 200);
    const none = await bob.get(`/messages/${m}/history`);
    assert.deepEqual([none.status, none.body.msg], [400, 'Message edit history is disabled in this organization']);
  } finally {
    await t.owner.patch('/realm', { message_edit_history_visibility_policy: 'all' });
  }
});

test("messages of an archived channel cannot be edited, moved, deleted or voted on (Zulip's is_modifying_message), only read", async () => {
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'attic' }], principals: [t.owner.userId, ann.userId] });
  const atticId = (await ann.get('/get_stream_id', { stream: 'attic' })).body.stream_id;
  const editsId = (await ann.get('/get_stream_id', { stream: 'edits' })).body.stream_id;
  const old = await sendToChannel(ann, 'attic', 'boxes', 'kept for the record');
  const poll = await sendToChannel(ann, 'attic', 'boxes', '/poll Keep it?\nyes\nno');
  assert.equal((await t.owner.delete(`/streams/${atticId}`)).status, 200);
  const refused = [
    await ann.patch(`/messages/${old}`, { content: 'rewritten' }),
    await ann.patch(`/messages/${old}`, { topic: 'crates' }),
    await t.owner.patch(`/messages/${old}`, { stream_id: editsId }),
    await ann.delete(`/messages/${old}`),
    await t.owner.delete(`/messages/${old}`),
    await ann.post('/submessage', { message_id: poll, msg_type: 'widget', content: JSON.stringify({ type: 'vote', key: 'canned,1', vote: 1 }) }),
  ];
  for (const res of refused) assert.deepEqual([res.status, res.body.msg], [400, 'Invalid message(s)']);
  const read = await ann.get(`/messages/${old}`);
  assert.deepEqual([read.status, read.body.raw_content], [200, 'kept for the record']);
});

test("an edit's new mentions are checked as a send's: a group the author may not mention is refused", async () => {
  const owners = (await ann.get('/user_groups')).body.user_groups.find((g: any) => g.name === 'role:owners').id;
  const made = await t.owner.post('/user_groups/create', { name: 'leadership', members: [t.owner.userId], can_mention_group: owners });
  assert.equal(made.status, 200, JSON.stringify(made.body));
  const m = await sendToChannel(ann, 'edits', 'mentions', 'plain words');
  const loud = await ann.patch(`/messages/${m}`, { content: 'paging @*leadership*' });
  assert.deepEqual([loud.status, loud.body.msg], [400, "You are not allowed to mention user group 'leadership'."]);
  assert.equal((await ann.get(`/messages/${m}`)).body.raw_content, 'plain words', 'nothing changed');
  assert.equal((await ann.patch(`/messages/${m}`, { content: 'quietly @_*leadership*' })).status, 200, 'a silent mention needs no permission');
});

test("the checks come in the order of Zulip's check_update_message: the payload before widgets, the topic permission before mentions", async () => {
  const poll = await sendToChannel(ann, 'edits', 'votes', '/poll Lunch?\nsoup\nsalad');
  const odd = await ann.patch(`/messages/${poll}`, { content: 'rewritten', propagate_mode: 'change_all' });
  assert.deepEqual([odd.status, odd.body.msg], [400, 'Invalid propagate_mode without topic edit']);
  const plain = await ann.patch(`/messages/${poll}`, { content: 'rewritten' });
  assert.deepEqual([plain.status, plain.body.msg], [400, 'Widgets cannot be edited.']);

  const groups = Object.fromEntries((await ann.get('/user_groups')).body.user_groups.map((g: any) => [g.name, g.id]));
  assert.equal((await t.owner.post('/user_groups/create', { name: 'board', members: [t.owner.userId], can_mention_group: groups['role:owners'] })).status, 200);
  assert.equal((await t.owner.patch('/realm', { can_move_messages_between_topics_group: { new: groups['role:administrators'] } })).status, 200);
  try {
    const m = await sendToChannel(ann, 'edits', 'agenda', 'plain words');
    const both = await ann.patch(`/messages/${m}`, { content: 'paging @*board*', topic: 'elsewhere' });
    assert.deepEqual([both.status, both.body.msg], [400, "You don't have permission to edit this message"]);
  } finally {
    await t.owner.patch('/realm', { can_move_messages_between_topics_group: { new: groups['role:everyone'] } });
  }
});

test("a deletion is told as Zulip's do_delete_messages tells it: a public channel's subscribers without the message, and whoever deleted it", async () => {
  const cara = await t.createUser({ name: 'Cara Latecomer' });
  assert.equal((await ann.post('/users/me/subscriptions', { subscriptions: [{ name: 'lobby' }], principals: [ann.userId, bob.userId] })).status, 200);
  const m = await sendToChannel(ann, 'lobby', 'hello', 'before Cara came');
  assert.equal((await cara.post('/users/me/subscriptions', { subscriptions: [{ name: 'lobby' }] })).status, 200);
  const qc = await openQueue(cara, ['delete_message']);
  const qo = await openQueue(t.owner, ['delete_message']);
  assert.equal((await t.owner.delete(`/messages/${m}`)).status, 200);
  const lobbyId = (await ann.get('/get_stream_id', { stream: 'lobby' })).body.stream_id;
  const expected = { type: 'delete_message', message_ids: [m], message_type: 'stream', stream_id: lobbyId, topic: 'hello' };
  for (const q of [[cara, qc], [t.owner, qo]] as const) {
    const evs = (await queuedEvents(q[0], q[1])).map(({ id, ...e }: any) => e);
    assert.deepEqual(evs, [expected]);
  }
});

test("a content edit sets the readers' flags as Zulip's update_user_message_flags: group members mentioned, topic participants, alert words", async () => {
  const cat = await t.createUser({ name: 'Cat Bystander' });
  assert.equal((await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'edits' }], principals: [cat.userId] })).status, 200);
  assert.equal((await bob.post('/users/me/alert_words', { alert_words: ['pineapple'] })).status, 200);
  assert.equal((await t.owner.post('/user_groups/create', { name: 'crew', members: [bob.userId] })).status, 200);
  await sendToChannel(bob, 'edits', 'flag party', 'I was here first');
  const m = await sendToChannel(ann, 'edits', 'flag party', 'nothing special');
  const qb = await openQueue(bob, ['update_message']);
  const qc = await openQueue(cat, ['update_message']);
  assert.equal((await ann.patch(`/messages/${m}`, { content: 'pineapple for @*crew*, and @**topic**' })).status, 200);
  const [forBob] = await queuedEvents(bob, qb);
  assert.deepEqual([...forBob.flags].sort(), ['has_alert_word', 'mentioned', 'topic_wildcard_mentioned', 'wildcard_mentioned']);
  const [forCat] = await queuedEvents(cat, qc);
  assert.deepEqual(forCat.flags, [], 'not a participant, not in the group, no alert word');
  const fetched = (await bob.get(`/messages/${m}`)).body.message.flags;
  assert.deepEqual([...fetched].sort(), [...forBob.flags].sort());
  assert.equal((await ann.patch(`/messages/${m}`, { content: 'never mind' })).status, 200);
  assert.deepEqual((await bob.get(`/messages/${m}`)).body.message.flags, [], 'all cleared by the next edit');
});

test("a message moved to start a topic makes its sender follow it, by Zulip's apply_automatic_unmute_follow_topics_policy (\"on initiation\")", async () => {
  const editsId = (await ann.get('/get_stream_id', { stream: 'edits' })).body.stream_id;
  assert.equal((await ann.patch('/settings', { automatically_follow_topics_policy: 3 })).status, 200);
  await sendToChannel(bob, 'edits', 'older field', 'already here');
  const first = await sendToChannel(ann, 'edits', 'seedbed', 'one');
  const second = await sendToChannel(ann, 'edits', 'seedbed', 'two');
  await sendToChannel(ann, 'edits', 'seedbed', 'three');
  const qa = await openQueue(ann, ['user_topic']);
  assert.equal((await bob.patch(`/messages/${second}`, { topic: 'sprout', send_notification_to_new_thread: false })).status, 200);
  assert.equal((await bob.patch(`/messages/${first}`, { topic: 'older field', send_notification_to_new_thread: false })).status, 200);
  const evs = (await queuedEvents(ann, qa)).map(({ id, last_updated, ...e }: any) => e);
  assert.deepEqual(evs, [{ type: 'user_topic', stream_id: editsId, topic_name: 'sprout', visibility_policy: 3 }], 'not for a topic that already had older messages');
});

test("an edited topic as Zulip's check_update_message takes it: \"general chat\" is the empty topic, \"(no topic)\" stays text but counts as empty for the channel's policy", async () => {
  const a = await sendToChannel(ann, 'edits', 'named', 'one');
  const b = await sendToChannel(ann, 'edits', 'named', 'two');
  assert.equal((await ann.patch(`/messages/${a}`, { topic: '(no topic)', send_notification_to_new_thread: false })).status, 200);
  assert.equal((await bob.get(`/messages/${a}`, { allow_empty_topic_name: true })).body.message.subject, '(no topic)');
  assert.equal((await ann.patch(`/messages/${b}`, { topic: ' general chat ', send_notification_to_new_thread: false })).status, 200);
  assert.equal((await bob.get(`/messages/${b}`, { allow_empty_topic_name: true })).body.message.subject, '');
  const same = await ann.patch(`/messages/${b}`, { topic: 'general chat' });
  assert.deepEqual([same.status, same.body.msg], [400, 'Nothing to change']);
  const bad = await ann.patch(`/messages/${b}`, { topic: 'a\u0001b' });
  assert.deepEqual([bad.status, bad.body.msg], [400, 'Invalid character in topic, at position 2!']);
  // A channel that refuses the empty topic refuses "(no topic)" too.
  const id = (await ann.get('/get_stream_id', { stream: 'edits' })).body.stream_id;
  assert.equal((await t.owner.patch(`/streams/${id}`, { topics_policy: 'disable_empty_topic' })).status, 200);
  try {
    const c = await sendToChannel(ann, 'edits', 'named', 'three');
    const refused = await ann.patch(`/messages/${c}`, { topic: '(no topic)' });
    assert.deepEqual([refused.status, refused.body.msg], [400, 'Sending messages to the general chat is not allowed in this channel.']);
  } finally {
    await t.owner.patch(`/streams/${id}`, { topics_policy: 'inherit' });
  }
});
