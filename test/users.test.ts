// Users, bots and user groups over HTTP: the directory, creating users and bots, changing names
// and roles, and the realm_user / realm_bot events.
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


test('GET /users/me describes the caller', async () => {
  const me = await member.get('/users/me');
  assert.equal(me.status, 200);
  assert.equal(me.body.user_id, member.userId);
  assert.equal(me.body.email, member.email);
  assert.equal(me.body.full_name, 'Mona Member');
  assert.equal(me.body.role, 400);
  assert.equal(me.body.is_admin, false);
  assert.equal(me.body.is_owner, false);
  assert.equal(me.body.is_guest, false);
  assert.equal(me.body.is_bot, false);
  assert.equal(typeof me.body.avatar_url, 'string');
  assert.equal(me.body.max_message_id, 0);
  const owner = await t.owner.get('/users/me');
  assert.equal(owner.body.is_owner, true);
  assert.equal(owner.body.is_admin, true);
});

test('GET /users lists the organization only, GET /users/{id} and /users/{email} find one', async () => {
  const other = await t.createOrg('Far Away');
  const list = await member.get('/users');
  assert.equal(list.status, 200);
  const ids = list.body.members.map((u: any) => u.user_id);
  assert.ok(ids.includes(member.userId) && ids.includes(admin.userId) && ids.includes(t.owner.userId));
  assert.ok(!ids.includes(other.owner.userId));
  const gravatarOff = await member.get('/users', { client_gravatar: false });
  assert.ok(gravatarOff.body.members.every((u: any) => typeof u.avatar_url === 'string'));
  const gravatarOn = await member.get('/users', { client_gravatar: true });
  assert.ok(gravatarOn.body.members.every((u: any) => u.avatar_url === null));

  const byId = await member.get(`/users/${admin.userId}`);
  assert.equal(byId.status, 200);
  assert.equal(byId.body.user.full_name, 'Adam Admin');
  assert.equal(byId.body.user.role, 200);
  const byEmail = await member.get(`/users/${encodeURIComponent(admin.email)}`);
  assert.equal(byEmail.body.user.user_id, admin.userId);

  const missing = await member.get('/users/999999');
  const foreign = await member.get(`/users/${other.owner.userId}`);
  const foreignEmail = await member.get(`/users/${encodeURIComponent(other.owner.email)}`);
  assert.equal(missing.status, 400);
  assert.deepEqual(foreign.body, missing.body);
  assert.deepEqual(foreignEmail.body, missing.body);
});

test('POST /users: the owner creates an account that can log in; others may not', async () => {
  const q = await openQueue(member, ['realm_user']);
  const res = await t.owner.post('/users', { email: 'newbie@example.com', password: 'newbie-password', full_name: 'New Bie' });
  assert.equal(res.status, 200);
  assert.equal(typeof res.body.user_id, 'number');
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

  const dup = await t.owner.post('/users', { email: 'NEWBIE@example.com', password: 'x1234567', full_name: 'Dup' });
  assert.equal(dup.status, 400);
  assert.match(dup.body.msg, /already in use/);
  const badEmail = await t.owner.post('/users', { email: 'not-an-email', password: 'x1234567', full_name: 'Bad' });
  assert.equal(badEmail.status, 400);
  const noName = await t.owner.post('/users', { email: 'noname@example.com', password: 'x1234567' });
  assert.equal(noName.body.code, 'REQUEST_VARIABLE_MISSING');
  assert.equal(noName.body.var_name, 'full_name');
  for (const c of [member, admin]) {
    const denied = await c.post('/users', { email: `by-${c.userId}@example.com`, password: 'x1234567', full_name: 'Nope' });
    assert.equal(denied.status, 400);
    assert.equal(denied.body.result, 'error');
  }
});

