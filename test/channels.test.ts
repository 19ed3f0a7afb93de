// Channels over HTTP: creating them (defaults, validation, who may create what), and reading them
// (GET /streams, GET /streams/{id}, GET /get_stream_id) with the access rules: a channel the
// caller may not see answers exactly like one that does not exist.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client, openQueue, queuedEvents, startTestServer, type TestServer } from './helpers.js';

let t: TestServer;
let member: Client;
let other: Client;
let guest: Client;
let admin: Client;
let moderator: Client;
let groups: Record<string, number>;

before(async () => {
  t = await startTestServer();
  member = await t.createUser({ name: 'Mia Member' });
  other = await t.createUser({ name: 'Otto Other' });
  guest = await t.createUser({ role: 'guest', name: 'Gus Guest' });
  admin = await t.createUser({ role: 'administrator', name: 'Ada Admin' });
  moderator = await t.createUser({ role: 'moderator', name: 'Moe Moderator' });
  const list = (await t.owner.get('/user_groups')).body.user_groups as Array<{ id: number; name: string }>;
  groups = Object.fromEntries(list.map((g) => [g.name, g.id]));
});
after(async () => {
  await t.close();
});

async function create(c: Client, name: string, extra: Record<string, any> = {}) {
  return c.post('/users/me/subscriptions', { subscriptions: [{ name }], ...extra });
}

async function idOf(c: Client, name: string): Promise<number> {
  const res = await c.get('/get_stream_id', { stream: name });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.stream_id;
}

async function setRealm(settings: Record<string, any>) {
  const res = await t.owner.patch('/realm', settings);
  assert.equal(res.status, 200, JSON.stringify(res.body));
}

test('a new public channel has Zulip defaults, and everyone who can see it hears of it', async () => {
  const otherQ = await openQueue(other, ['stream', 'subscription'], ['subscription']);
  const guestQ = await openQueue(guest, ['stream', 'subscription'], ['subscription']);
  const mineQ = await openQueue(member, ['stream', 'subscription'], ['subscription']);
  const res = await member.post('/users/me/subscriptions', { subscriptions: [{ name: ' design ', description: 'All **things**\ndesign' }] });
  assert.equal(res.status, 200);
  assert.deepEqual(res.body.subscribed, { [String(member.userId)]: ['design'] });
  assert.deepEqual(res.body.already_subscribed, {});
  assert.equal(res.body.new_subscription_messages_sent, true, 'present by default: few enough users were newly subscribed');
  assert.equal('unauthorized' in res.body, false);

  const stream = (await other.get(`/streams/${await idOf(other, 'design')}`)).body.stream;
  assert.equal(stream.name, 'design');
  assert.equal(stream.description, 'All **things** design', 'newlines become spaces');
  assert.equal(stream.rendered_description, '<p>All <strong>things</strong> design</p>');
  assert.equal(stream.creator_id, member.userId);
  assert.equal(stream.invite_only, false);
  assert.equal(stream.is_web_public, false);
  assert.equal(stream.history_public_to_subscribers, true);
  assert.equal(stream.topics_policy, 'inherit');
  assert.equal(stream.message_retention_days, null);
  assert.equal(stream.folder_id, null);
  assert.equal(stream.is_archived, false);
  assert.equal(stream.stream_post_policy, 1);
  assert.equal(stream.is_announcement_only, false);
  assert.equal(stream.subscriber_count, 1);
  assert.equal(typeof stream.date_created, 'number');
  assert.deepEqual(stream.can_administer_channel_group, { direct_members: [member.userId], direct_subgroups: [] });
  assert.equal(stream.can_send_message_group, groups['role:everyone']);
  assert.equal(stream.can_create_topic_group, groups['role:everyone']);
  assert.equal(stream.can_remove_subscribers_group, groups['role:administrators']);
  for (const key of ['can_add_subscribers_group', 'can_subscribe_group', 'can_delete_any_message_group', 'can_delete_own_message_group', 'can_move_messages_out_of_channel_group', 'can_move_messages_within_channel_group', 'can_resolve_topics_group']) {
    assert.equal(stream[key], groups['role:nobody'], key);
  }

  const seen = await queuedEvents(other, otherQ);
  const create = seen.find((e) => e.type === 'stream' && e.op === 'create');
  assert.ok(create, 'members see a new public channel');
  assert.equal(create.streams[0].name, 'design');
  assert.deepEqual(create.streams[0].can_administer_channel_group, { direct_members: [member.userId], direct_subgroups: [] });
  const peer = seen.find((e) => e.type === 'subscription' && e.op === 'peer_add');
  assert.deepEqual([peer.stream_ids, peer.user_ids], [[create.streams[0].stream_id], [member.userId]]);
  assert.deepEqual(await queuedEvents(guest, guestQ), [], 'guests do not see public channels they are not in');

  const own = await queuedEvents(member, mineQ);
  assert.deepEqual(own.map((e) => `${e.type}/${e.op}`), ['stream/create', 'subscription/add']);
  const sub = own[1].subscriptions[0];
  assert.equal(sub.name, 'design');
  assert.deepEqual(sub.subscribers, [member.userId]);
  assert.equal(sub.color, '#76ce90', "the palette's first color for a user's first channel");
  assert.equal(sub.is_muted, false);
  assert.equal(sub.in_home_view, true);
  assert.equal(sub.desktop_notifications, null);
});

