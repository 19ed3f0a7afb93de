// User groups: creation, settings, members and subgroups, permissions, events, deactivation.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client, openQueue, queuedEvents, startTestServer, type TestServer } from './helpers.js';

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

test('GET /user_groups: system groups with members, subgroups and settings; only this organization', async () => {
  const other = await t.createOrg('Group Elsewhere');
  const otherGroup = (await other.owner.post('/user_groups/create', { name: 'far away', members: [other.owner.userId] })).body.group_id;
  const res = await bob.get('/user_groups');
  assert.equal(res.status, 200);
  const byName = new Map<string, any>(res.body.user_groups.map((g: any) => [g.name, g]));
  for (const n of ['role:internet', 'role:everyone', 'role:members', 'role:fullmembers', 'role:moderators', 'role:administrators', 'role:owners', 'role:nobody']) {
    const g = byName.get(n);
    assert.ok(g, n);
    assert.equal(g.is_system_group, true);
    assert.equal(g.date_created, null, 'system groups have no creation date');
    assert.equal(g.creator_id, null);
    assert.equal(g.deactivated, false);
    assert.equal(typeof g.description, 'string');
    for (const key of ['can_add_members_group', 'can_join_group', 'can_leave_group', 'can_manage_group', 'can_mention_group', 'can_remove_members_group']) {
      assert.ok(typeof g[key] === 'number' || typeof g[key] === 'object', `${n} ${key}`);
    }
  }
  assert.ok(byName.get('role:owners').members.includes(t.owner.userId));
  assert.ok(byName.get('role:members').members.includes(bob.userId));
  assert.deepEqual(byName.get('role:administrators').direct_subgroup_ids, [byName.get('role:owners').id]);
  assert.deepEqual(byName.get('role:everyone').direct_subgroup_ids, [byName.get('role:members').id]);
  assert.ok(!res.body.user_groups.some((g: any) => g.id === otherGroup), 'another organization’s groups are not listed');
  const named = res.body.user_groups.find((g: any) => !g.is_system_group);
  if (named) {
    assert.equal(typeof named.date_created, 'number');
    assert.equal(typeof named.creator_id, 'number');
  }
  assert.equal((await bob.get('/user_groups', { include_deactivated_groups: 'yes' })).status, 400);
  assert.equal((await bob.get(`/user_groups/${otherGroup}/members`)).status, 400);
});

test('a request that changes nothing is refused with Zulip\'s texts', async () => {
  const id = (await ann.post('/user_groups/create', { name: 'idle-crew', description: 'd', members: [ann.userId] })).body.group_id;
  const q = await openQueue(bob, ['user_group']);
  for (const [path, method, params, msg] of [
    [`/user_groups/${id}`, 'patch', {}, 'No new data supplied'],
    [`/user_groups/${id}/members`, 'post', {}, 'Nothing to do. Specify at least one of "add", "delete", "add_subgroups" or "delete_subgroups".'],
    [`/user_groups/${id}/members`, 'post', { add: [], delete: [] }, 'Nothing to do. Specify at least one of "add", "delete", "add_subgroups" or "delete_subgroups".'],
    [`/user_groups/${id}/subgroups`, 'post', {}, 'Nothing to do. Specify at least one of "add" or "delete".'],
  ] as const) {
    const res = await (method === 'patch' ? ann.patch(path, params) : ann.post(path, params));
    assert.deepEqual([res.status, res.body], [400, { result: 'error', code: 'BAD_REQUEST', msg }], `${method} ${path}`);
  }
  assert.deepEqual(await queuedEvents(bob, q), []);
});

