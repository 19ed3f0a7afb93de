// PATCH /streams/{stream_id} and archiving: each property, its rules, permissions, events.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type Client, type TestServer } from './helpers.js';

let t: TestServer;
let member: Client;
let admin: Client;
let groups: Map<string, number>;
before(async () => {
  t = await startTestServer();
  member = await t.createUser({ name: 'Meg Member' });
  admin = await t.createUser({ role: 'administrator', name: 'Abe Admin' });
  groups = new Map((await t.owner.get('/user_groups')).body.user_groups.map((g: any) => [g.name, g.id]));
});
after(async () => {
  await t.close();
});

async function makeChannel(c: Client, name: string, extra: Record<string, unknown> = {}) {
  const res = await c.post('/users/me/subscriptions', { subscriptions: [{ name }], ...extra });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return (await t.owner.get('/get_stream_id', { stream: name })).body.stream_id as number;
}

test('rename and describe: limits, uniqueness, events to those who can see the channel', async () => {
  const id = await makeChannel(t.owner, 'plain');
  await makeChannel(t.owner, 'taken');
  const reg = await member.post('/register', { event_types: ['stream'], fetch_event_types: ['stream'] });
  assert.equal((await t.owner.patch(`/streams/${id}`, { new_name: 'renamed', description: 'Now **bold**' })).status, 200);
  const evs = (await member.get('/events', { queue_id: reg.body.queue_id, last_event_id: -1, dont_block: true })).body.events;
  // Zulip's update_stream_backend order: the description, then do_rename_stream, whose `name` is the old name.
  assert.deepEqual(evs.map((e: any) => [e.property, e.name, e.value]), [['description', 'plain', 'Now **bold**'], ['name', 'plain', 'renamed']]);
  assert.equal(evs[0].rendered_description, '<p>Now <strong>bold</strong></p>');
  const clash = await t.owner.patch(`/streams/${id}`, { new_name: 'TAKEN' });
  assert.deepEqual([clash.status, clash.body.msg], [400, "Channel 'TAKEN' already exists"]);
  const same = await t.owner.patch(`/streams/${id}`, { new_name: ' renamed ' });
  assert.deepEqual([same.status, same.body.msg], [400, 'Channel already has that name.']);
  assert.equal((await t.owner.patch(`/streams/${id}`, { new_name: 'Renamed' })).status, 200, 'a change of case is a rename');
  assert.equal((await t.owner.patch(`/streams/${id}`, { new_name: 'renamed' })).status, 200);
  assert.equal((await t.owner.patch(`/streams/${id}`, { new_name: 'x'.repeat(61) })).status, 400);
  const long = await t.owner.patch(`/streams/${id}`, { description: 'd'.repeat(1025) });
  assert.deepEqual([long.status, long.body.msg], [400, 'description is too long (limit: 1024 characters)']);
  // A parameter's bound, checked before the channel is looked up.
  assert.equal((await t.owner.patch('/streams/999999', { description: 'd'.repeat(1025) })).body.msg, 'description is too long (limit: 1024 characters)');
  assert.equal((await t.owner.get(`/streams/${id}`)).body.stream.name, 'renamed');
  // Descriptions link channels like messages do, but show no image previews.
  const takenId = (await t.owner.get('/get_stream_id', { stream: 'taken' })).body.stream_id;
  assert.equal((await t.owner.patch(`/streams/${id}`, { description: 'See #**taken** https://x.example.com/a.png' })).status, 200);
  assert.equal(
    (await t.owner.get(`/streams/${id}`)).body.stream.rendered_description,
    `<p>See <a class="stream" data-stream-id="${takenId}" href="/#narrow/channel/${takenId}-taken">#taken</a> <a href="https://x.example.com/a.png">https://x.example.com/a.png</a></p>`,
  );
});

test('only channel administrators may change a channel', async () => {
  const id = await makeChannel(t.owner, 'guarded');
  const denied = await member.patch(`/streams/${id}`, { description: 'mine now' });
  assert.equal(denied.status, 400);
  const byAdmin = await admin.patch(`/streams/${id}`, { description: 'admins may' });
  assert.equal(byAdmin.status, 200);
  const own = await makeChannel(member, 'members-own');
  assert.equal((await member.patch(`/streams/${own}`, { description: 'the creator administers it' })).status, 200);
  const missing = await admin.patch('/streams/999999', { description: 'x' });
  assert.equal(missing.status, 400);
});