test('PATCH /users/{id}: administrators rename and change roles; owner rules hold', async () => {
  const target = await t.createUser({ name: 'Tom Target' });
  const q = await openQueue(member, ['realm_user']);
  const rename = await admin.patch(`/users/${target.userId}`, { full_name: 'Tom Renamed' });
  assert.equal(rename.status, 200);
  const promote = await admin.patch(`/users/${target.userId}`, { role: 300 });
  assert.equal(promote.status, 200);
  const evs = await queuedEvents(member, q);
  assert.deepEqual(evs.map((e) => e.person), [{ user_id: target.userId, full_name: 'Tom Renamed' }, { user_id: target.userId, role: 300 }]);
  const me = await target.get('/users/me');
  assert.equal(me.body.role, 300);
  assert.equal(me.body.full_name, 'Tom Renamed');
  const groups = await target.get('/user_groups');
  const moderators = groups.body.user_groups.find((g: any) => g.name === 'role:moderators');
  assert.ok(moderators.members.includes(target.userId), 'the role changed the system group membership');

  const byMember = await member.patch(`/users/${target.userId}`, { full_name: 'Hacked' });
  assert.equal(byMember.status, 400);
  const adminMakesOwner = await admin.patch(`/users/${target.userId}`, { role: 100 });
  assert.equal(adminMakesOwner.status, 400);
  const badRole = await admin.patch(`/users/${target.userId}`, { role: 250 });
  assert.equal(badRole.status, 400);
  const lastOwner = await t.owner.patch(`/users/${t.owner.userId}`, { role: 200 });
  assert.equal(lastOwner.status, 400);
  const ownerMakesOwner = await t.owner.patch(`/users/${target.userId}`, { role: 100 });
  assert.equal(ownerMakesOwner.status, 200);
  const missing = await admin.patch('/users/999999', { full_name: 'x' });
  assert.equal(missing.status, 400);
  const emptyName = await admin.patch(`/users/${member.userId}`, { full_name: '   ' });
  assert.equal(emptyName.status, 400);
});

test('POST /bots: the caller owns the bot, whose key works', async () => {
  const q = await openQueue(member, ['realm_bot', 'realm_user']);
  const res = await member.post('/bots', { full_name: 'Helper Bot', short_name: 'helper' });
  assert.equal(res.status, 200);
  assert.equal(typeof res.body.api_key, 'string');
  const bot = await member.get(`/users/${res.body.user_id}`);
  assert.equal(bot.body.user.is_bot, true);
  assert.equal(bot.body.user.bot_owner_id, member.userId);
  assert.equal(bot.body.user.bot_type, 1);
  assert.match(bot.body.user.email, /^helper-bot@/);
  const asBot = await new Client(t.url, bot.body.user.email, res.body.api_key, res.body.user_id).get('/users/me');
  assert.equal(asBot.status, 200);
  assert.equal(asBot.body.is_bot, true);
  const evs = await queuedEvents(member, q);
  assert.ok(evs.some((e) => e.type === 'realm_bot' && e.op === 'add' && e.bot.user_id === res.body.user_id && e.bot.owner_id === member.userId));
  assert.ok(evs.some((e) => e.type === 'realm_user' && e.op === 'add' && e.person.user_id === res.body.user_id));

  const dup = await member.post('/bots', { full_name: 'Helper Again', short_name: 'helper' });
  assert.equal(dup.status, 400);
  const badType = await member.post('/bots', { full_name: 'Odd', short_name: 'odd', bot_type: 9 });
  assert.equal(badType.status, 400);
  const badShort = await member.post('/bots', { full_name: 'Odd', short_name: 'has space' });
  assert.equal(badShort.status, 400);
  const guest = await t.createUser({ role: 'guest' });
  const byGuest = await guest.post('/bots', { full_name: 'Guest Bot', short_name: 'guestbot' });
  assert.equal(byGuest.status, 400);
});

test('GET /user_groups lists the system groups with their members', async () => {
  const res = await member.get('/user_groups');
  assert.equal(res.status, 200);
  const names = res.body.user_groups.map((g: any) => g.name);
  for (const n of ['role:internet', 'role:everyone', 'role:members', 'role:fullmembers', 'role:moderators', 'role:administrators', 'role:owners', 'role:nobody']) {
    assert.ok(names.includes(n), n);
  }
  const byName = new Map(res.body.user_groups.map((g: any) => [g.name, g]));
  const owners: any = byName.get('role:owners');
  const admins: any = byName.get('role:administrators');
  assert.ok(owners.members.includes(t.owner.userId));
  assert.ok(admins.members.includes(admin.userId));
  assert.deepEqual(admins.direct_subgroup_ids, [owners.id]);
  assert.ok(res.body.user_groups.every((g: any) => g.is_system_group));
});

test('deactivated accounts cannot authenticate', async () => {
  const gone = await t.createUser({ name: 'Gone Soon' });
  await t.server.services.database.transaction((tx) => tx.updateTable('users').set({ is_active: false }).where('id', '=', gone.userId).execute());
  t.server.services.cache.invalidateUsers(t.realmId);
  const res = await gone.get('/users/me');
  assert.equal(res.status, 401);
  assert.equal(res.body.code, 'USER_DEACTIVATED');
  const list = await member.get('/users');
  const entry = list.body.members.find((u: any) => u.user_id === gone.userId);
  assert.equal(entry.is_active, false);
});
