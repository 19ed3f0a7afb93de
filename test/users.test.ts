// Users over HTTP: the caller's record, the directory (with email visibility and guests' limited
// view), one user by id or address, creating users, changing names and roles, and the events.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client, rawRequest, startTestServer, type TestServer, openQueue, queuedEvents } from './helpers.js';

let t: TestServer;
let member: Client;
let admin: Client;
before(async () => {
  t = await startTestServer();
  member = await t.createUser({ name: 'Mona Member' });
  admin = await t.createUser({ role: 'administrator', name: 'Adam Admin' });
});
after(async () => {
  await t.close();
});

async function groupIds(c: Client): Promise<Record<string, number>> {
  const res = await c.get('/user_groups');
  return Object.fromEntries(res.body.user_groups.map((g: any) => [g.name, g.id]));
}

test('GET /users/me describes the caller, max_message_id from their messages', async () => {
  const me = await member.get('/users/me');
  assert.equal(me.status, 200);
  assert.equal(me.body.user_id, member.userId);
  assert.equal(me.body.email, member.email);
  assert.equal(me.body.delivery_email, member.email);
  assert.equal(me.body.full_name, 'Mona Member');
  assert.equal(me.body.role, 400);
  assert.deepEqual([me.body.is_admin, me.body.is_owner, me.body.is_guest, me.body.is_bot, me.body.is_active], [false, false, false, false, true]);
  assert.equal(me.body.is_imported_stub, false);
  assert.deepEqual(me.body.profile_data, {});
  assert.equal(typeof me.body.avatar_url, 'string');
  assert.equal(typeof me.body.avatar_version, 'number');
  assert.equal(typeof me.body.timezone, 'string');
  assert.match(me.body.date_joined, /^\d{4}-\d\d-\d\dT/);
  assert.equal(me.body.max_message_id, -1, 'no messages yet: -1, as Zulip says');
  assert.equal('bot_type' in me.body, false);

  const sent = await t.owner.post('/messages', { type: 'direct', to: [member.userId], content: 'hello' });
  assert.equal(sent.status, 200);
  assert.equal((await member.get('/users/me')).body.max_message_id, sent.body.id);
  const owner = await t.owner.get('/users/me');
  assert.equal(owner.body.is_owner, true);
  assert.equal(owner.body.is_admin, true);
  assert.equal(owner.body.role, 100);
});

test('GET /users lists the organization only; client_gravatar and include_custom_profile_fields', async () => {
  const other = await t.createOrg('Far Away');
  const list = await member.get('/users');
  assert.equal(list.status, 200);
  const ids = list.body.members.map((u: any) => u.user_id);
  assert.ok(ids.includes(member.userId) && ids.includes(admin.userId) && ids.includes(t.owner.userId));
  assert.ok(!ids.includes(other.owner.userId));
  const humans = list.body.members.filter((u: any) => !u.is_bot);
  assert.ok(humans.every((u: any) => !('bot_type' in u) && !('profile_data' in u) && u.is_imported_stub === false));

  const gravatarOff = await member.get('/users', { client_gravatar: false });
  assert.ok(gravatarOff.body.members.every((u: any) => typeof u.avatar_url === 'string'));
  const byDefault = await member.get('/users');
  assert.ok(byDefault.body.members.every((u: any) => u.avatar_url === null), 'client_gravatar defaults to true');
  const withFields = await member.get('/users', { include_custom_profile_fields: true });
  assert.ok(withFields.body.members.filter((u: any) => !u.is_bot).every((u: any) => typeof u.profile_data === 'object'));

  const some = await member.get('/users', { user_ids: [admin.userId] });
  assert.deepEqual(some.body.members.map((u: any) => u.user_id), [admin.userId]);
  const foreignIds = await member.get('/users', { user_ids: [other.owner.userId] });
  assert.equal(foreignIds.status, 400);
  assert.equal(foreignIds.body.msg, 'No such user');
  assert.equal((await member.get('/users', { client_gravatar: 'maybe' })).status, 400);
  assert.equal((await member.get('/users', { user_ids: '[1,' })).body.code, 'BAD_REQUEST');
});

