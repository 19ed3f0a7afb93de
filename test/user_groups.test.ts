// User groups: creation, settings, members and subgroups, permissions, events, deactivation.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openQueue, queuedEvents, startTestServer, type Client, type TestServer } from './helpers.js';

let t: TestServer;
let ann: Client;
let bob: Client;
let carl: Client;
before(async () => {
  t = await startTestServer();
  ann = await t.createUser({ name: 'Ann Grouper' });
  bob = await t.createUser({ name: 'Bob Member' });
  carl = await t.createUser({ name: 'Carl Outsider' });
});
after(async () => {
  await t.close();
});

test('create a group; everyone hears of it; it lists with its members', async () => {
  const q = await openQueue(carl, ['user_group']);
  const res = await ann.post('/user_groups/create', { name: 'designers', description: 'People who design', members: [ann.userId, bob.userId] });
  assert.equal(res.status, 200);
  const id = res.body.group_id;
  const [ev] = await queuedEvents(carl, q);
  assert.equal(ev.op, 'add');
  assert.equal(ev.group.name, 'designers');
  assert.deepEqual(ev.group.members, [ann.userId, bob.userId].sort((a, b) => a - b));
  assert.deepEqual(ev.group.can_manage_group, { direct_members: [ann.userId], direct_subgroups: [] }, 'the creator manages it');
  const list = (await carl.get('/user_groups')).body.user_groups.find((g: any) => g.id === id);
  assert.equal(list.description, 'People who design');
  assert.equal((await ann.post('/user_groups/create', { name: 'Designers', members: [] })).status, 400, 'names are unique');
  assert.equal((await ann.post('/user_groups/create', { name: 'role:hackers', members: [] })).status, 400);
  assert.equal((await ann.post('/user_groups/create', { name: 'ghosts', members: [999999] })).status, 400);
  assert.equal((await ann.post('/user_groups/create', { name: '  ', members: [] })).status, 400);
});

test('members and subgroups: managers add and remove; membership queries follow subgroups', async () => {
  const outer = (await ann.post('/user_groups/create', { name: 'outer', members: [ann.userId] })).body.group_id;
  const inner = (await ann.post('/user_groups/create', { name: 'inner', members: [bob.userId] })).body.group_id;
  const q = await openQueue(carl, ['user_group']);
  assert.equal((await ann.post(`/user_groups/${outer}/subgroups`, { add: [inner] })).status, 200);
  assert.equal((await ann.post(`/user_groups/${inner}/subgroups`, { add: [outer] })).status, 400, 'no cycles');
  assert.equal((await carl.post(`/user_groups/${outer}/members`, { add: [carl.userId] })).status, 400, 'joining needs can_join_group');
  assert.equal((await ann.post(`/user_groups/${outer}/members`, { add: [carl.userId] })).status, 200);
  assert.equal((await ann.post(`/user_groups/${outer}/members`, { add: [carl.userId] })).status, 400, 'already a member');
  assert.deepEqual((await carl.get(`/user_groups/${outer}/members`)).body.members, [ann.userId, bob.userId, carl.userId].sort((a, b) => a - b));
  assert.deepEqual((await carl.get(`/user_groups/${outer}/members`, { direct_member_only: true })).body.members, [ann.userId, carl.userId].sort((a, b) => a - b));
  assert.deepEqual((await carl.get(`/user_groups/${outer}/subgroups`)).body.subgroups, [inner]);
  assert.equal((await carl.get(`/user_groups/${outer}/members/${bob.userId}`)).body.is_user_group_member, true);
  assert.equal((await carl.get(`/user_groups/${outer}/members/${bob.userId}`, { direct_member_only: true })).body.is_user_group_member, false);
  assert.equal((await carl.post(`/user_groups/${outer}/members`, { delete: [carl.userId] })).status, 200, 'members may leave (can_leave_group)');
  const evs = await queuedEvents(carl, q);
  assert.deepEqual(evs.map((e: any) => e.op), ['add_subgroups', 'add_members', 'remove_members']);
  assert.equal((await carl.get('/user_groups/999999/members')).status, 400);
});

test('updating: name and settings as {new, old} by managers only; deactivation', async () => {
  const id = (await ann.post('/user_groups/create', { name: 'renamers', members: [ann.userId] })).body.group_id;
  assert.equal((await carl.patch(`/user_groups/${id}`, { name: 'hijacked' })).status, 400);
  assert.equal((await ann.patch(`/user_groups/${id}`, { name: 'renamed', description: 'new words' })).status, 200);
  const groups = (await ann.get('/user_groups')).body.user_groups;
  const everyone = groups.find((g: any) => g.name === 'role:everyone').id;
  const current = groups.find((g: any) => g.id === id).can_join_group;
  assert.equal((await ann.patch(`/user_groups/${id}`, { can_join_group: { new: everyone, old: everyone } })).status, current === everyone ? 200 : 400);
  assert.equal((await ann.patch(`/user_groups/${id}`, { can_join_group: { new: everyone, old: current } })).status, 200);
  assert.equal((await carl.post(`/user_groups/${id}/members`, { add: [carl.userId] })).status, 200, 'now anyone may join');
  const system = groups.find((g: any) => g.name === 'role:members').id;
  assert.equal((await t.owner.patch(`/user_groups/${system}`, { name: 'x' })).status, 400, 'system groups cannot be changed');
  assert.equal((await ann.post(`/user_groups/${id}/deactivate`)).status, 200);
  const after = await ann.get('/user_groups');
  assert.ok(!after.body.user_groups.some((g: any) => g.id === id));
  const withDeactivated = await ann.get('/user_groups', { include_deactivated_groups: true });
  assert.ok(withDeactivated.body.user_groups.find((g: any) => g.id === id).deactivated);
});