test('privacy: private, history rules, web-public preconditions', async () => {
  const id = await makeChannel(t.owner, 'turning-private');
  const reg = await admin.post('/register', { event_types: ['stream'], fetch_event_types: ['stream'] });
  const memberReg = await member.post('/register', { event_types: ['stream'], fetch_event_types: ['stream'] });
  const noHistory = await t.owner.patch(`/streams/${id}`, { history_public_to_subscribers: false });
  assert.equal(noHistory.status, 400, 'public channels keep their history public');
  assert.equal((await t.owner.patch(`/streams/${id}`, { is_private: true, history_public_to_subscribers: false })).status, 200);
  const evs = (await admin.get('/events', { queue_id: reg.body.queue_id, last_event_id: -1, dont_block: true })).body.events;
  // do_change_stream_permission tells those who can see the channel now (an administrator does), not those who lost sight of it.
  const memberEvs = (await member.get('/events', { queue_id: memberReg.body.queue_id, last_event_id: -1, dont_block: true })).body.events;
  assert.deepEqual(memberEvs.filter((e: any) => e.type === 'stream'), []);
  const ev = evs.find((e: any) => e.property === 'invite_only');
  assert.equal(ev.value, true);
  assert.equal(ev.history_public_to_subscribers, false);
  // Zulip's fields for this event, no more (events/types.ts streamUpdateEvent).
  assert.deepEqual(Object.keys(ev).sort(), ['history_public_to_subscribers', 'id', 'is_web_public', 'name', 'op', 'property', 'stream_id', 'type', 'value']);
  assert.deepEqual([ev.stream_id, ev.name, ev.is_web_public], [id, 'turning-private', false]);
  assert.equal((await member.get(`/streams/${id}`)).status, 400, 'a private channel is hidden from non-subscribers');
  const webPublic = await t.owner.patch(`/streams/${id}`, { is_private: false, is_web_public: true });
  assert.deepEqual([webPublic.status, webPublic.body.msg], [400, 'Web-public channels are not enabled.'], 'spectator access is off in this organization');
  await t.owner.patch('/realm', { enable_spectator_access: true });
  const webOk = await t.owner.patch(`/streams/${id}`, { is_private: false, is_web_public: true });
  assert.equal(webOk.status, 200);
  const s = (await t.owner.get(`/streams/${id}`)).body.stream;
  assert.deepEqual([s.invite_only, s.is_web_public, s.history_public_to_subscribers], [false, true, true]);
  const memberWeb = await makeChannel(member, 'member-web');
  assert.equal((await member.patch(`/streams/${memberWeb}`, { is_web_public: true })).status, 400, 'only owners may make channels web-public');
  // A web-public channel made private without is_web_public=false is an inconsistent state.
  assert.deepEqual((await t.owner.patch(`/streams/${id}`, { is_private: true })).body.msg, 'Invalid parameters');
  await t.owner.patch('/realm', { enable_spectator_access: false });
});

test("privacy as Zulip's update_stream_backend: history follows a new privacy, default channels stay public, the creation rights", async () => {
  const id = await makeChannel(t.owner, 'going-dark');
  assert.equal((await t.owner.patch(`/streams/${id}`, { is_private: true })).status, 200);
  const s = (await t.owner.get(`/streams/${id}`)).body.stream;
  assert.deepEqual([s.invite_only, s.history_public_to_subscribers], [true, false], 'a channel made private protects its history unless told otherwise');
  assert.equal((await t.owner.patch(`/streams/${id}`, { is_private: false })).status, 200);
  assert.equal((await t.owner.get(`/streams/${id}`)).body.stream.history_public_to_subscribers, true);

  assert.equal((await t.owner.patch(`/streams/${id}`, { is_default_stream: true })).status, 200);
  const defaultPrivate = await t.owner.patch(`/streams/${id}`, { is_private: true });
  assert.deepEqual([defaultPrivate.status, defaultPrivate.body.msg], [400, 'A default channel cannot be private.']);
  assert.equal((await t.owner.get(`/streams/${id}`)).body.stream.invite_only, false);
  assert.equal((await t.owner.patch(`/streams/${id}`, { is_private: true, is_default_stream: false })).status, 200);

  // Naming a privacy needs the right to create such channels, administrators included.
  assert.equal((await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'going-dark' }], principals: [admin.userId] })).status, 200);
  const owners = JSON.stringify({ new: groups.get('role:owners') });
  assert.equal((await t.owner.patch('/realm', { can_create_public_channel_group: owners })).status, 200);
  const denied = await admin.patch(`/streams/${id}`, { is_private: false });
  assert.deepEqual([denied.status, denied.body.msg], [400, 'Insufficient permission']);
  assert.equal((await t.owner.patch('/realm', { can_create_public_channel_group: JSON.stringify({ new: groups.get('role:members') }) })).status, 200);
});