test('GET /users/{user_id} and /users/{email}: missing and foreign users get the same answer', async () => {
  const other = await t.createOrg('Elsewhere');
  const byId = await member.get(`/users/${admin.userId}`);
  assert.equal(byId.status, 200);
  assert.equal(byId.body.user.full_name, 'Adam Admin');
  assert.equal(byId.body.user.role, 200);
  assert.equal(byId.body.user.is_admin, true);
  const byEmail = await member.get(`/users/${encodeURIComponent(admin.email)}`);
  assert.equal(byEmail.status, 200);
  assert.equal(byEmail.body.user.user_id, admin.userId);
  const upper = await member.get(`/users/${encodeURIComponent(admin.email.toUpperCase())}`);
  assert.equal(upper.body.user.user_id, admin.userId, 'addresses compare case-insensitively');

  const missing = await member.get('/users/999999');
  assert.equal(missing.status, 400);
  assert.deepEqual(missing.body, { result: 'error', msg: 'No such user', code: 'BAD_REQUEST' });
  for (const path of [`/users/${other.owner.userId}`, `/users/${encodeURIComponent(other.owner.email)}`, '/users/nobody%40example.com', '/users/not-an-email']) {
    assert.deepEqual((await member.get(path)).body, missing.body, path);
  }
  // Someone whose address the caller may not see is found only by the placeholder address.
  const memberQueue = await openQueue(member, ['realm_user']);
  const ownerQueue = await openQueue(t.owner, ['realm_user']);
  await admin.patch('/settings', { email_address_visibility: 3 });
  const memberEvents = (await queuedEvents(member, memberQueue)).map((e: any) => e.person);
  // do_change_user_setting → send_delivery_email_update_events, then send_user_email_update_event
  // (new_email) and notify_avatar_url_change, since the API address changed.
  assert.deepEqual(memberEvents.slice(0, 2), [
    { user_id: admin.userId, delivery_email: null },
    { user_id: admin.userId, new_email: `user${admin.userId}@${(await member.post('/register', { fetch_event_types: ['realm'] })).body.realm_bot_domain}` },
  ], 'members lose the real address and hear of the new placeholder');
  assert.deepEqual(Object.keys(memberEvents[2]).sort(), ['avatar_source', 'avatar_url', 'avatar_url_medium', 'avatar_version', 'user_id']);
  assert.equal(memberEvents.length, 3);
  assert.deepEqual((await queuedEvents(t.owner, ownerQueue)).map((e: any) => Object.keys(e.person).sort().join(',')), [
    'new_email,user_id',
    'avatar_source,avatar_url,avatar_url_medium,avatar_version,user_id',
  ], 'owners keep seeing it: only the address change');
  assert.deepEqual((await member.get(`/users/${encodeURIComponent(admin.email)}`)).body, missing.body);
  const seen = await member.get(`/users/${admin.userId}`);
  assert.equal(seen.body.user.delivery_email, null, 'members may not see an admins-only address');
  assert.equal((await t.owner.get(`/users/${admin.userId}`)).body.user.delivery_email, admin.email, 'owners may');
  const domain = (await member.post('/register', { fetch_event_types: ['realm'] })).body.realm_bot_domain;
  const dummy = await member.get(`/users/${encodeURIComponent(`user${admin.userId}@${domain}`)}`);
  assert.equal(dummy.body.user.user_id, admin.userId);
  // The API address is the placeholder for everyone, wherever users appear; the real one only in delivery_email.
  const placeholder = `user${admin.userId}@${domain}`;
  assert.equal(seen.body.user.email, placeholder);
  assert.equal((await t.owner.get(`/users/${admin.userId}`)).body.user.email, placeholder);
  const listed = (await member.get('/users')).body.members.find((u: any) => u.user_id === admin.userId);
  assert.deepEqual([listed.email, listed.delivery_email], [placeholder, null]);
  const dm = await admin.post('/messages', { type: 'direct', to: [member.userId], content: 'from a private address' });
  const got = (await member.get(`/messages/${dm.body.id}`)).body.message;
  assert.equal(got.sender_email, placeholder);
  assert.ok(got.display_recipient.every((r: any) => r.email !== admin.email));
  assert.equal((await member.post('/messages', { type: 'direct', to: JSON.stringify([admin.email]), content: 'x' })).status, 400, 'the hidden address names nobody');
  assert.equal((await member.post('/messages', { type: 'direct', to: JSON.stringify([placeholder]), content: 'reply' })).status, 200, 'the placeholder does');
  assert.equal((await t.owner.post('/messages', { type: 'direct', to: JSON.stringify([admin.email]), content: 'owners know it' })).status, 200);
  await admin.patch('/settings', { email_address_visibility: 1 });
  assert.equal((await member.get(`/users/${admin.userId}`)).body.user.email, admin.email);
});

