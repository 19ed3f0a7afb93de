// realm_users of POST /register is written from JSON text kept per cached user (shapes/users.ts
// userJsonForClient): for every kind of viewer, with and without client_gravatar, and after the
// changes that reshape a user (name, role, address visibility, profile values, deactivation,
// bots), it must say exactly what GET /users says of the active users (without is_active).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client, startTestServer, type TestServer } from './helpers.js';

let t: TestServer;
let member: Client;
let admin: Client;
let moderator: Client;
let guest: Client;
let fieldId: number;
before(async () => {
  t = await startTestServer();
  member = await t.createUser({ name: 'Mona Member' });
  admin = await t.createUser({ role: 'administrator', name: 'Adam Admin' });
  moderator = await t.createUser({ role: 'moderator', name: 'Mo Moderator' });
  guest = await t.createUser({ role: 'guest', name: 'Gus Guest' });
  const field = await admin.post('/realm/profile_fields', { name: 'Phone', field_type: 1 });
  assert.equal(field.status, 200, JSON.stringify(field.body));
  fieldId = field.body.id;
});
after(async () => {
  await t.close();
});

/** realm_users and realm_non_active_users against GET /users, for one viewer and client_gravatar. */
async function agrees(viewer: Client, clientGravatar: boolean, label: string) {
  const reg = await viewer.post('/register', { fetch_event_types: ['realm_user'], client_gravatar: clientGravatar });
  assert.equal(reg.status, 200, JSON.stringify(reg.body));
  const list = await viewer.get('/users', { client_gravatar: clientGravatar, include_custom_profile_fields: true });
  assert.equal(list.status, 200);
  const expectActive = list.body.members
    .filter((u: any) => u.is_active)
    .map((u: any) => {
      const { is_active: _, ...rest } = u;
      return rest;
    });
  const byId = (a: any[]) => [...a].sort((x, y) => x.user_id - y.user_id);
  assert.deepEqual(byId(reg.body.realm_users), byId(expectActive), `${label}: realm_users`);
  assert.deepEqual(
    byId(reg.body.realm_non_active_users),
    byId(list.body.members.filter((u: any) => !u.is_active)),
    `${label}: realm_non_active_users`,
  );
  return reg.body;
}

async function everyViewerAgrees(stage: string) {
  for (const [name, viewer] of [['owner', t.owner], ['admin', admin], ['moderator', moderator], ['member', member], ['guest', guest]] as const) {
    for (const gravatar of [true, false]) await agrees(viewer, gravatar, `${stage}, ${name}, client_gravatar ${gravatar}`);
  }
}

test('realm_users matches GET /users for every role, before and after users change', async () => {
  await everyViewerAgrees('at first');
  // Twice: the second answers come from the kept texts.
  await everyViewerAgrees('again');

  assert.equal((await admin.patch(`/users/${member.userId}`, { full_name: 'Mona Renamed' })).status, 200);
  assert.equal((await member.patch('/settings', { email_address_visibility: 4 })).status, 200);
  assert.equal((await moderator.patch('/settings', { email_address_visibility: 3 })).status, 200);
  assert.equal((await member.patch('/users/me/profile_data', { data: [{ id: fieldId, value: '+1 555 0100' }] })).status, 200);
  assert.equal((await t.owner.patch(`/users/${guest.userId}`, { role: 400 })).status, 200);
  const bot = await member.post('/bots', { full_name: 'Mona Bot', short_name: 'monabot' });
  assert.equal(bot.status, 200, JSON.stringify(bot.body));
  const leaving = await t.createUser({ name: 'Lee Leaving' });
  await agrees(member, true, 'before the deactivation');
  assert.equal((await admin.delete(`/users/${leaving.userId}`)).status, 200);

  await everyViewerAgrees('after the changes');
  const state = await agrees(t.owner, true, 'the changed fields');
  const mona = state.realm_users.find((u: any) => u.user_id === member.userId);
  assert.equal(mona.full_name, 'Mona Renamed');
  assert.equal(mona.email, `user${member.userId}@${mona.email.split('@')[1]}`, 'the placeholder address once hidden');
  assert.equal(mona.profile_data[fieldId].value, '+1 555 0100');
  assert.equal(state.realm_users.find((u: any) => u.user_id === guest.userId).role, 400);
  assert.ok(state.realm_non_active_users.some((u: any) => u.user_id === leaving.userId));
  assert.ok(!state.realm_users.some((u: any) => u.user_id === leaving.userId));
  assert.ok(state.realm_users.every((u: any) => !('is_active' in u)));
});
