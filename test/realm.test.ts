// Organization settings (PATCH /realm): who may change what, validation, the realm events Zulip
// sends for each kind of setting, group settings as {new, old}, and what /register then reports.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, openQueue, queuedEvents, type Client, type TestServer } from './helpers.js';
import { realmStateFields } from '../src/shapes/realm.js';
import { getRealm } from '../src/store/realms.js';

let t: TestServer;
let member: Client;
let admin: Client;
let groups: Record<string, number>;
before(async () => {
  t = await startTestServer();
  member = await t.createUser({ name: 'Rita Member' });
  admin = await t.createUser({ role: 'administrator', name: 'Ray Admin' });
  groups = Object.fromEntries((await member.get('/user_groups')).body.user_groups.map((g: any) => [g.name, g.id]));
});
after(async () => {
  await t.close();
});

async function realmState(c: Client) {
  return (await c.post('/register', { fetch_event_types: ['realm'] })).body;
}

test('plain settings: applied, answered, and announced as realm/update', async () => {
  const q = await openQueue(member, ['realm']);
  const res = await admin.patch('/realm', { name: 'Renamed Org', enable_spectator_access: true, message_content_delete_limit_seconds: 3600, inline_image_preview: false });
  assert.equal(res.status, 200);
  assert.equal(res.body.name, 'updated', 'text settings are answered "updated"');
  assert.equal(res.body.enable_spectator_access, true);
  assert.equal(res.body.message_content_delete_limit_seconds, 3600);
  const evs = await queuedEvents(member, q);
  const updates = Object.fromEntries(evs.filter((e) => e.op === 'update').map((e) => [e.property, e.value]));
  assert.deepEqual(updates, { name: 'Renamed Org', enable_spectator_access: true, message_content_delete_limit_seconds: 3600, inline_image_preview: false });
  const state = await realmState(member);
  assert.equal(state.realm_name, 'Renamed Org');
  assert.equal(state.realm_enable_spectator_access, true);
  assert.equal(state.realm_message_content_delete_limit_seconds, 3600);
  assert.equal(state.realm_inline_image_preview, false);
  assert.equal((await member.get('/server_settings')).body.realm_name, 'Renamed Org');

  const again = await admin.patch('/realm', { name: 'Renamed Org' });
  assert.deepEqual(again.body, { result: 'success', msg: '' }, 'an unchanged value changes nothing');
  assert.deepEqual(await queuedEvents(member, q), evs);
});

test('settings with update_dict events: description, editing limits, topics policy', async () => {
  const q = await openQueue(member, ['realm']);
  assert.equal((await admin.patch('/realm', { description: 'We talk about **things**.' })).status, 200);
  assert.equal((await admin.patch('/realm', { message_content_edit_limit_seconds: 'unlimited', allow_message_editing: false })).status, 200);
  assert.equal((await admin.patch('/realm', { topics_policy: 'disable_empty_topic' })).status, 200);
  const dicts = (await queuedEvents(member, q)).filter((e) => e.op === 'update_dict').map((e) => e.data);
  assert.equal(dicts.every((d) => typeof d === 'object'), true);
  assert.deepEqual(dicts[0], { description: 'We talk about **things**.', rendered_description: '<p>We talk about <strong>things</strong>.</p>' });
  // update_realm applies the time limits before the other properties.
  assert.deepEqual(dicts.slice(1), [{ message_content_edit_limit_seconds: null }, { allow_message_editing: false }, { topics_policy: 'disable_empty_topic', mandatory_topics: true }]);
  const state = await realmState(member);
  assert.equal(state.realm_description, 'We talk about **things**.');
  assert.equal(state.realm_message_content_edit_limit_seconds, null);
  assert.equal(state.realm_allow_message_editing, false);
  assert.equal(state.realm_topics_policy, 'disable_empty_topic');
  assert.equal(state.realm_mandatory_topics, true);

  // The older spelling still works and keeps both in step.
  assert.equal((await admin.patch('/realm', { mandatory_topics: false })).status, 200);
  const after = await realmState(member);
  assert.deepEqual([after.realm_topics_policy, after.realm_mandatory_topics], ['allow_empty_topic', false]);
  assert.equal((await admin.patch('/realm', { message_content_edit_limit_seconds: 600, allow_message_editing: true })).status, 200);
});