test('POST /users: an owner with can_create_users makes an account that can log in', async () => {
  const q = await openQueue(member, ['realm_user']);
  const res = await t.owner.post('/users', { email: 'newbie@example.com', password: 'newbie-password', full_name: 'New Bie' });
  assert.equal(res.status, 200);
  assert.deepEqual(Object.keys(res.body).sort(), ['msg', 'result', 'user_id']);
  const login = await rawRequest(t.url, 'POST', '/fetch_api_key', {
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ username: 'newbie@example.com', password: 'newbie-password' }).toString(),
  });
  assert.equal(login.status, 200);
  assert.equal(login.body.user_id, res.body.user_id);
  const [add] = await queuedEvents(member, q);
  assert.equal(add.type, 'realm_user');
  assert.equal(add.op, 'add');
  assert.equal(add.person.user_id, res.body.user_id);
  assert.equal(add.person.full_name, 'New Bie');
  assert.equal(add.person.role, 400);
  assert.equal(add.person.is_active, true);
  const groups = await groupIds(member);
  const members = (await member.get(`/user_groups/${groups['role:members']}/members`, { direct_member_only: true })).body.members;
  assert.ok(members.includes(res.body.user_id), 'the new member is in role:members');
});

test('POST /users: errors', async () => {
  const dup = await t.owner.post('/users', { email: 'NEWBIE@example.com', password: 'x1234567', full_name: 'Dup Licate' });
  assert.equal(dup.status, 400);
  assert.equal(dup.body.msg, "Email 'NEWBIE@example.com' already in use");
  const badEmail = await t.owner.post('/users', { email: 'not-an-email', password: 'x1234567', full_name: 'Bad Address' });
  assert.deepEqual([badEmail.status, badEmail.body.msg], [400, 'Bad name or username']);
  const weak = await t.owner.post('/users', { email: 'weak@example.com', password: 'abc', full_name: 'Weak Password' });
  assert.deepEqual([weak.status, weak.body.msg], [400, 'The password is too weak.']);
  const badName = await t.owner.post('/users', { email: 'odd@example.com', password: 'x1234567', full_name: 'Odd @name' });
  assert.deepEqual([badName.status, badName.body.msg], [400, 'Invalid characters in name!']);
  const noName = await t.owner.post('/users', { email: 'noname@example.com', password: 'x1234567' });
  assert.equal(noName.body.code, 'REQUEST_VARIABLE_MISSING');
  assert.equal(noName.body.var_name, 'full_name');

  const byMember = await member.post('/users', { email: 'm@example.com', password: 'x1234567', full_name: 'Nope Nope' });
  assert.deepEqual([byMember.status, byMember.body.code, byMember.body.msg], [400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator']);
  const guest = await t.createUser({ role: 'guest' });
  assert.equal((await guest.post('/users', {})).body.code, 'UNAUTHORIZED_PRINCIPAL', 'role is checked before parameters');
  const byAdmin = await admin.post('/users', { email: 'a@example.com', password: 'x1234567', full_name: 'Nope Nope' });
  assert.deepEqual([byAdmin.status, byAdmin.body.msg], [400, 'User not authorized to create users']);
});

test('PATCH /users/{id}: administrators rename and change roles, with events and group moves', async () => {
  const target = await t.createUser({ name: 'Tom Target' });
  const groups = await groupIds(member);
  const q = await openQueue(member, ['realm_user', 'user_group']);
  assert.equal((await admin.patch(`/users/${target.userId}`, { full_name: 'Tom Renamed' })).status, 200);
  assert.equal((await admin.patch(`/users/${target.userId}`, { role: 300 })).status, 200);
  const evs = await queuedEvents(member, q);
  const userEvents = evs.filter((e) => e.type === 'realm_user');
  assert.deepEqual(userEvents.map((e) => e.person), [{ user_id: target.userId, full_name: 'Tom Renamed' }, { user_id: target.userId, role: 300 }]);
  const moves = evs.filter((e) => e.type === 'user_group').map((e) => [e.op, e.group_id, e.user_ids]);
  assert.deepEqual(
    moves.sort(),
    [
      ['add_members', groups['role:moderators'], [target.userId]],
      ['remove_members', groups['role:fullmembers'], [target.userId]],
      ['remove_members', groups['role:members'], [target.userId]],
    ].sort(),
  );
  const me = await target.get('/users/me');
  assert.equal(me.body.role, 300);
  assert.equal(me.body.full_name, 'Tom Renamed');
  const moderators = (await target.get(`/user_groups/${groups['role:moderators']}/members`, { direct_member_only: true })).body.members;
  assert.ok(moderators.includes(target.userId));

  // Unchanged values and a blank name change nothing (Zulip ignores a blank name).
  const q2 = await openQueue(member, ['realm_user']);
  assert.equal((await admin.patch(`/users/${target.userId}`, { full_name: '   ', role: 300 })).status, 200);
  assert.deepEqual(await queuedEvents(member, q2), []);
  assert.equal((await admin.patch(`/users/${target.userId}`, { profile_data: [] })).status, 200);
});

test('a role change tells the user of the channels it now may or may no longer see (send_stream_events_for_role_update)', async () => {
  const target = await t.createUser({ name: 'Rory Role' });
  assert.equal((await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'owners-secret' }], invite_only: true })).status, 200);
  assert.equal((await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'all-hands' }] })).status, 200);
  const secretId = (await t.owner.get('/get_stream_id', { stream: 'owners-secret' })).body.stream_id;
  const publicId = (await t.owner.get('/get_stream_id', { stream: 'all-hands' })).body.stream_id;
  const q = await openQueue(target, ['stream', 'subscription']);
  // Administrators see every private channel's metadata: it arrives whole, then its subscribers.
  assert.equal((await t.owner.patch(`/users/${target.userId}`, { role: 200 })).status, 200);
  const promoted = await queuedEvents(target, q);
  assert.deepEqual(promoted.map((e) => `${e.type}/${e.op}`), ['stream/create', 'subscription/peer_add']);
  assert.deepEqual(promoted[0].streams.map((s: any) => s.stream_id), [secretId]);
  assert.deepEqual([promoted[1].stream_ids, promoted[1].user_ids], [[secretId], [t.owner.userId]]);
  // A guest sees neither the private channel nor the public ones it is not subscribed to.
  const q2 = await openQueue(target, ['stream', 'subscription']);
  assert.equal((await t.owner.patch(`/users/${target.userId}`, { role: 600 })).status, 200);
  const demoted = await queuedEvents(target, q2);
  assert.deepEqual(demoted.map((e) => `${e.type}/${e.op}`), ['stream/delete']);
  assert.ok(demoted[0].stream_ids.includes(secretId) && demoted[0].stream_ids.includes(publicId));
});