test('a name that exists (in any case) subscribes to that channel; repeated names count once', async () => {
  const again = await create(member, 'DESIGN');
  assert.deepEqual(again.body.subscribed, {});
  assert.deepEqual(again.body.already_subscribed, { [String(member.userId)]: ['design'] });
  const twice = await member.post('/users/me/subscriptions', { subscriptions: [{ name: 'Twice' }, { name: 'twice' }] });
  assert.deepEqual(twice.body.subscribed, { [String(member.userId)]: ['Twice'] });
  const streams = (await member.get('/streams')).body.streams.filter((s: any) => s.name.toLowerCase() === 'twice');
  assert.equal(streams.length, 1);
  // Letters beyond ASCII: the same name finds the same channel on either database.
  assert.deepEqual((await create(member, 'Équipe')).body.subscribed, { [String(member.userId)]: ['Équipe'] });
  assert.deepEqual((await create(other, 'Équipe')).body.subscribed, { [String(other.userId)]: ['Équipe'] });
  assert.deepEqual((await create(member, 'Équipe')).body.already_subscribed, { [String(member.userId)]: ['Équipe'] });
  assert.equal(typeof (await idOf(other, 'Équipe')), 'number');
});

test('a private channel protects its history by default and is announced only to those who may see it', async () => {
  const memberQ = await openQueue(member, ['stream'], ['subscription']);
  const adminQ = await openQueue(admin, ['stream'], ['subscription']);
  const otherQ = await openQueue(other, ['stream', 'subscription'], ['subscription']);
  const res = await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'secret' }], invite_only: true, principals: [t.owner.userId, other.userId] });
  assert.equal(res.status, 200);
  const id = await idOf(t.owner, 'secret');
  const stream = (await t.owner.get(`/streams/${id}`)).body.stream;
  assert.equal(stream.invite_only, true);
  assert.equal(stream.history_public_to_subscribers, false);
  assert.equal(stream.subscriber_count, 2);

  assert.deepEqual(await queuedEvents(member, memberQ), []);
  assert.equal((await queuedEvents(admin, adminQ)).filter((e) => e.op === 'create').length, 1, 'administrators see every channel');
  const theirs = await queuedEvents(other, otherQ);
  assert.deepEqual(theirs.map((e) => `${e.type}/${e.op}`), ['stream/create', 'subscription/add']);

  const shared = await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'shared-history' }], invite_only: true, history_public_to_subscribers: true });
  assert.equal(shared.status, 200);
  assert.equal((await t.owner.get(`/streams/${await idOf(t.owner, 'shared-history')}`)).body.stream.history_public_to_subscribers, true);
  const forced = await create(member, 'public-no-history', { history_public_to_subscribers: false });
  assert.equal(forced.status, 200);
  const pub = (await member.get(`/streams/${await idOf(member, 'public-no-history')}`)).body.stream;
  assert.equal(pub.history_public_to_subscribers, true, 'Zulip keeps public channels shared');
});

