// zulip-terminal (0.7.0 and the months after it) as it talks to the server: its Model's requests,
// encoded as the `zulip` Python package encodes them, and the fields of each answer and event it
// reads with [] (a missing one is a KeyError that crashes the client or kills its event thread).
// The requests and reads are taken from zulipterminal/model.py and helper.py of that period;
// test/legacy_settings.test.ts covers the settings in its /register.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client, queuedEvents, sendMessage, startTestServer, type TestServer } from './helpers.js';

let t: TestServer;
let terry: Client;
let bob: Client;
let carol: Client;

const EVENT_TYPES = [
  'message', 'update_message', 'reaction', 'subscription', 'typing', 'update_message_flags',
  'update_global_notifications', 'update_display_settings', 'user_settings', 'realm_emoji',
];

before(async () => {
  t = await startTestServer();
  terry = await t.createUser({ name: 'Terry Terminal' });
  terry = new Client(t.url, terry.email, terry.apiKey, terry.userId, 'ZulipTerminal/0.7.0 Linux');
  bob = await t.createUser({ name: 'Bob Builder' });
  carol = await t.createUser({ name: 'Carol Coder' });
  const principals = [terry.userId, bob.userId, carol.userId];
  assert.equal((await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'terminal' }], principals })).status, 200);
});
after(async () => {
  await t.close();
});

/** Model.get_messages: the request zulip-terminal sends for every narrow it opens. */
function fetchNarrow(narrow: unknown[]) {
  return terry.get('/messages', {
    anchor: 0,
    num_before: 30,
    num_after: 10,
    apply_markdown: true,
    use_first_unread_anchor: true,
    client_gravatar: true,
    narrow: JSON.stringify(narrow),
  });
}

test("zulip-terminal's narrows, pm_with among them, each answer with the conversation's messages", async () => {
  const inTopic = await sendMessage(bob, { type: 'stream', to: 'terminal', subject: 'tui', content: 'in the topic' });
  const direct = await sendMessage(bob, { type: 'private', to: [terry.userId], content: 'just us' });
  const group = await sendMessage(bob, { type: 'private', to: [terry.userId, carol.userId], content: 'three of us' });
  const idsOf = async (narrow: unknown[]) => {
    const res = await fetchNarrow(narrow);
    assert.equal(res.status, 200, `${JSON.stringify(narrow)}: ${JSON.stringify(res.body)}`);
    assert.equal(typeof res.body.anchor, 'number');
    assert.equal(typeof res.body.found_newest, 'boolean');
    return res.body.messages.map((m: { id: number }) => m.id);
  };
  // Model.set_narrow's narrows, as it builds them.
  assert.deepEqual(await idsOf([['stream', 'terminal'], ['topic', 'tui']]), [inTopic]);
  assert.deepEqual(await idsOf([['is', 'private']]), [direct, group]);
  // Zulip reads '-' and '_' in an operator alike, so `pm_with` is `pm-with`.
  assert.deepEqual(await idsOf([['pm_with', bob.email]]), [direct]);
  assert.deepEqual(await idsOf([['pm_with', `${bob.email}, ${carol.email}`]]), [group]);
  assert.deepEqual(await idsOf([['pm-with', bob.email]]), [direct]);
  assert.deepEqual(await idsOf([{ operator: 'group_pm_with', operand: carol.email }]), [group]);
  assert.deepEqual(await idsOf([{ operator: 'dm_including', operand: carol.email }]), [group]);
  const unknown = await fetchNarrow([['pm__with', bob.email]]);
  assert.equal(unknown.status, 400);
  assert.equal(unknown.body.code, 'BAD_NARROW');
});