test('PATCH /users/{id}: permissions and validation', async () => {
  const target = await t.createUser({ name: 'Pat Target' });
  const other = await t.createOrg('Third Place');
  const check = async (c: Client, id: number, params: Record<string, unknown>, status: number, msg: string) => {
    const res = await c.patch(`/users/${id}`, params as any);
    assert.deepEqual([res.status, res.body.msg], [status, msg], JSON.stringify(params));
  };
  await check(member, target.userId, { full_name: 'Hacked Name' }, 400, 'Insufficient permission');
  await check(admin, target.userId, { role: 100 }, 400, 'Must be an organization owner');
  await check(admin, t.owner.userId, { role: 200 }, 400, 'Must be an organization owner');
  await check(admin, target.userId, { role: 250 }, 400, 'Invalid role');
  // The role is checked as the parameter is parsed (check_int_in), before the user or the rights.
  await check(member, target.userId, { role: 250 }, 400, 'Invalid role');
  await check(admin, 999999, { role: 250 }, 400, 'Invalid role');
  await check(admin, target.userId, { role: 'admin' }, 400, 'role is not an integer');
  await check(t.owner, t.owner.userId, { role: 200 }, 400, 'The owner permission cannot be removed from the only organization owner.');
  await check(admin, 999999, { full_name: 'Who Knows' }, 400, 'No such user');
  await check(admin, other.owner.userId, { full_name: 'Foreign Name' }, 400, 'No such user');
  await check(admin, target.userId, { full_name: 'x'.repeat(101) }, 400, 'Name too long!');
  await check(admin, target.userId, { full_name: 'Agent|15' }, 400, 'Invalid format!');
  await check(admin, target.userId, { profile_data: [{ id: 7, value: 'x' }] }, 400, 'Field id 7 not found.');
  await check(admin, target.userId, { profile_data: '{"id": 1}' }, 400, 'profile_data is not a list');
  assert.equal((await admin.patch('/users/abc', { full_name: 'Letters Path' })).body.msg, 'No such user');

  await check(t.owner, target.userId, { role: 100 }, 200, '');
  await check(t.owner, t.owner.userId, { role: 200 }, 200, '');
  const demoted = await t.owner.get('/users/me');
  assert.equal(demoted.body.role, 200);
  await check(target, t.owner.userId, { role: 100 }, 200, '');
});