test('names, descriptions and parameters are validated', async () => {
  const cases: Array<[Record<string, any>, string]> = [
    [{ subscriptions: [{ name: '   ' }] }, "Channel name can't be empty."],
    [{ subscriptions: [{ name: 'x'.repeat(61) }] }, 'Channel name too long (limit: 60 characters).'],
    [{ subscriptions: [{ name: 'bad\u0001name' }] }, 'Invalid character in channel name, at position 4.'],
    [{ subscriptions: [{ name: 'c1\u0085control' }] }, 'Invalid character in channel name, at position 3.'],
    [{ subscriptions: [{ name: 'non\ufffechar' }] }, 'Invalid character in channel name, at position 4.'],
    [{ subscriptions: [{ name: 'ok', description: 'd'.repeat(1025) }] }, 'subscriptions[0]["description"] is too long (limit: 1024 characters)'],
    [{ subscriptions: [{ name: 'ok', color: 'red' }] }, 'subscriptions[0]["color"] is not a valid hex color code'],
    [{ subscriptions: [{ description: 'no name' }] }, 'subscriptions[0]["name"] is not a string'],
    [{ subscriptions: '{"name":"x"}' }, 'subscriptions is not a list'],
    [{ subscriptions: [{ name: 'ok' }], topics_policy: 'sometimes' }, 'Invalid topics_policy'],
    [{ subscriptions: [{ name: 'ok' }], message_retention_days: 0 }, "Bad value for 'message_retention_days': 0"],
    [{ subscriptions: [{ name: 'ok' }], folder_id: 999999 }, 'Invalid channel folder ID'],
    [{ subscriptions: [{ name: 'ok' }], can_subscribe_group: '"everyone"' }, 'can_subscribe_group is not a valid group setting value'],
    [{ subscriptions: [{ name: 'ok' }], invite_only: 'yes' }, 'invite_only is not a boolean'],
  ];
  for (const [params, msg] of cases) {
    const res = await member.post('/users/me/subscriptions', params);
    assert.deepEqual([res.status, res.body.code, res.body.msg], [400, 'BAD_REQUEST', msg], JSON.stringify(params));
  }
  const missing = await member.post('/users/me/subscriptions', {});
  assert.deepEqual([missing.body.code, missing.body.var_name], ['REQUEST_VARIABLE_MISSING', 'subscriptions']);
  // Sixty characters are sixty code points, however many UTF-16 units they take.
  const emoji = '🐙'.repeat(60);
  assert.equal((await create(member, emoji)).status, 200);
  assert.equal((await member.get('/streams')).body.streams.some((s: any) => s.name === 'ok'), false, 'no half-made channel');
});

test('permission settings of a new channel follow Zulip rules', async () => {
  const everyone = await create(member, 'perm-a', { can_subscribe_group: groups['role:everyone'] });
  assert.deepEqual([everyone.status, everyone.body.msg], [400, "'can_subscribe_group' setting cannot be set to 'role:everyone' group."]);
  const internet = await create(member, 'perm-a', { can_send_message_group: groups['role:internet'] });
  assert.deepEqual([internet.status, internet.body.msg], [400, "'can_send_message_group' setting cannot be set to 'role:internet' group."]);
  const unknown = await create(member, 'perm-a', { can_send_message_group: 999999 });
  assert.equal(unknown.status, 400);
  const protectedTopics = await create(member, 'perm-a', { invite_only: true, can_create_topic_group: groups['role:members'] });
  assert.deepEqual([protectedTopics.status, protectedTopics.body.msg], [400, 'Unsupported parameter combination: history_public_to_subscribers, can_create_topic_group']);
  const deletion = await create(member, 'perm-a', { can_delete_own_message_group: groups['role:everyone'] });
  assert.deepEqual([deletion.status, deletion.body.msg], [400, 'Insufficient permission'], 'can_set_delete_message_policy_group is moderators');
  assert.equal((await create(moderator, 'perm-b', { can_delete_own_message_group: groups['role:everyone'] })).status, 200);

  const ok = await create(member, 'perm-a', {
    invite_only: true,
    history_public_to_subscribers: true,
    can_create_topic_group: groups['role:members'],
    can_send_message_group: { direct_members: [member.userId, other.userId], direct_subgroups: [groups['role:administrators']] },
    can_subscribe_group: { direct_members: [], direct_subgroups: [groups['role:moderators']] },
    can_administer_channel_group: { direct_members: [], direct_subgroups: [] },
    topics_policy: '"disable_empty_topic"',
  });
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
  const stream = (await member.get(`/streams/${await idOf(member, 'perm-a')}`)).body.stream;
  assert.deepEqual(stream.can_send_message_group, { direct_members: [member.userId, other.userId], direct_subgroups: [groups['role:administrators']] });
  assert.equal(stream.can_subscribe_group, groups['role:moderators'], 'one subgroup and no members is that group');
  assert.equal(stream.can_administer_channel_group, groups['role:nobody']);
  assert.equal(stream.can_create_topic_group, groups['role:members']);
  assert.equal(stream.topics_policy, 'disable_empty_topic');
  // Moderators may subscribe to it, so they may see it.
  assert.equal((await moderator.get(`/streams/${stream.stream_id}`)).status, 200);
});