test("an administrator must be subscribed to change a private channel's permissions; metadata access suffices to rename, describe, remove subscribers", async () => {
  const id = await makeChannel(t.owner, 'owners-room', { invite_only: true });
  // Zulip's update_stream_backend needs only metadata access (an organization administrator has
  // it) for the name and the description; the owner, subscribed, hears of both.
  const q = (await t.owner.post('/register', { event_types: ['stream'] })).body.queue_id;
  const described = await admin.patch(`/streams/${id}`, { description: 'peeking' });
  assert.deepEqual([described.status, described.body.result], [200, 'success']);
  const renamed = await admin.patch(`/streams/${id}`, { new_name: 'admins-renamed-it' });
  assert.deepEqual([renamed.status, renamed.body.result], [200, 'success']);
  const evs = (await t.owner.get('/events', { queue_id: q, last_event_id: -1, dont_block: true })).body.events;
  assert.deepEqual(evs.filter((e: any) => e.type === 'stream').map((e: any) => [e.property, e.value]), [['description', 'peeking'], ['name', 'admins-renamed-it']]);
  const seen = (await t.owner.get(`/streams/${id}`)).body.stream;
  assert.deepEqual([seen.name, seen.description], ['admins-renamed-it', 'peeking']);
  // Its permissions need content access: Zulip's 'Channel content access is required.'
  const privacy = await admin.patch(`/streams/${id}`, { is_private: false });
  assert.deepEqual([privacy.status, privacy.body.code, privacy.body.msg], [400, 'BAD_REQUEST', 'Channel content access is required.']);
  const addGroup = await admin.patch(`/streams/${id}`, { can_add_subscribers_group: { new: groups.get('role:administrators') } });
  assert.deepEqual([addGroup.status, addGroup.body.msg], [400, 'Channel content access is required.']);
  const removeGroup = await admin.patch(`/streams/${id}`, { can_remove_subscribers_group: { new: groups.get('role:administrators') } });
  assert.equal(removeGroup.status, 200);
  // The topics policy is no permission: update_stream_backend asks no content access for it.
  assert.equal((await admin.patch(`/streams/${id}`, { topics_policy: 'allow_empty_topic' })).status, 200);
  assert.equal((await t.owner.get(`/streams/${id}`)).body.stream.topics_policy, 'allow_empty_topic');
  // A member who cannot see the channel is told it does not exist, as for a missing one.
  const hidden = await member.patch(`/streams/${id}`, { description: 'x' });
  assert.deepEqual([hidden.status, hidden.body.msg], [400, 'Invalid channel ID']);
  assert.deepEqual((await member.patch('/streams/999999', { description: 'x' })).body.msg, 'Invalid channel ID');
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'admins-renamed-it' }], principals: [admin.userId] });
  assert.equal((await admin.patch(`/streams/${id}`, { is_private: false })).status, 200);
});