test('PATCH /users/{email}: the same change by an address the caller may see; others are no such user', async () => {
  const target = await t.createUser({ name: 'Eve Address' });
  const other = await t.createOrg('Fourth Place');
  const byEmail = (email: string) => `/users/${encodeURIComponent(email)}`;
  assert.deepEqual((await admin.patch(byEmail(target.email.toUpperCase()), { full_name: 'Eve Renamed' })).body, { result: 'success', msg: '' });
  assert.equal((await target.get('/users/me')).body.full_name, 'Eve Renamed');
  assert.equal((await member.patch(byEmail(target.email), { full_name: 'Not Allowed' })).body.msg, 'Insufficient permission');
  for (const email of ['nobody@example.com', other.owner.email]) {
    assert.deepEqual((await admin.patch(byEmail(email), { full_name: 'Who Knows' })).body, { result: 'error', msg: 'No such user', code: 'BAD_REQUEST' }, email);
  }
  assert.equal((await target.get('/users/me')).body.full_name, 'Eve Renamed');
});

test('PATCH /users/{id}: with require_unique_names, names may not repeat', async () => {
  const a = await t.createUser({ name: 'Unique Una' });
  const b = await t.createUser({ name: 'Unique Ben' });
  assert.equal((await t.owner.patch('/realm', { require_unique_names: true })).status, 200);
  const clash = await admin.patch(`/users/${b.userId}`, { full_name: 'UNIQUE UNA' });
  assert.deepEqual([clash.status, clash.body.msg], [400, 'Unique names required in this organization.']);
  assert.equal((await admin.patch(`/users/${a.userId}`, { full_name: 'Unique Una' })).status, 200, 'keeping one’s own name is fine');
  assert.equal((await t.owner.patch('/realm', { require_unique_names: false })).status, 200);
});