test("names Zulip refuses: blank, too long, and the prefixes mention syntax reserves, on create and rename", async () => {
  const create = async (name: string) => (await ann.post('/user_groups/create', { name, members: [] })).body.msg;
  assert.equal(await create(' '), "User group name can't be empty!");
  assert.equal(await create('x'.repeat(101)), 'User group name cannot exceed 100 characters.');
  for (const prefix of ['@', 'role:', 'user:', 'stream:', 'channel:']) {
    assert.equal(await create(`${prefix}crew`), `User group name cannot start with '${prefix}'.`);
  }
  const ok = await ann.post('/user_groups/create', { name: 'crew @ large', members: [] });
  assert.equal(ok.status, 200, 'only a leading @ is refused');
  const rename = await ann.patch(`/user_groups/${ok.body.group_id}`, { name: '@crew' });
  assert.deepEqual([rename.status, rename.body.msg], [400, "User group name cannot start with '@'."]);
  // add_user_group reads the members (user_ids_to_users) before check_user_group_name.
  assert.equal((await ann.post('/user_groups/create', { name: '@both-wrong', members: [999999] })).body.msg, 'Invalid user ID: 999999');
});

test('PATCH deactivated: false reactivates, true does nothing (deactivating checks use first); unchanged fields send no event', async () => {
  const id = (await ann.post('/user_groups/create', { name: 'sleepers', description: 'zzz', members: [ann.userId] })).body.group_id;
  const q = await openQueue(carl, ['user_group']);
  const noop = await ann.patch(`/user_groups/${id}`, { deactivated: true, name: 'sleepers', description: 'zzz' });
  assert.equal(noop.status, 200);
  const listed = (await ann.get('/user_groups', { include_deactivated_groups: true })).body.user_groups.find((g: any) => g.id === id);
  assert.equal(listed.deactivated, false, 'PATCH does not deactivate');
  assert.deepEqual(await queuedEvents(carl, q), [], 'nothing changed, nothing announced');
  assert.equal((await ann.post(`/user_groups/${id}/deactivate`)).status, 200);
  const back = await ann.patch(`/user_groups/${id}`, { deactivated: false });
  assert.equal(back.status, 200);
  const again = (await ann.get('/user_groups')).body.user_groups.find((g: any) => g.id === id);
  assert.equal(again?.deactivated, false, 'reactivated');
});

test("a group setting given a system group it may not take is refused in Zulip's words", async () => {
  const groups = (await ann.get('/user_groups')).body.user_groups;
  const internet = groups.find((g: any) => g.name === 'role:internet').id;
  const created = await ann.post('/user_groups/create', { name: 'netizens', members: [], can_mention_group: internet });
  assert.deepEqual([created.status, created.body.msg], [400, "'can_mention_group' setting cannot be set to 'role:internet' group."]);
  const id = (await ann.post('/user_groups/create', { name: 'locals', members: [] })).body.group_id;
  const updated = await ann.patch(`/user_groups/${id}`, { can_manage_group: { new: internet } });
  assert.deepEqual([updated.status, updated.body.msg], [400, "'can_manage_group' setting cannot be set to 'role:internet' group."]);
  const unknown = await ann.patch(`/user_groups/${id}`, { can_manage_group: { new: 999999 } });
  assert.equal(unknown.body.msg, 'Invalid user group ID: 999999');
});

test('a deactivated group keeps taking members and subgroups (Zulip 11.0, feature level 391); a cycle is refused in Zulip\'s words', async () => {
  const outer = (await ann.post('/user_groups/create', { name: 'archive-outer', members: [ann.userId] })).body.group_id;
  const inner = (await ann.post('/user_groups/create', { name: 'archive-inner', members: [] })).body.group_id;
  assert.equal((await ann.post(`/user_groups/${outer}/subgroups`, { add: [inner] })).status, 200);
  const cycle = await ann.post(`/user_groups/${inner}/subgroups`, { add: [outer] });
  assert.deepEqual([cycle.status, cycle.body.msg], [400, `User group ${inner} is already a subgroup of one of the passed subgroups.`]);
  assert.equal((await ann.post(`/user_groups/${outer}/subgroups`, { delete: [inner] })).status, 200);
  assert.equal((await ann.post(`/user_groups/${outer}/deactivate`)).status, 200);
  const modern = await openQueue(carl, ['user_group']);
  const legacyReg = await carl.post('/register', { event_types: ['user_group'], fetch_event_types: ['user_group'] });
  const added = await ann.post(`/user_groups/${outer}/members`, { add: [bob.userId] });
  assert.equal(added.status, 200, JSON.stringify(added.body));
  assert.deepEqual((await queuedEvents(carl, modern)).map((e: any) => e.op), ['add_members']);
  assert.deepEqual(await queuedEvents(carl, legacyReg.body.queue_id), [], 'a client without include_deactivated_groups no longer has the group');
  const listed = (await ann.get('/user_groups', { include_deactivated_groups: true })).body.user_groups.find((g: any) => g.id === outer);
  assert.deepEqual(listed.members.sort(), [ann.userId, bob.userId].sort());
  assert.equal((await ann.post(`/user_groups/${outer}/members`, { delete: [bob.userId] })).status, 200);
  assert.equal((await ann.post(`/user_groups/${outer}/subgroups`, { add: [inner] })).status, 200);
});