test('group settings: {new, old}, stale old refused, both value forms, events carry the value', async () => {
  const id = await makeChannel(t.owner, 'settings-room');
  const reg = await t.owner.post('/register', { event_types: ['stream'], fetch_event_types: ['stream'] });
  const current = (await t.owner.get(`/streams/${id}`)).body.stream.can_send_message_group;
  const stale = await t.owner.patch(`/streams/${id}`, { can_send_message_group: { new: groups.get('role:members'), old: groups.get('role:nobody') } });
  assert.equal(stale.status, 400);
  const ok = await t.owner.patch(`/streams/${id}`, { can_send_message_group: { new: groups.get('role:members'), old: current } });
  assert.equal(ok.status, 200);
  const anon = { direct_members: [member.userId], direct_subgroups: [groups.get('role:moderators')] };
  assert.equal((await t.owner.patch(`/streams/${id}`, { can_delete_own_message_group: { new: anon } })).status, 200);
  assert.deepEqual((await t.owner.get(`/streams/${id}`)).body.stream.can_delete_own_message_group, anon);
  const evs = (await t.owner.get('/events', { queue_id: reg.body.queue_id, last_event_id: -1, dont_block: true })).body.events;
  assert.deepEqual(evs.map((e: any) => [e.property, e.value]), [['can_send_message_group', groups.get('role:members')], ['can_delete_own_message_group', anon]]);
  const bad = await t.owner.patch(`/streams/${id}`, { can_send_message_group: { new: 999999 } });
  assert.equal(bad.status, 400);
  const notObject = await t.owner.patch(`/streams/${id}`, { can_send_message_group: groups.get('role:members')! });
  assert.equal(notObject.status, 400, 'an update must be wrapped as {new, old}');
});

test('topics policy, retention, default channels, archiving and unarchiving', async () => {
  const id = await makeChannel(t.owner, 'policy-room');
  await t.owner.post('/messages', { type: 'stream', to: 'policy-room', topic: 'named', content: 'x' });
  const emptyOnly = await t.owner.patch(`/streams/${id}`, { topics_policy: 'empty_topic_only' });
  assert.equal(emptyOnly.status, 400, 'not while a named topic exists');
  assert.equal((await t.owner.patch(`/streams/${id}`, { topics_policy: 'disable_empty_topic' })).status, 200);
  assert.equal((await t.owner.patch(`/streams/${id}`, { topics_policy: 'sometimes' })).status, 400);
  assert.equal((await admin.patch(`/streams/${id}`, { message_retention_days: '30' })).status, 400, 'owners only');
  assert.equal((await t.owner.patch(`/streams/${id}`, { message_retention_days: '30' })).status, 200);
  assert.equal((await t.owner.get(`/streams/${id}`)).body.stream.message_retention_days, 30);
  assert.equal((await t.owner.patch(`/streams/${id}`, { message_retention_days: 'unlimited' })).status, 200);
  assert.equal((await t.owner.patch(`/streams/${id}`, { message_retention_days: '-3' })).status, 400);
  const reg = await member.post('/register', { event_types: ['default_streams'], fetch_event_types: ['default_streams'] });
  assert.equal((await t.owner.patch(`/streams/${id}`, { is_default_stream: true })).status, 200);
  const evs = (await member.get('/events', { queue_id: reg.body.queue_id, last_event_id: -1, dont_block: true })).body.events;
  assert.ok(evs.some((e: any) => e.type === 'default_streams' && e.default_streams.includes(id)));
  assert.ok((await member.post('/register', { fetch_event_types: ['default_streams'] })).body.realm_default_streams.includes(id));
  // update_stream_backend ignores is_archived=true (archiving is DELETE) and unarchives only an archived channel.
  const archiveViaPatch = await t.owner.patch(`/streams/${id}`, { is_archived: true });
  assert.deepEqual([archiveViaPatch.status, archiveViaPatch.body.msg], [200, '']);
  assert.equal((await t.owner.get(`/streams/${id}`)).body.stream.is_archived, false);
  const notArchived = await t.owner.patch(`/streams/${id}`, { is_archived: false });
  assert.deepEqual([notArchived.status, notArchived.body.msg], [400, 'Channel is not currently deactivated']);
  assert.equal((await t.owner.delete(`/streams/${id}`)).status, 200);
  const twice = await t.owner.delete(`/streams/${id}`);
  assert.deepEqual([twice.status, twice.body.msg], [400, 'Channel is already deactivated'], "do_deactivate_stream's words");
  assert.equal((await t.owner.get(`/streams/${id}`)).body.stream.is_archived, true);
  assert.equal((await t.owner.post('/messages', { type: 'stream', to: 'policy-room', topic: 'named', content: 'x' })).status, 400);
  assert.equal((await t.owner.patch(`/streams/${id}`, { is_archived: false })).status, 200);
  assert.equal((await t.owner.post('/messages', { type: 'stream', to: 'policy-room', topic: 'named', content: 'back' })).status, 200);
});