test('start-up: register and the first fetch carry every field the Model reads', async () => {
  const reg = await terry.post('/register', {
    event_types: EVENT_TYPES,
    fetch_event_types: [
      'realm', 'presence', 'subscription', 'message', 'starred_messages', 'update_message_flags', 'muted_topics',
      'realm_user', 'realm_user_groups', 'update_global_notifications', 'update_display_settings', 'user_settings',
      'realm_emoji', 'zulip_version',
    ],
    client_gravatar: true,
    apply_markdown: true,
    include_subscribers: true,
  });
  assert.equal(reg.status, 200, JSON.stringify(reg.body));
  const s = reg.body;
  for (const key of ['max_message_id', 'queue_id', 'last_event_id', 'user_id', 'email', 'full_name', 'realm_name', 'realm_message_retention_days']) {
    assert.ok(key in s, key);
  }
  const sub = s.subscriptions.find((x: { name: string }) => x.name === 'terminal');
  for (const key of ['stream_id', 'name', 'color', 'description', 'pin_to_top', 'in_home_view', 'desktop_notifications', 'invite_only', 'subscribers', 'message_retention_days']) {
    assert.ok(key in sub, `subscription ${key}`);
  }
  assert.match(sub.color, /^#[0-9a-f]{6}$/i, 'canonicalize_color accepts #xxxxxx or #xxx only');
  assert.ok(s.realm_users.every((u: object) => ['user_id', 'email', 'full_name'].every((k) => k in u)));
  assert.ok(s.cross_realm_bots.every((u: object) => ['user_id', 'email', 'full_name'].every((k) => k in u)));
  assert.ok(s.realm_user_groups.every((g: object) => 'id' in g && 'name' in g));
  // helper.classify_unread_counts: sender_id per direct conversation, user_ids_string per group.
  const unread = s.unread_msgs;
  for (const key of ['mentions', 'pms', 'streams', 'huddles']) assert.ok(Array.isArray(unread[key]), key);
  assert.ok(unread.pms.length > 0 && unread.pms.every((p: { sender_id: number }) => p.sender_id === bob.userId));
  assert.ok(unread.huddles.length > 0 && unread.huddles.every((h: { user_ids_string: string }) => /^\d+(,\d+)+$/.test(h.user_ids_string)));
  assert.ok(unread.streams.every((x: object) => ['stream_id', 'topic', 'unread_message_ids'].every((k) => k in x)));

  // Model._start_presence_updates reads the presences, by email, from its own update.
  const presence = await terry.post('/users/me/presence', { status: 'active', new_user_input: true });
  assert.equal(presence.status, 200);
  const mine = presence.body.presences[terry.email];
  assert.ok(mine.aggregated && Object.values(mine).every((p: any) => typeof p.timestamp === 'number' && typeof p.status === 'string'));

  const topics = await terry.get(`/users/me/${sub.stream_id}/topics`);
  assert.equal(topics.status, 200);
  assert.ok(topics.body.topics.every((x: object) => 'name' in x));
});

test('sending, and the events of a session: the fields the event handlers read', async () => {
  const reg = await terry.post('/register', { event_types: EVENT_TYPES, client_gravatar: true, apply_markdown: true, include_subscribers: true });
  const queueId = reg.body.queue_id;
  // Model.send_stream_message / send_private_message, as zulip.Client.send_message encodes them.
  const own = await sendMessage(terry, { type: 'stream', to: 'terminal', subject: 'from the terminal', content: 'hello' });
  await sendMessage(terry, { type: 'private', to: [bob.userId], content: 'a reply' });
  const incoming = await sendMessage(bob, { type: 'stream', to: 'terminal', subject: 'from the terminal', content: 'hi **terry**' });
  assert.equal((await bob.post('/typing', { to: [terry.userId], op: 'start' })).status, 200);
  assert.equal((await terry.post(`/messages/${incoming}/reactions`, { emoji_name: 'smile', emoji_code: '1f604', reaction_type: 'unicode_emoji', message_id: String(incoming) })).status, 200);
  assert.equal((await terry.post('/messages/flags', { messages: [incoming], flag: 'read', op: 'add' })).status, 200);
  assert.equal((await terry.patch(`/messages/${own}`, { message_id: own, propagate_mode: 'change_one', topic: 'renamed', content: 'hello again' })).status, 200);

  const events = await queuedEvents(terry, queueId);
  const byType = (type: string) => events.filter((e) => e.type === type);
  // The three sent; the fourth is the Notification Bot's note on the moved message.
  const messages = byType('message').slice(0, 3);
  assert.deepEqual(messages.map((e) => e.message.sender_id), [terry.userId, terry.userId, bob.userId]);
  for (const e of messages) {
    assert.ok(Array.isArray(e.flags));
    for (const key of ['id', 'type', 'content', 'sender_id', 'sender_full_name', 'sender_email', 'timestamp', 'reactions', 'subject', 'display_recipient']) {
      assert.ok(key in e.message, `message ${key}`);
    }
  }
  assert.equal(messages[0].message.stream_id, messages[2].message.stream_id);
  assert.ok(messages[1].message.display_recipient.every((r: object) => ['id', 'email', 'full_name'].every((k) => k in r)));
  const [typing] = byType('typing');
  assert.deepEqual([typing.op, typing.sender.email, typing.sender.user_id], ['start', bob.email, bob.userId]);
  const [reaction] = byType('reaction');
  assert.deepEqual([reaction.user.user_id, reaction.emoji_code, reaction.reaction_type, reaction.emoji_name], [terry.userId, '1f604', 'unicode_emoji', 'smile']);
  const [flags] = byType('update_message_flags');
  assert.deepEqual([flags.op, flags.all, flags.flag, flags.messages], ['add', false, 'read', [incoming]]);
  const edit = byType('update_message').find((e) => e.message_id === own);
  assert.deepEqual([edit.subject, edit.orig_subject, edit.message_ids, typeof edit.stream_id, edit.rendered_content], ['renamed', 'from the terminal', [own], 'number', '<p>hello again</p>']);

  // Model.fetch_raw_message_content and fetch_message_history.
  assert.equal((await terry.get(`/messages/${own}`)).body.raw_content, 'hello again');
  assert.equal((await terry.get(`/messages/${own}/history`)).body.message_history.length, 2);
});