test("deactivating a group in use: Zulip's CANNOT_DEACTIVATE_GROUP_IN_USE with the objections; an inactive group is 'User group is deactivated.'", async () => {
  const create = async (name: string, extra: Record<string, unknown> = {}) => (await ann.post('/user_groups/create', { name, members: [ann.userId], ...extra })).body.group_id as number;
  const used = await create('in-use');
  const parent = await create('in-use-parent', { subgroups: [used] });
  const holder = await create('in-use-holder', { can_mention_group: used });
  const anon = await create('in-use-anon', { can_join_group: { direct_members: [bob.userId], direct_subgroups: [used] } });
  assert.equal((await carl.post(`/user_groups/${used}/deactivate`)).body.msg, 'Insufficient permission', 'permission comes first');
  const refused = await ann.post(`/user_groups/${used}/deactivate`);
  assert.equal(refused.status, 400);
  assert.deepEqual(refused.body, {
    result: 'error',
    msg: 'Cannot deactivate user group in use.',
    code: 'CANNOT_DEACTIVATE_GROUP_IN_USE',
    objections: [
      { type: 'subgroup', supergroup_ids: [parent] },
      { type: 'user_group', group_id: holder, settings: ['can_mention_group'] },
      { type: 'user_group', group_id: anon, settings: ['can_join_group'] },
    ],
  });
  const free = await create('free-group');
  assert.equal((await ann.post(`/user_groups/${free}/deactivate`)).status, 200);
  const again = await ann.post(`/user_groups/${free}/deactivate`);
  assert.deepEqual([again.status, again.body.msg], [400, 'User group is deactivated.']);
});

test("a deactivated group can be no subgroup and no setting's value: Zulip's 'User group is deactivated.'", async () => {
  const gone = (await ann.post('/user_groups/create', { name: 'gone-group', members: [] })).body.group_id;
  assert.equal((await ann.post(`/user_groups/${gone}/deactivate`)).status, 200);
  const target = (await ann.post('/user_groups/create', { name: 'still-here', members: [] })).body.group_id;
  const refusals = [
    await ann.post('/user_groups/create', { name: 'with-gone', members: [], subgroups: [gone] }),
    await ann.post(`/user_groups/${target}/subgroups`, { add: [gone] }),
    await ann.patch(`/user_groups/${target}`, { can_mention_group: { new: gone } }),
    await ann.patch(`/user_groups/${target}`, { can_mention_group: { new: { direct_members: [], direct_subgroups: [gone] } } }),
  ];
  for (const res of refusals) assert.deepEqual([res.status, res.body.msg], [400, 'User group is deactivated.']);
  assert.equal((await ann.post(`/user_groups/${target}/subgroups`, { add: [999999] })).body.msg, 'Invalid user group ID: 999999');
});