test('a private channel made public is announced (create, peer_add) to those who could not see it; the update to the rest', async () => {
  const id = await makeChannel(t.owner, 'opening-up', { invite_only: true });
  const memberQueue = (await member.post('/register', { event_types: ['stream', 'subscription'], fetch_event_types: ['stream'] })).body.queue_id;
  const adminQueue = (await admin.post('/register', { event_types: ['stream', 'subscription'], fetch_event_types: ['stream'] })).body.queue_id;
  assert.equal((await t.owner.patch(`/streams/${id}`, { is_private: false })).status, 200);
  const events = async (c: Client, q: string) => (await c.get('/events', { queue_id: q, last_event_id: -1, dont_block: true })).body.events.filter((e: any) => e.type !== 'heartbeat');
  // do_change_stream_permission: the member could not see it, so gets it whole and then its subscribers.
  const memberEvs = await events(member, memberQueue);
  assert.deepEqual(memberEvs.map((e: any) => `${e.type}/${e.op}`), ['stream/create', 'subscription/peer_add']);
  assert.equal(memberEvs[0].streams[0].stream_id, id);
  assert.equal(memberEvs[0].streams[0].invite_only, false);
  assert.deepEqual([memberEvs[1].stream_ids, memberEvs[1].user_ids], [[id], [t.owner.userId]]);
  // The administrator could see it already: the update only.
  const adminEvs = await events(admin, adminQueue);
  assert.deepEqual(adminEvs.map((e: any) => `${e.type}/${e.op}/${e.property}/${e.value}`), ['stream/update/invite_only/false']);
});

test('group settings that grant sight of a private channel: create and peer_add to who gains it, delete to who loses it', async () => {
  const id = await makeChannel(t.owner, 'gatekept', { invite_only: true });
  const memberQueue = (await member.post('/register', { event_types: ['stream', 'subscription'], fetch_event_types: ['stream'] })).body.queue_id;
  const events = async () => (await member.get('/events', { queue_id: memberQueue, last_event_id: -1, dont_block: true })).body.events.filter((e: any) => e.type !== 'heartbeat');
  // An anonymous value naming one group is stored, and announced, as that group (do_change_stream_group_based_setting).
  const grant = await t.owner.patch(`/streams/${id}`, { can_subscribe_group: { new: { direct_members: [], direct_subgroups: [groups.get('role:members')!] } } });
  assert.equal(grant.status, 200);
  const gained = await events();
  assert.deepEqual(gained.map((e: any) => `${e.type}/${e.op}`), ['stream/create', 'subscription/peer_add']);
  assert.equal(gained[0].streams[0].can_subscribe_group, groups.get('role:members'));
  assert.deepEqual(gained[1].user_ids, [t.owner.userId]);
  const ownerQueue = (await t.owner.post('/register', { event_types: ['stream'], fetch_event_types: ['stream'] })).body.queue_id;
  assert.equal((await t.owner.patch(`/streams/${id}`, { can_subscribe_group: { new: groups.get('role:nobody')! } })).status, 200);
  const lost = await events();
  assert.deepEqual(lost.slice(2).map((e: any) => [e.type, e.op, e.stream_ids]), [['stream', 'delete', [id]]]);
  const ownerEvs = (await t.owner.get('/events', { queue_id: ownerQueue, last_event_id: -1, dont_block: true })).body.events;
  assert.deepEqual(ownerEvs.map((e: any) => [e.property, e.value]), [['can_subscribe_group', groups.get('role:nobody')]]);
});

test('can_send_message_group changes also send the legacy stream_post_policy and is_announcement_only events', async () => {
  const id = await makeChannel(t.owner, 'announcements-only');
  const q = (await member.post('/register', { event_types: ['stream'], fetch_event_types: ['stream'] })).body.queue_id;
  assert.equal((await t.owner.patch(`/streams/${id}`, { can_send_message_group: { new: groups.get('role:administrators')! } })).status, 200);
  const evs = (await member.get('/events', { queue_id: q, last_event_id: -1, dont_block: true })).body.events;
  assert.deepEqual(evs.map((e: any) => [e.property, e.value]), [
    ['can_send_message_group', groups.get('role:administrators')],
    ['stream_post_policy', 2],
    ['is_announcement_only', true],
  ]);
});