test('validation: every bad value is refused and nothing is half-applied', async () => {
  const before = await realmState(member);
  const bad: Array<[Record<string, unknown>, string]> = [
    [{ name: 'n'.repeat(41) }, 'name is too long (limit: 40 characters)'],
    [{ description: 'd'.repeat(1001) }, 'description is too long (limit: 1000 characters)'],
    [{ topics_policy: 'whatever' }, 'Invalid topics_policy'],
    [{ enable_spectator_access: 'maybe' }, 'enable_spectator_access is not a boolean'],
    [{ message_content_edit_limit_seconds: 0 }, "Bad value for 'message_content_edit_limit_seconds': 0"],
    [{ message_content_edit_limit_seconds: 'forever' }, "Bad value for 'message_content_edit_limit_seconds': forever"],
    [{ video_chat_provider: 2 }, 'Invalid video_chat_provider 2'],
    [{ default_language: 'not a language' }, "Invalid language 'not a language'"],
    [{ digest_weekday: 7 }, 'Invalid digest_weekday'],
    [{ new_stream_announcements_stream_id: 999999 }, 'Invalid channel ID'],
    [{ name: 'Half Applied', can_mention_many_users_group: { new: 999999 } }, 'Invalid user group ID: 999999'],
  ];
  for (const [params, msg] of bad) {
    const res = await admin.patch('/realm', params as any);
    assert.deepEqual([res.status, res.body.code, res.body.msg], [400, 'BAD_REQUEST', msg], JSON.stringify(params));
  }
  const after = await realmState(member);
  assert.equal(after.realm_name, before.realm_name);
});