test("guests and bots are refused on user-group endpoints as Zulip's require_member_or_admin does; a deactivated group's membership is not read", async () => {
  const guest = await t.createUser({ role: 'guest', name: 'Gus Guest' });
  const botRes = await ann.post('/bots', { full_name: 'Group Bot', short_name: 'groupbot', bot_type: 1 });
  assert.equal(botRes.status, 200, JSON.stringify(botRes.body));
  const bot = new Client(t.url, (await ann.get(`/users/${botRes.body.user_id}`)).body.user.email, botRes.body.api_key, botRes.body.user_id);
  const id = (await ann.post('/user_groups/create', { name: 'guarded', members: [ann.userId] })).body.group_id;
  const calls = (c: Client) => [
    c.get('/user_groups'),
    c.post('/user_groups/create', { name: 'sneaky', members: [] }),
    c.patch(`/user_groups/${id}`, { description: 'x' }),
    c.post(`/user_groups/${id}/members`, { add: [c.userId] }),
    c.post(`/user_groups/${id}/subgroups`, { add: [id] }),
    c.get(`/user_groups/${id}/members`),
    c.get(`/user_groups/${id}/subgroups`),
    c.get(`/user_groups/${id}/members/${ann.userId}`),
  ];
  for (const [c, msg] of [[guest, 'Not allowed for guest users'], [bot, 'This endpoint does not accept bot requests.']] as const) {
    for (const res of await Promise.all(calls(c))) assert.deepEqual([res.status, res.body.msg], [400, msg]);
  }
  // get_is_user_group_member reads the user as access_user_by_id does: no bots, no deactivated users.
  assert.equal((await ann.get(`/user_groups/${id}/members/${bot.userId}`)).body.msg, 'No such user');
  const gone = await t.createUser({ name: 'Gone Member' });
  assert.equal((await t.owner.delete(`/users/${gone.userId}`)).status, 200);
  assert.equal((await ann.get(`/user_groups/${id}/members/${gone.userId}`)).body.msg, 'User is deactivated');
  assert.equal((await ann.post(`/user_groups/${id}/deactivate`)).status, 200);
  for (const path of [`/user_groups/${id}/members`, `/user_groups/${id}/subgroups`, `/user_groups/${id}/members/${ann.userId}`]) {
    const res = await ann.get(path);
    assert.deepEqual([res.status, res.body.msg], [400, 'User group is deactivated.'], path);
  }
});

test('the Notification Bot tells people someone else added them to a group or removed them, as Zulip does', async () => {
  const id = (await ann.post('/user_groups/create', { name: 'told', members: [ann.userId] })).body.group_id;
  const lastFromBot = async (c: Client) => {
    const res = await c.get('/messages', { anchor: 'newest', num_before: 1, num_after: 0, apply_markdown: false, narrow: [{ operator: 'sender', operand: 'notification-bot@zulip.com' }] });
    return res.body.messages[0];
  };
  const before = (await lastFromBot(bob))?.id ?? 0;
  assert.equal((await ann.post(`/user_groups/${id}/members`, { add: [bob.userId] })).status, 200);
  const added = await lastFromBot(bob);
  assert.ok(added.id > before);
  assert.equal(added.content, `@_**Ann Grouper|${ann.userId}** added you to the group @_*told*.`);
  assert.equal(added.type, 'private');
  // The conversation with the bot narrows as in Zulip, which resolves the system bots too.
  for (const narrow of [[{ operator: 'dm', operand: [added.sender_id] }], [['pm-with', 'notification-bot@zulip.com']]]) {
    const conversation = await bob.get('/messages', { anchor: 'newest', num_before: 5, num_after: 0, narrow });
    assert.ok(conversation.body.messages?.some((m: any) => m.id === added.id), JSON.stringify(conversation.body));
  }
  const rendered = (await bob.get(`/messages/${added.id}`)).body.message.content;
  assert.match(rendered, new RegExp(`class="user-group-mention silent" data-user-group-id="${id}"`));
  assert.equal((await ann.post(`/user_groups/${id}/members`, { delete: [bob.userId] })).status, 200);
  assert.equal((await lastFromBot(bob)).content, `@_**Ann Grouper|${ann.userId}** removed you from the group @_*told*.`);
  // Joining oneself tells nobody.
  const annBefore = (await lastFromBot(ann))?.id;
  assert.equal((await ann.post(`/user_groups/${id}/members`, { delete: [ann.userId] })).status, 200);
  assert.equal((await lastFromBot(ann))?.id, annBefore);
});