test('archiving a default channel tells non-guests the new default channels before the is_archived update', async () => {
  const id = await makeChannel(t.owner, 'default-then-archived');
  assert.equal((await t.owner.patch(`/streams/${id}`, { is_default_stream: true })).status, 200);
  const q = (await member.post('/register', { event_types: ['stream', 'default_streams'], fetch_event_types: ['default_streams'], client_capabilities: { archived_channels: true } })).body.queue_id;
  assert.equal((await t.owner.delete(`/streams/${id}`)).status, 200);
  const evs = (await member.get('/events', { queue_id: q, last_event_id: -1, dont_block: true })).body.events;
  // do_deactivate_stream: do_remove_default_stream's event, then the stream update.
  assert.deepEqual(evs.map((e: any) => (e.type === 'default_streams' ? `default_streams/${e.default_streams.includes(id)}` : `${e.type}/${e.property}/${e.value}`)), [
    'default_streams/false',
    'stream/is_archived/true',
  ]);
});

test('archiving: stream/delete for clients without archived_channels, not for those with it; unarchiving: stream/create likewise', async () => {
  const id = await makeChannel(t.owner, 'comes-and-goes');
  const register = async (archived: boolean) =>
    (await member.post('/register', { event_types: ['stream'], fetch_event_types: ['stream'], client_capabilities: { archived_channels: archived } })).body.queue_id as string;
  const plain = await register(false);
  const aware = await register(true);
  const events = async (q: string) => (await member.get('/events', { queue_id: q, last_event_id: -1, dont_block: true })).body.events.map((e: any) => `${e.op}/${e.property ?? ''}`);
  assert.equal((await t.owner.delete(`/streams/${id}`)).status, 200);
  assert.equal((await t.owner.patch(`/streams/${id}`, { is_archived: false })).status, 200);
  // do_deactivate_stream / do_unarchive_stream with for_archiving / for_unarchiving.
  assert.deepEqual(await events(plain), ['update/is_archived', 'delete/', 'update/is_archived', 'create/']);
  assert.deepEqual(await events(aware), ['update/is_archived', 'update/is_archived']);
});

test('unarchiving and a retention change in one request: the channel whole (stream/create) carries the new retention', async () => {
  const id = await makeChannel(t.owner, 'back-with-retention');
  assert.equal((await t.owner.delete(`/streams/${id}`)).status, 200);
  const q = (await member.post('/register', { event_types: ['stream'], fetch_event_types: ['stream'], client_capabilities: { archived_channels: false } })).body.queue_id;
  assert.equal((await t.owner.patch(`/streams/${id}`, { is_archived: false, message_retention_days: '30' })).status, 200);
  const evs = (await member.get('/events', { queue_id: q, last_event_id: -1, dont_block: true })).body.events;
  // update_stream_backend changes one Stream object: do_change_stream_message_retention_days runs
  // before do_unarchive_stream, whose stream creation event describes the channel as it then is.
  assert.deepEqual(evs.map((e: any) => `${e.op}/${e.property ?? ''}`), ['update/message_retention_days', 'update/is_archived', 'create/']);
  assert.equal(evs[2].streams[0].message_retention_days, 30);
  assert.equal(evs[2].streams[0].is_archived, false);
});