test('who may create which channels', async () => {
  const guestTry = await create(guest, 'guest-made');
  assert.deepEqual([guestTry.status, guestTry.body.msg], [400, 'Not allowed for guest users']);

  await setRealm({ can_create_public_channel_group: { new: groups['role:administrators'] }, can_create_private_channel_group: { new: groups['role:moderators'] } });
  try {
    assert.deepEqual((await create(member, 'member-public')).body.msg, 'Insufficient permission');
    assert.deepEqual((await create(member, 'member-private', { invite_only: true })).body.msg, 'Insufficient permission');
    assert.equal((await create(moderator, 'mod-private', { invite_only: true })).status, 200);
    assert.equal((await create(admin, 'admin-public')).status, 200);
    // Joining an existing channel needs no creation permission.
    assert.equal((await create(member, 'admin-public')).status, 200);
  } finally {
    await setRealm({ can_create_public_channel_group: { new: groups['role:members'] }, can_create_private_channel_group: { new: groups['role:members'] } });
  }

  assert.equal((await create(member, 'member-default', { is_default_stream: true })).body.msg, 'Insufficient permission');
  assert.equal((await create(admin, 'admin-default-private', { is_default_stream: true, invite_only: true })).body.msg, 'A default channel cannot be private.');
  const defaultsQ = await openQueue(member, ['default_streams'], ['default_streams']);
  assert.equal((await create(admin, 'admin-default', { is_default_stream: true })).status, 200);
  const [changed] = await queuedEvents(member, defaultsQ);
  assert.deepEqual(changed.default_streams, [await idOf(admin, 'admin-default')]);
  const withDefaults = (await member.get('/streams', { include_default: true })).body.streams;
  assert.equal(withDefaults.find((s: any) => s.name === 'admin-default').is_default, true);
  assert.equal(withDefaults.find((s: any) => s.name === 'design').is_default, false);
  assert.equal('is_default' in (await member.get('/streams')).body.streams[0], false, 'only with include_default');

  assert.equal((await create(t.owner, 'web', { is_web_public: true })).body.msg, 'Web-public channels are not enabled.');
  await setRealm({ enable_spectator_access: true });
  assert.equal((await create(admin, 'web', { is_web_public: true })).body.msg, 'Insufficient permission', 'owners only by default');
  assert.equal((await create(t.owner, 'web', { is_web_public: true, invite_only: true })).body.msg, 'Invalid parameters');
  assert.equal((await create(t.owner, 'web', { is_web_public: true })).status, 200);
  assert.equal((await guest.get(`/streams/${await idOf(t.owner, 'web')}`)).body.stream.is_web_public, true, 'guests see web-public channels');

  const retention = await create(admin, 'kept', { message_retention_days: 30 });
  assert.deepEqual([retention.status, retention.body.code, retention.body.msg], [400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization owner']);
  assert.equal((await create(admin, 'kept', { message_retention_days: 'realm_default' })).status, 200);
  assert.equal((await create(t.owner, 'kept-30', { message_retention_days: 30 })).status, 200);
  assert.equal((await create(t.owner, 'kept-forever', { message_retention_days: '"unlimited"' })).status, 200);
  assert.equal((await t.owner.get(`/streams/${await idOf(t.owner, 'kept-30')}`)).body.stream.message_retention_days, 30);
  assert.equal((await t.owner.get(`/streams/${await idOf(t.owner, 'kept-forever')}`)).body.stream.message_retention_days, -1);

  await setRealm({ can_set_topics_policy_group: { new: groups['role:administrators'] } });
  assert.equal((await create(member, 'topical', { topics_policy: 'empty_topic_only' })).body.msg, 'Insufficient permission');
  // add_subscriptions_backend: the folder lookup comes first, the name checks (list_to_streams) last.
  assert.equal((await create(member, 'topical', { topics_policy: 'empty_topic_only', folder_id: 999999 })).body.msg, 'Invalid channel folder ID');
  assert.equal((await create(member, 'x'.repeat(61), { topics_policy: 'empty_topic_only' })).body.msg, 'Insufficient permission');
  assert.equal((await create(member, 'topical', { topics_policy: 'inherit' })).status, 200);
});

test('GET /streams/{id} and GET /get_stream_id: hidden channels look missing', async () => {
  const secretId = await idOf(t.owner, 'secret');
  const missing = await member.get('/streams/999999');
  assert.deepEqual([missing.status, missing.body.code, missing.body.msg], [400, 'BAD_REQUEST', 'Invalid channel ID']);
  assert.deepEqual((await member.get(`/streams/${secretId}`)).body, missing.body);
  assert.equal((await admin.get(`/streams/${secretId}`)).body.stream.name, 'secret', 'administrators have metadata access');
  assert.equal((await other.get(`/streams/${secretId}`)).status, 200, 'subscribers see it');
  const designId = await idOf(member, 'design');
  assert.deepEqual((await guest.get(`/streams/${designId}`)).body, missing.body, 'guests see only their channels');
  assert.equal((await member.get('/streams/abc')).status, 400);

  assert.equal(await idOf(other, 'Design'), designId, 'names match in any case');
  const hidden = await member.get('/get_stream_id', { stream: 'secret' });
  assert.deepEqual([hidden.status, hidden.body.msg], [400, "Invalid channel name 'secret'"]);
  assert.equal((await member.get('/get_stream_id', { stream: 'nonexistent' })).body.msg, "Invalid channel name 'nonexistent'");
  assert.equal((await member.get('/get_stream_id')).body.code, 'REQUEST_VARIABLE_MISSING');
});

test('GET /streams filters what the caller may see', async () => {
  const names = (res: any) => res.body.streams.map((s: any) => s.name);
  const all = await member.get('/streams');
  assert.equal(all.status, 200);
  assert.deepEqual(names(all), [...names(all)].sort(), 'sorted by name');
  assert.ok(names(all).includes('admin-public') && !names(all).includes('secret'));

  const mine = names(await member.get('/streams', { include_public: false }));
  const subscribed = (await member.get('/users/me/subscriptions')).body.subscriptions.map((s: any) => s.name);
  assert.deepEqual(mine, [...subscribed].sort());

  const memberAll = names(await member.get('/streams', { include_all: true }));
  assert.ok(!memberAll.includes('secret'), 'include_all lists only what the caller may see');
  assert.ok(names(await admin.get('/streams', { include_all: true })).includes('secret'));
  assert.ok(names(await admin.get('/streams', { include_all_active: true })).includes('secret'), 'the deprecated spelling');
  assert.ok(!names(await admin.get('/streams')).includes('secret'), 'not without include_all');
  assert.ok(names(await other.get('/streams', { include_public: false, include_subscribed: false, include_can_access_content: true })).includes('secret'));

  assert.deepEqual(names(await guest.get('/streams')), [], 'a guest in no channel sees none');
  assert.deepEqual(names(await guest.get('/streams', { include_web_public: true })), ['web']);

  const archive = await t.owner.delete(`/streams/${await idOf(t.owner, 'kept')}`);
  assert.equal(archive.status, 200);
  assert.ok(!names(await t.owner.get('/streams')).includes('kept'));
  const withArchived = (await t.owner.get('/streams', { exclude_archived: false })).body.streams;
  assert.equal(withArchived.find((s: any) => s.name === 'kept').is_archived, true);

  const bot = await member.post('/bots', { full_name: 'Helper Bot', short_name: 'helper' });
  assert.equal(bot.status, 200);
  const botEmail = (await member.get(`/users/${bot.body.user_id}`)).body.user.email;
  const asBot = new Client(t.url, botEmail, bot.body.api_key, bot.body.user_id);
  assert.deepEqual(names(await asBot.get('/streams', { include_public: false })), []);
  assert.deepEqual(names(await asBot.get('/streams', { include_public: false, include_owner_subscribed: true })), mine);
  assert.equal((await member.get('/streams', { include_public: 'maybe' })).status, 400);
});

test("another organization's channels do not exist here", async () => {
  const org = await t.createOrg('Elsewhere');
  await create(org.owner, 'their-channel');
  const theirId = await idOf(org.owner, 'their-channel');
  assert.equal((await member.get(`/streams/${theirId}`)).body.msg, 'Invalid channel ID');
  assert.equal((await t.owner.get(`/streams/${theirId}`)).body.msg, 'Invalid channel ID', 'not even for administrators');
  assert.equal((await member.get('/get_stream_id', { stream: 'their-channel' })).status, 400);
  assert.ok(!(await t.owner.get('/streams', { include_all: true })).body.streams.some((s: any) => s.stream_id === theirId));
  // Subscribing by that name creates a channel of this organization.
  assert.equal((await create(member, 'their-channel')).status, 200);
  assert.notEqual(await idOf(member, 'their-channel'), theirId);
  assert.deepEqual((await org.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'x' }], principals: [member.userId] })).body.msg, 'No such user');
});