test("one request adding and removing: each change's event goes out before the direct messages telling of it, as Zulip's views run in turn", async () => {
  const id = (await ann.post('/user_groups/create', { name: 'ordered', members: [ann.userId, carl.userId] })).body.group_id;
  const q = await openQueue(bob, ['user_group', 'message']);
  const carlQ = await openQueue(carl, ['user_group', 'message']);
  assert.equal((await ann.post(`/user_groups/${id}/members`, { add: [bob.userId], delete: [carl.userId] })).status, 200);
  const seen = (events: any[]) =>
    events.filter((e) => e.type === 'user_group' || e.type === 'message').map((e) => (e.type === 'message' ? `dm:${e.message.display_recipient.map((r: any) => r.id).includes(bob.userId) ? 'bob' : 'carl'}` : e.op));
  assert.deepEqual(seen(await queuedEvents(bob, q)), ['add_members', 'dm:bob', 'remove_members']);
  assert.deepEqual(seen(await queuedEvents(carl, carlQ)), ['add_members', 'remove_members', 'dm:carl']);
});

test("one PATCH changing several fields: an event per field, in edit_user_group's order, not the request's", async () => {
  const created = await ann.post('/user_groups/create', { name: 'one-by-one', description: 'before', members: [ann.userId] });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  const id = created.body.group_id;
  const groups = (await ann.get('/user_groups')).body.user_groups;
  const members = groups.find((g: any) => g.name === 'role:members').id;
  const q = await openQueue(carl, ['user_group']);
  // The request names the settings last-first; Zulip changes the name, the description, then
  // each setting in NamedUserGroup.GROUP_PERMISSION_SETTINGS order, one event each.
  const res = await ann.patch(`/user_groups/${id}`, {
    can_mention_group: { new: members },
    can_join_group: { new: members },
    description: 'after',
    name: 'one-by-one-renamed',
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const evs = (await queuedEvents(carl, q)).filter((e: any) => e.op === 'update');
  assert.deepEqual(evs.map((e: any) => [e.group_id, e.data]), [
    [id, { name: 'one-by-one-renamed' }],
    [id, { description: 'after' }],
    [id, { can_join_group: members }],
    [id, { can_mention_group: members }],
  ]);
});

test("removing subgroups takes can_manage_group (adding takes can_add_members_group), and names an unknown or deactivated subgroup as Zulip's lock_subgroups_with_respect_to_supergroup does", async () => {
  // Bob may add members and subgroups to the group, but does not manage it.
  const group = (await ann.post('/user_groups/create', { name: 'sub-perms', members: [], can_add_members_group: { direct_members: [bob.userId], direct_subgroups: [] } })).body.group_id;
  const child = (await ann.post('/user_groups/create', { name: 'sub-perms-child', members: [] })).body.group_id;
  assert.equal((await bob.post(`/user_groups/${group}/subgroups`, { add: [child] })).status, 200);
  const removed = await bob.post(`/user_groups/${group}/subgroups`, { delete: [child] });
  assert.deepEqual([removed.status, removed.body.msg], [400, 'Insufficient permission']);
  assert.equal((await bob.post(`/user_groups/${group}/members`, { delete_subgroups: [child] })).body.msg, 'Insufficient permission');
  assert.equal((await ann.post(`/user_groups/${group}/subgroups`, { delete: [child] })).status, 200, 'the manager may');

  const unknown = await ann.post(`/user_groups/${group}/subgroups`, { delete: [999999] });
  assert.deepEqual([unknown.status, unknown.body.msg], [400, 'Invalid user group ID: 999999']);
  assert.equal((await ann.post(`/user_groups/${group}/subgroups`, { add: [child] })).status, 200);
  assert.equal((await ann.post(`/user_groups/${child}/deactivate`)).status, 400, 'in use as a subgroup');
  // Removing members names a user that does not exist, as user_ids_to_users does.
  const noUser = await ann.post(`/user_groups/${group}/members`, { delete: [999999] });
  assert.deepEqual([noUser.status, noUser.body.msg], [400, 'Invalid user ID: 999999']);
});