test("archiving the organization's announcement or moderation channel unsets that setting (Zulip's maybe_set_moderation_or_announcement_channels_none)", async () => {
  const id = await makeChannel(t.owner, 'announcements-here');
  const elsewhere = await makeChannel(t.owner, 'announcements-elsewhere');
  assert.equal((await t.owner.patch('/realm', { signup_announcements_stream_id: id, zulip_update_announcements_stream_id: id, new_stream_announcements_stream_id: elsewhere })).status, 200);
  const reg = await member.post('/register', { event_types: ['realm'], fetch_event_types: ['realm'] });
  assert.equal((await t.owner.delete(`/streams/${id}`)).status, 200);
  const evs = (await member.get('/events', { queue_id: reg.body.queue_id, last_event_id: -1, dont_block: true })).body.events;
  const ev = evs.find((e: any) => e.type === 'realm');
  assert.deepEqual({ ...ev, id: undefined }, { id: undefined, type: 'realm', op: 'update_dict', property: 'default', data: { signup_announcements_stream_id: -1, zulip_update_announcements_stream_id: -1 } });
  const state = (await member.post('/register', { fetch_event_types: ['realm'] })).body;
  assert.deepEqual([state.realm_signup_announcements_stream_id, state.realm_zulip_update_announcements_stream_id], [-1, -1]);
  assert.equal(state.realm_new_stream_announcements_stream_id, elsewhere, 'a setting naming another channel stays');
});

test("several group settings in one PATCH: events in Zulip's stream_permission_group_settings order", async () => {
  const id = await makeChannel(t.owner, 'setting-order');
  const reg = await member.post('/register', { event_types: ['stream'], fetch_event_types: ['stream'] });
  const members = groups.get('role:members')!;
  // update_stream_backend walks Stream.stream_permission_group_settings, where
  // can_resolve_topics_group comes after can_send_message_group and can_subscribe_group.
  const res = await t.owner.patch(`/streams/${id}`, {
    can_resolve_topics_group: { new: members },
    can_subscribe_group: { new: members },
    can_send_message_group: { new: members },
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const evs = (await member.get('/events', { queue_id: reg.body.queue_id, last_event_id: -1, dont_block: true })).body.events;
  const props = evs.filter((e: any) => e.type === 'stream' && e.op === 'update' && e.property.endsWith('_group')).map((e: any) => e.property);
  assert.deepEqual(props, ['can_send_message_group', 'can_subscribe_group', 'can_resolve_topics_group']);
});

test("topics_policy other than inherit needs can_set_topics_policy_group, as Zulip's validate_topics_policy, even for the channel's own administrator", async () => {
  const id = await makeChannel(member, 'members-topics');
  const setGroup = (name: string) => t.owner.patch('/realm', { can_set_topics_policy_group: { new: groups.get(name) } });
  assert.equal((await setGroup('role:administrators')).status, 200);
  try {
    for (const policy of ['allow_empty_topic', 'disable_empty_topic']) {
      const res = await member.patch(`/streams/${id}`, { topics_policy: policy });
      assert.deepEqual([res.status, res.body.msg], [400, 'Insufficient permission'], policy);
    }
    assert.equal((await member.patch(`/streams/${id}`, { topics_policy: 'inherit' })).status, 200, 'inherit needs no permission');
    assert.equal((await member.patch(`/streams/${id}`, { description: 'still theirs' })).status, 200, 'other settings stay the administrator’s');
    assert.equal((await t.owner.patch(`/streams/${id}`, { topics_policy: 'allow_empty_topic' })).status, 200);
  } finally {
    await setGroup('role:members');
  }
  assert.equal((await member.patch(`/streams/${id}`, { topics_policy: 'inherit' })).status, 200);
});

test("is_default_stream needs can_manage_default_streams whenever it is given, as update_stream_backend's CannotManageDefaultChannelError", async () => {
  // The creator administers the channel, but default channels are the organization administrators'.
  const id = await makeChannel(member, 'members-own');
  const denied = { result: 'error', code: 'BAD_REQUEST', msg: 'You do not have permission to change default channels.' };
  assert.deepEqual((await member.patch(`/streams/${id}`, { is_default_stream: true })).body, denied);
  assert.deepEqual((await member.patch(`/streams/${id}`, { is_default_stream: false })).body, denied, 'even when nothing would change');
  // Asked after the privacy checks, before the others.
  assert.equal((await member.patch(`/streams/${id}`, { is_default_stream: true, is_private: true })).body.msg, 'A default channel cannot be private.');
  assert.deepEqual((await member.patch(`/streams/${id}`, { is_default_stream: false, message_retention_days: 5 })).body, denied);
  assert.equal((await member.patch(`/streams/${id}`, { description: 'still mine' })).status, 200);
  assert.equal((await admin.patch(`/streams/${id}`, { is_default_stream: false })).status, 200);
});