test('guests outside can_access_all_users_group see only people they share a channel with', async () => {
  const guest = await t.createUser({ role: 'guest', name: 'Gus Guest' });
  const friend = await t.createUser({ name: 'Fran Friend' });
  const stranger = await t.createUser({ name: 'Stan Stranger' });
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'guest room' }], principals: [guest.userId, friend.userId] });
  const groups = await groupIds(t.owner);
  assert.equal((await guest.get('/users')).body.members.some((u: any) => u.user_id === stranger.userId), true, 'by default guests see everyone');

  assert.equal((await t.owner.patch('/realm', { can_access_all_users_group: { new: groups['role:members'] } })).status, 200);
  const ids = (await guest.get('/users')).body.members.map((u: any) => u.user_id);
  assert.ok(ids.includes(guest.userId) && ids.includes(friend.userId));
  assert.ok(!ids.includes(stranger.userId));
  // Zulip's get_members_backend (access_user_by_id_including_cross_realm, check_can_access_user):
  // a user one may not see is 'Insufficient permission', a missing one 'No such user'. The id is no
  // secret: it is in the guest's /register below, as an "Unknown user". By address it stays no such
  // user (an address of a hidden user is nowhere in what the guest gets).
  const hiddenById = await guest.get(`/users/${stranger.userId}`);
  assert.deepEqual(hiddenById.body, { result: 'error', msg: 'Insufficient permission', code: 'BAD_REQUEST' });
  assert.deepEqual((await guest.get('/users/999999')).body, { result: 'error', msg: 'No such user', code: 'BAD_REQUEST' });
  assert.deepEqual((await guest.get(`/users/${encodeURIComponent(stranger.email)}`)).body.msg, 'No such user');
  const goneStranger = await t.createUser({ name: 'Gone Stranger' });
  assert.equal((await t.owner.delete(`/users/${goneStranger.userId}`)).status, 200);
  assert.equal((await guest.get(`/users/${goneStranger.userId}`)).body.msg, 'Insufficient permission', 'deactivated and hidden');
  assert.equal((await guest.get(`/users/${friend.userId}`)).status, 200);
  assert.ok((await member.get('/users')).body.members.some((u: any) => u.user_id === stranger.userId), 'members still see everyone');

  // /register: "Unknown user" placeholders for clients without user_list_incomplete, nothing for those with it.
  const legacy = (await guest.post('/register', { fetch_event_types: ['realm_user'] })).body.realm_users;
  const placeholder = legacy.find((u: any) => u.user_id === stranger.userId);
  assert.equal(placeholder.full_name, 'Unknown user');
  assert.equal(placeholder.delivery_email, null);
  assert.match(placeholder.email, new RegExp(`^user${stranger.userId}@`));
  assert.ok(legacy.some((u: any) => u.user_id === friend.userId && u.full_name === 'Fran Friend'));
  const modern = (await guest.post('/register', { fetch_event_types: ['realm_user'], client_capabilities: { user_list_incomplete: true } })).body.realm_users;
  assert.ok(!modern.some((u: any) => u.user_id === stranger.userId));
  assert.ok(modern.some((u: any) => u.user_id === friend.userId));

  // A direct-message conversation makes people visible to each other too.
  assert.equal((await stranger.post('/messages', { type: 'direct', to: [guest.userId], content: 'hello guest' })).status, 200);
  assert.ok((await guest.get('/users')).body.members.some((u: any) => u.user_id === stranger.userId), 'a DM partner is visible');
  assert.equal((await guest.get(`/users/${stranger.userId}`)).status, 200);

  const q = await openQueue(guest, ['realm_user']);
  await t.owner.post('/users', { email: 'hidden-newcomer@example.com', password: 'x1234567', full_name: 'Hidden Newcomer' });
  assert.deepEqual(await queuedEvents(guest, q), [], 'the guest does not hear of people hidden from them');
  assert.equal((await t.owner.patch('/realm', { can_access_all_users_group: { new: groups['role:everyone'] } })).status, 200);
});

test('deactivated accounts cannot authenticate and are listed inactive', async () => {
  const gone = await t.createUser({ name: 'Gone Soon' });
  assert.equal((await admin.delete(`/users/${gone.userId}`)).status, 200);
  const res = await gone.get('/users/me');
  assert.deepEqual([res.status, res.body.code, res.body.msg], [401, 'UNAUTHORIZED', 'Account is deactivated']);
  const entry = (await member.get('/users')).body.members.find((u: any) => u.user_id === gone.userId);
  assert.equal(entry.is_active, false);
  assert.equal((await member.get(`/users/${gone.userId}`)).body.user.is_active, false);
});