test('permissions: administrators only; owners only where Zulip says so', async () => {
  const owner = t.owner;
  for (const c of [member, await t.createUser({ role: 'moderator' }), await t.createUser({ role: 'guest' })]) {
    const res = await c.patch('/realm', { name: 'Mine Now' });
    assert.deepEqual([res.status, res.body.code, res.body.msg], [400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator']);
  }
  const ownerOnly: Array<Record<string, unknown>> = [
    { waiting_period_threshold: 3 },
    { invite_required: false },
    { emails_restricted_to_domains: true },
    { disallow_disposable_email_addresses: false },
    { message_retention_days: 30 },
    { can_invite_users_group: { new: groups['role:administrators'] } },
    { can_manage_all_groups: { new: groups['role:administrators'] } },
    { can_create_groups: { new: groups['role:administrators'] } },
    { create_multiuse_invite_group: { new: groups['role:owners'] } },
    { can_manage_billing_group: { new: groups['role:owners'] } },
  ];
  // update_realm's body checks the video chat provider, then the GIPHY rating, before asking for an owner.
  const both = await admin.patch('/realm', { giphy_rating: 99, video_chat_provider: 99, invite_required: true });
  assert.deepEqual([both.status, both.body.msg], [400, 'Invalid video_chat_provider 99']);
  assert.equal((await admin.patch('/realm', { giphy_rating: 99, invite_required: true })).body.msg, 'Invalid giphy_rating 99');
  for (const params of ownerOnly) {
    const res = await admin.patch('/realm', params as any);
    assert.deepEqual([res.status, res.body.code, res.body.msg], [400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization owner'], JSON.stringify(params));
    assert.equal((await owner.patch('/realm', params as any)).status, 200, JSON.stringify(params));
  }
  const state = await realmState(member);
  assert.equal(state.realm_message_retention_days, 30);
  assert.equal((await owner.patch('/realm', { message_retention_days: 'unlimited' })).status, 200);
  assert.equal((await realmState(member)).realm_message_retention_days, -1);
  await owner.patch('/realm', { waiting_period_threshold: 0 });
  // With no allowed domains, a restricted organization admits no new address (Zulip's email_allowed_for_realm).
  await owner.patch('/realm', { emails_restricted_to_domains: false });
});

test('waiting_period_threshold moves members in and out of role:fullmembers', async () => {
  const q = await openQueue(member, ['user_group']);
  assert.equal((await t.owner.patch('/realm', { waiting_period_threshold: 10 })).status, 200);
  const full = () => member.get(`/user_groups/${groups['role:fullmembers']}/members`, { direct_member_only: true }).then((r) => r.body.members as number[]);
  assert.ok(!(await full()).includes(member.userId), 'a new member is not yet a full member');
  const newcomer = await t.owner.post('/users', { email: 'late@example.com', password: 'x1234567', full_name: 'Late Comer' });
  assert.ok(!(await full()).includes(newcomer.body.user_id));
  assert.equal((await t.owner.patch('/realm', { waiting_period_threshold: 0 })).status, 200);
  assert.ok((await full()).includes(member.userId) && (await full()).includes(newcomer.body.user_id));
  const evs = await queuedEvents(member, q);
  assert.deepEqual(evs.map((e) => [e.op, e.group_id, e.user_ids.includes(member.userId)]), [
    ['remove_members', groups['role:fullmembers'], true],
    ['add_members', groups['role:fullmembers'], true],
  ]);
});

test('group settings: {new, old}, anonymous values, per-setting rules, update_dict events', async () => {
  const q = await openQueue(member, ['realm']);
  const current = (await realmState(admin)).realm_can_mention_many_users_group;
  const stale = await admin.patch('/realm', { can_mention_many_users_group: { new: groups['role:members'], old: groups['role:nobody'] } });
  assert.deepEqual([stale.status, stale.body.msg], [400, "'old' value does not match the expected value."]);
  const ok = await admin.patch('/realm', { can_mention_many_users_group: { new: groups['role:members'], old: current } });
  assert.equal(ok.status, 200);
  assert.equal(ok.body.can_mention_many_users_group, groups['role:members']);
  const anon = { direct_members: [member.userId], direct_subgroups: [groups['role:moderators']] };
  assert.equal((await admin.patch('/realm', { can_mention_many_users_group: { new: anon, old: { direct_members: [], direct_subgroups: [groups['role:members']] } } })).status, 200);
  assert.deepEqual((await realmState(admin)).realm_can_mention_many_users_group, anon);
  const evs = (await queuedEvents(member, q)).map((e) => [e.op, e.property, e.data]);
  assert.deepEqual(evs, [
    ['update_dict', 'default', { can_mention_many_users_group: groups['role:members'] }],
    ['update_dict', 'default', { can_mention_many_users_group: anon }],
  ]);

  const refused: Array<[Record<string, unknown>, string]> = [
    [{ can_mention_many_users_group: { new: { direct_members: [999999], direct_subgroups: [] } } }, 'Invalid user ID: 999999'],
    [{ can_mention_many_users_group: { new: 999999 } }, 'Invalid user group ID: 999999'],
    [{ can_mention_many_users_group: { new: groups['role:internet'] } }, "'can_mention_many_users_group' setting cannot be set to 'role:internet' group."],
    [{ can_mention_many_users_group: { old: 1 } }, "can_mention_many_users_group must have a 'new' value"],
    [{ can_create_bots_group: { new: groups['role:everyone'] } }, "'can_create_bots_group' setting cannot be set to 'role:everyone' group."],
    [{ can_create_web_public_channel_group: { new: groups['role:members'] } }, "'can_create_web_public_channel_group' setting cannot be set to 'role:members' group."],
    [{ can_access_all_users_group: { new: anon } }, "'can_access_all_users_group' must be a system user group."],
    [{ can_access_all_users_group: { new: groups['role:nobody'] } }, "'can_access_all_users_group' setting cannot be set to 'role:nobody' group."],
  ];
  for (const [params, msg] of refused) {
    const res = await admin.patch('/realm', params as any);
    assert.deepEqual([res.status, res.body.msg], [400, msg], JSON.stringify(params));
  }
});

test('another organization is untouched', async () => {
  const other = await t.createOrg('Other Org');
  assert.equal((await other.owner.patch('/realm', { name: 'Other Renamed', waiting_period_threshold: 4 })).status, 200);
  const mine = await realmState(member);
  assert.notEqual(mine.realm_name, 'Other Renamed');
  assert.equal(mine.realm_waiting_period_threshold, 0);
  const foreignGroup = (await other.owner.get('/user_groups')).body.user_groups.find((g: any) => g.name === 'role:members').id;
  const res = await admin.patch('/realm', { can_mention_many_users_group: { new: foreignGroup } });
  assert.deepEqual([res.status, res.body.msg], [400, `Invalid user group ID: ${foreignGroup}`]);
});

test('realmStateFields gives every realm_* key /register documents for the realm event type', async () => {
  const realm = (await getRealm(t.server.services.database.db, t.realmId))!;
  const graph = await t.server.services.cache.groupGraph(t.realmId);
  const fields = realmStateFields(realm, graph, t.server.services.config.externalUrl);
  const { readFileSync } = await import('node:fs');
  const spec = JSON.parse(readFileSync('/work/shared/reference/zulip-openapi.json', 'utf8'));
  const schema = spec.paths['/register'].post.responses['200'].content['application/json'].schema;
  const props: Record<string, any> = {};
  const collect = (s: any) => {
    if (s.$ref) return collect(spec.components.schemas[s.$ref.split('/').pop()]);
    for (const part of s.allOf ?? []) collect(part);
    Object.assign(props, s.properties ?? {});
  };
  collect(schema);
  const realmKeys = Object.entries(props)
    // The description may sit in an allOf branch (group settings).
    .filter(([k, v]) => k.startsWith('realm_') && /Present if `realm` is present/.test(JSON.stringify(v)))
    .map(([k]) => k);
  assert.ok(realmKeys.length > 80);
  assert.deepEqual(realmKeys.filter((k) => !(k in fields)), []);
  assert.equal(typeof fields.realm_can_create_bots_group, 'number');
});

test('accounts become full members as they age past the waiting period (the periodic promotion)', async () => {
  assert.equal((await t.owner.patch('/realm', { waiting_period_threshold: 2 })).status, 200);
  const full = () => member.get(`/user_groups/${groups['role:fullmembers']}/members`, { direct_member_only: true }).then((r) => r.body.members as number[]);
  assert.ok(!(await full()).includes(member.userId));
  const q = await openQueue(member, ['user_group']);
  const { promoteFullMembers } = await import('../src/actions/full_members.js');
  const services = t.server.services;
  assert.equal(await promoteFullMembers(services), 0, 'nobody is two days old yet');
  const threeDaysOn = Math.floor(Date.now() / 1000) + 3 * 86400;
  assert.ok((await promoteFullMembers(services, threeDaysOn)) >= 1);
  assert.ok((await full()).includes(member.userId));
  const evs = await queuedEvents(member, q);
  assert.deepEqual(evs.map((e) => [e.op, e.group_id, e.user_ids.includes(member.userId)]), [['add_members', groups['role:fullmembers'], true]]);
  assert.equal(await promoteFullMembers(services, threeDaysOn), 0, 'a second pass changes nothing');
  assert.equal((await t.owner.patch('/realm', { waiting_period_threshold: 0 })).status, 200);
});

test("one PATCH changing several kinds of settings: update_realm's order (properties, time limits, group settings, channels, org_type), channel values as given, org_type always", async () => {
  assert.equal((await t.owner.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'realm-order' }]) })).status, 200);
  const other = (await t.owner.get('/get_stream_id', { stream: 'realm-order' })).body.stream_id;
  const q = await openQueue(member, ['realm']);
  const res = await t.owner.patch('/realm', {
    org_type: 0,
    new_stream_announcements_stream_id: other,
    can_add_custom_emoji_group: JSON.stringify({ new: groups['role:administrators'] }),
    send_welcome_emails: false,
    message_content_delete_limit_seconds: 1234,
    avatar_changes_disabled: true,
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const label = (e: any) => (e.op === 'update' ? e.property : Object.keys(e.data)[0]);
  // A time limit given a number is set with the body's locals, after the properties (one going
  // back to unlimited comes first: see the update_dict test above).
  assert.deepEqual((await queuedEvents(member, q)).map(label), [
    'avatar_changes_disabled',
    'send_welcome_emails',
    'message_content_delete_limit_seconds',
    'can_add_custom_emoji_group',
    'new_stream_announcements_stream_id',
    'org_type',
  ]);
  // do_change_realm_org_type compares nothing: the same value is announced and answered again.
  const q2 = await openQueue(member, ['realm']);
  const same = await t.owner.patch('/realm', { org_type: 0, signup_announcements_stream_id: -5 });
  assert.deepEqual([same.body.org_type, same.body.signup_announcements_stream_id], [0, -5], JSON.stringify(same.body));
  assert.deepEqual((await queuedEvents(member, q2)).map((e: any) => [e.property, e.value]), [
    ['signup_announcements_stream_id', -5],
    ['org_type', 0],
  ]);
  assert.equal((await realmState(member)).realm_signup_announcements_stream_id, -1);
  // The moderation request channel must be private (do_set_realm_moderation_request_channel).
  const open = await t.owner.patch('/realm', { moderation_request_channel_id: other });
  assert.deepEqual([open.status, open.body.msg], [400, 'Moderation request channel must be private.']);
  await t.owner.patch('/realm', { can_add_custom_emoji_group: JSON.stringify({ new: groups['role:members'] }), avatar_changes_disabled: false });
});

test("the organization's name as Zulip's update_realm takes it: only its length (in code points) is checked, nothing trimmed", async () => {
  const before = (await realmState(member)).realm_name;
  try {
    for (const name of ['  Spaced Out  ', '🎉'.repeat(40), '']) {
      const res = await admin.patch('/realm', { name });
      assert.deepEqual([res.status, res.body.name], [200, 'updated'], JSON.stringify(name));
      assert.equal((await realmState(member)).realm_name, name);
    }
    const tooLong = await admin.patch('/realm', { name: '🎉'.repeat(41) });
    assert.deepEqual([tooLong.status, tooLong.body.msg], [400, 'name is too long (limit: 40 characters)']);
  } finally {
    await admin.patch('/realm', { name: before });
  }
});
