// Custom profile fields: administrators define them (every type Zulip has, each validated), the
// custom_profile_fields event and /register state, and users' values: profile_data in user objects,
// PATCH/DELETE /users/me/profile_data, an administrator's PATCH /users/{id}, realm_user updates.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client, openQueue, queuedEvents, startTestServer, type TestServer } from './helpers.js';

let t: TestServer;
let member: Client;
let other: Client;
let admin: Client;
const ids: Record<string, number> = {};

before(async () => {
  t = await startTestServer();
  member = await t.createUser({ name: 'Mia Member' });
  other = await t.createUser({ name: 'Otto Other' });
  admin = await t.createUser({ role: 'administrator', name: 'Ada Admin' });
});
after(async () => {
  await t.close();
});

async function field(params: Record<string, unknown>): Promise<number> {
  const res = await admin.post('/realm/profile_fields', params as any);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.id;
}

test('administrators create fields of every type; everyone hears custom_profile_fields', async () => {
  const q = await openQueue(member, ['custom_profile_fields']);
  ids.phone = await field({ name: 'Phone', field_type: 1, hint: 'Work number', display_in_profile_summary: true });
  ids.bio = await field({ name: 'Biography', field_type: 2, required: true });
  ids.editor = await field({ name: 'Editor', field_type: 3, field_data: { vim: { text: 'Vim', order: '1' }, emacs: { text: 'Emacs', order: '2' } } });
  ids.birthday = await field({ name: 'Birthday', field_type: 4, editable_by_user: false });
  ids.site = await field({ name: 'Website', field_type: 5 });
  ids.mentor = await field({ name: 'Mentor', field_type: 6 });
  ids.github = await field({ field_type: 7, field_data: { subtype: 'github' } });
  ids.custom = await field({ name: 'Forum', field_type: 7, field_data: { subtype: 'custom', url_pattern: 'https://forum.example.com/u/%(username)s' } });
  ids.pronouns = await field({ name: 'Pronouns', field_type: 8 });

  const list = await member.get('/realm/profile_fields');
  assert.equal(list.status, 200);
  const byId = new Map(list.body.custom_fields.map((f: any) => [f.id, f]));
  assert.deepEqual(list.body.custom_fields.map((f: any) => f.id), Object.values(ids));
  assert.deepEqual(byId.get(ids.phone), { id: ids.phone, name: 'Phone', type: 1, hint: 'Work number', field_data: '', order: (byId.get(ids.phone) as any).order, required: false, editable_by_user: true, display_in_profile_summary: true });
  assert.deepEqual(JSON.parse((byId.get(ids.editor) as any).field_data), { vim: { text: 'Vim', order: '1' }, emacs: { text: 'Emacs', order: '2' } });
  assert.deepEqual([(byId.get(ids.github) as any).name, (byId.get(ids.github) as any).hint], ['GitHub', 'Enter your GitHub username']);
  assert.equal((byId.get(ids.birthday) as any).editable_by_user, false);
  assert.equal((byId.get(ids.bio) as any).required, true);

  const evs = await queuedEvents(member, q);
  assert.equal(evs.length, 9);
  assert.ok(evs.every((e: any) => e.type === 'custom_profile_fields'));
  assert.deepEqual(evs[8].fields, list.body.custom_fields);
  const state = await member.post('/register', { fetch_event_types: ['custom_profile_fields'] });
  assert.deepEqual(state.body.custom_profile_fields, list.body.custom_fields);
  assert.equal(state.body.custom_profile_field_types.PRONOUNS.id, 8);
});

test('field definitions are checked as Zulip checks them', async () => {
  const bad = async (params: Record<string, unknown>, msg: string) => {
    const res = await admin.post('/realm/profile_fields', params as any);
    assert.deepEqual([res.status, res.body.msg], [400, msg], JSON.stringify(params));
  };
  await bad({ name: '  ', field_type: 1 }, 'Label cannot be blank.');
  await bad({ name: 'Phone', field_type: 1 }, 'A field with that label already exists.');
  await bad({ name: 'Odd', field_type: 42 }, 'Invalid field type.');
  await bad({ name: 'x'.repeat(41), field_type: 1 }, 'name is too long (limit: 40 characters)');
  await bad({ name: 'Hinted', field_type: 1, hint: 'h'.repeat(81) }, 'hint is too long (limit: 80 characters)');
  await bad({ name: 'Choices', field_type: 3, field_data: {} }, 'Field must have at least one choice.');
  await bad({ name: 'Choices', field_type: 3, field_data: { a: { text: 'A', order: '1' }, b: { text: 'A', order: '2' } } }, 'Field must not have duplicate choices.');
  // validate_select_field_data: each choice through check_dict_only under the name field_data.
  await bad({ name: 'Choices', field_type: 3, field_data: { a: { text: ' ', order: '1' } } }, 'field_data["text"] cannot be blank.');
  await bad({ name: 'Choices', field_type: 3, field_data: { a: { text: 'A' } } }, 'order key is missing from field_data');
  await bad({ name: 'Choices', field_type: 3, field_data: { a: { text: 'A', order: '1', color: 'red' } } }, 'Unexpected arguments: color');
  await bad({ name: 'Choices', field_type: 3, field_data: { ' ': { text: 'A', order: '1' } } }, "'value' cannot be blank.");
  await bad({ name: 'Ext', field_type: 7, field_data: { subtype: 'myspace' } }, 'Invalid external account type');
  await bad({ name: 'Ext', field_type: 7, field_data: { subtype: 'custom' } }, 'Custom external account must define URL pattern');
  await bad({ name: 'Ext', field_type: 7, field_data: { subtype: 'custom', url_pattern: 'not a url' } }, 'Malformed URL pattern.');
  await bad({ name: 'Long', field_type: 2, display_in_profile_summary: true }, 'Field type not supported for display in profile summary.');
  const second = await field({ name: 'Second', field_type: 1, display_in_profile_summary: true });
  await bad({ name: 'Third', field_type: 1, display_in_profile_summary: true }, 'Only 2 custom profile fields can be displayed in the profile summary.');
  // The limit is looked at before the rest of the definition.
  await bad({ name: ' ', field_type: 2, display_in_profile_summary: true }, 'Only 2 custom profile fields can be displayed in the profile summary.');
  assert.equal((await admin.delete(`/realm/profile_fields/${second}`)).status, 200);
  assert.equal((await admin.post('/realm/profile_fields', { name: 'No type' })).body.code, 'REQUEST_VARIABLE_MISSING');
  assert.equal((await admin.post('/realm/profile_fields', { name: 'Bad data', field_type: 3, field_data: 'nope' })).status, 400);
  const denied = await member.post('/realm/profile_fields', { name: 'Mine', field_type: 1 });
  assert.deepEqual([denied.status, denied.body.msg], [400, 'Must be an organization administrator']);
});

test('update, reorder and delete fields', async () => {
  const q = await openQueue(member, ['custom_profile_fields']);
  assert.equal((await admin.patch(`/realm/profile_fields/${ids.phone}`, { name: 'Phone number', hint: '' })).status, 200);
  assert.equal((await admin.patch(`/realm/profile_fields/${ids.site}`, { name: 'Biography' })).body.msg, 'A field with that label already exists.');
  assert.equal((await admin.patch(`/realm/profile_fields/${ids.github}`, { name: 'Hub' })).body.msg, 'Default custom field cannot be updated.');
  assert.equal((await admin.patch(`/realm/profile_fields/${ids.github}`, { display_in_profile_summary: true })).status, 200);
  assert.equal((await admin.patch(`/realm/profile_fields/${ids.site}`, { display_in_profile_summary: true })).body.msg, 'Only 2 custom profile fields can be displayed in the profile summary.');
  assert.equal((await admin.patch('/realm/profile_fields/999999', { name: 'Gone' })).body.msg, 'Field id 999999 not found.');
  assert.equal((await member.patch(`/realm/profile_fields/${ids.phone}`, { name: 'Mine' })).status, 400);

  const order = [...Object.values(ids)].reverse();
  assert.equal((await admin.patch('/realm/profile_fields', { order })).status, 200);
  const listed = (await member.get('/realm/profile_fields')).body.custom_fields;
  assert.deepEqual(listed.map((f: any) => f.id), order);
  assert.equal(listed.find((f: any) => f.id === ids.phone).name, 'Phone number');
  assert.equal((await admin.patch('/realm/profile_fields', { order: order.slice(1) })).body.msg, 'Invalid order mapping.');
  // try_reorder_realm_custom_profile_fields needs every field listed; other ids are ignored, and a
  // field listed twice takes its last place.
  assert.equal((await admin.patch('/realm/profile_fields', { order: [...order, 999999] })).status, 200);
  assert.equal((await admin.patch('/realm/profile_fields', { order: [order[1], ...order] })).status, 200);
  assert.deepEqual((await member.get('/realm/profile_fields')).body.custom_fields.map((f: any) => f.id), order);

  const temp = await field({ name: 'Temporary', field_type: 1 });
  assert.equal((await member.patch('/users/me/profile_data', { data: [{ id: temp, value: 'soon gone' }] })).status, 200);
  assert.equal((await admin.delete(`/realm/profile_fields/${temp}`)).status, 200);
  assert.equal((await admin.delete(`/realm/profile_fields/${temp}`)).body.msg, `Field id ${temp} not found.`);
  const me = await member.get('/users/me');
  assert.equal(me.body.profile_data[String(temp)], undefined, 'the values went with the field');
  const evs = await queuedEvents(member, q);
  assert.ok(evs.length >= 5 && evs.every((e: any) => e.type === 'custom_profile_fields'));
  assert.ok(!evs[evs.length - 1].fields.some((f: any) => f.id === temp));
});

test('users set their values; profile_data everywhere; realm_user updates; per-type checks', async () => {
  const q = await openQueue(other, ['realm_user']);
  const res = await member.patch('/users/me/profile_data', {
    data: [
      { id: ids.phone, value: '+1 555 0100' },
      { id: ids.bio, value: 'I like **bold** things' },
      { id: ids.editor, value: 'vim' },
      { id: ids.site, value: 'https://example.com/mia' },
      { id: ids.mentor, value: [other.userId] },
      { id: ids.github, value: 'mia' },
      { id: ids.pronouns, value: 'she/her' },
    ],
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const evs = await queuedEvents(other, q);
  assert.equal(evs.length, 7);
  const bioEvent = evs.find((e: any) => e.person.custom_profile_field.id === ids.bio);
  assert.deepEqual(Object.keys(bioEvent.person).sort(), ['custom_profile_field', 'user_id']);
  assert.equal(bioEvent.person.user_id, member.userId);
  assert.match(bioEvent.person.custom_profile_field.rendered_value, /<strong>bold<\/strong>/);
  const editorEvent = evs.find((e: any) => e.person.custom_profile_field.id === ids.editor);
  assert.deepEqual(editorEvent.person.custom_profile_field, { id: ids.editor, value: 'vim' });

  const me = (await member.get('/users/me')).body.profile_data;
  assert.deepEqual(me[String(ids.editor)], { value: 'vim' });
  assert.deepEqual(JSON.parse(me[String(ids.mentor)].value), [other.userId]);
  assert.equal(me[String(ids.phone)].value, '+1 555 0100');
  const one = await other.get(`/users/${member.userId}`, { include_custom_profile_fields: true });
  assert.deepEqual(one.body.user.profile_data, me);
  const all = await other.get('/users', { include_custom_profile_fields: true });
  assert.deepEqual(all.body.members.find((u: any) => u.user_id === member.userId).profile_data, me);
  assert.equal((await other.get('/users')).body.members[0].profile_data, undefined, 'only when asked for');
  const reg = await other.post('/register', { fetch_event_types: ['realm_user'] });
  assert.deepEqual(reg.body.realm_users.find((u: any) => u.user_id === member.userId).profile_data, me);

  // Setting the same value again says nothing.
  const q2 = await openQueue(other, ['realm_user']);
  assert.equal((await member.patch('/users/me/profile_data', { data: [{ id: ids.editor, value: 'vim' }] })).status, 200);
  assert.deepEqual(await queuedEvents(other, q2), []);

  const bad = async (data: unknown, msg: string) => {
    const r = await member.patch('/users/me/profile_data', { data } as any);
    assert.deepEqual([r.status, r.body.msg], [400, msg], JSON.stringify(data));
  };
  await bad([{ id: ids.phone, value: 'x'.repeat(51) }], 'Phone number is too long (limit: 50 characters)');
  await bad([{ id: ids.bio, value: 'x'.repeat(501) }], 'Biography is too long (limit: 500 characters)');
  await bad([{ id: ids.editor, value: 'notepad' }], "'notepad' is not a valid choice for 'Editor'.");
  await bad([{ id: ids.site, value: 'not a url' }], 'Website is not a URL');
  // check_valid_user_ids names the list "User IDs" and every unknown id at once.
  await bad([{ id: ids.mentor, value: [999999, other.userId, 999998] }], 'Invalid user IDs: 999999, 999998');
  await bad([{ id: ids.mentor, value: 'me' }], 'User IDs is not a list');
  const botMentor = await other.post('/bots', { full_name: 'Mentor Bot', short_name: 'mentorbot' });
  await bad([{ id: ids.mentor, value: [botMentor.body.user_id] }], `User with ID ${botMentor.body.user_id} is a bot`);
  await bad([{ id: ids.phone, value: 5 }], 'Phone number is not a string');
  await bad([{ id: 999999, value: 'x' }], 'Field id 999999 not found.');
  await bad([{ id: ids.birthday, value: '2000-01-01' }], 'You are not allowed to change this field. Contact an administrator to update it.');
  // Nothing was written by a request that failed part-way.
  await bad([{ id: ids.pronouns, value: 'they/them' }, { id: ids.site, value: 'nope' }], 'Website is not a URL');
  assert.equal((await member.get('/users/me')).body.profile_data[String(ids.pronouns)].value, 'she/her');
  assert.equal((await member.patch('/users/me/profile_data', { data: 'x' })).status, 400);
  assert.equal((await member.patch('/users/me/profile_data', {})).body.code, 'REQUEST_VARIABLE_MISSING');
});

test('clearing values; administrators edit anyone, dates checked; bots have no profile', async () => {
  const q = await openQueue(other, ['realm_user']);
  assert.equal((await member.delete('/users/me/profile_data', { data: [ids.pronouns, ids.custom] })).status, 200);
  const evs = await queuedEvents(other, q);
  assert.deepEqual(evs.map((e: any) => e.person.custom_profile_field), [{ id: ids.pronouns, value: null }], 'only a value that existed is announced');
  assert.equal((await member.get('/users/me')).body.profile_data[String(ids.pronouns)], undefined);
  assert.equal((await member.delete('/users/me/profile_data', { data: [999999] })).body.msg, 'Field id 999999 not found.');
  assert.equal((await member.delete('/users/me/profile_data', { data: [ids.birthday] })).status, 400);

  const byAdmin = await admin.patch(`/users/${member.userId}`, { profile_data: [{ id: ids.birthday, value: '1990-02-28' }] });
  assert.equal(byAdmin.status, 200, JSON.stringify(byAdmin.body));
  assert.equal((await member.get('/users/me')).body.profile_data[String(ids.birthday)].value, '1990-02-28');
  assert.equal((await admin.patch(`/users/${member.userId}`, { profile_data: [{ id: ids.birthday, value: '1990-02-30' }] })).body.msg, 'Birthday is not a date');
  assert.equal((await member.patch(`/users/${other.userId}`, { profile_data: [{ id: ids.phone, value: '1' }] })).status, 400);
  // One request, one transaction: a bad value keeps the new name from being written too.
  const mixed = await admin.patch(`/users/${member.userId}`, { full_name: 'Mia Renamed', profile_data: [{ id: ids.site, value: 'nope' }] });
  assert.deepEqual([mixed.status, mixed.body.msg], [400, 'Website is not a URL']);
  assert.equal((await member.get('/users/me')).body.full_name, 'Mia Member');
  const both = await admin.patch(`/users/${member.userId}`, { full_name: 'Mia Renamed', profile_data: [{ id: ids.site, value: 'https://mia.example.com' }] });
  assert.equal(both.status, 200);
  const renamed = (await member.get('/users/me')).body;
  assert.deepEqual([renamed.full_name, renamed.profile_data[String(ids.site)].value], ['Mia Renamed', 'https://mia.example.com']);

  // A dropdown that loses a choice loses the values that named it.
  assert.equal((await other.patch('/users/me/profile_data', { data: [{ id: ids.editor, value: 'emacs' }] })).status, 200);
  assert.equal((await other.get('/users/me')).body.profile_data[String(ids.editor)].value, 'emacs');
  assert.equal((await admin.patch(`/realm/profile_fields/${ids.editor}`, { field_data: { vim: { text: 'Vim', order: '1' } } })).status, 200);
  assert.equal((await other.get('/users/me')).body.profile_data[String(ids.editor)], undefined);
  assert.equal((await member.get('/users/me')).body.profile_data[String(ids.editor)].value, 'vim');

  const bot = await member.post('/bots', { full_name: 'Profile Bot', short_name: 'profiler' });
  const botClient = new Client(t.url, (await member.get(`/users/${bot.body.user_id}`)).body.user.email, bot.body.api_key, bot.body.user_id);
  const botTry = await botClient.patch('/users/me/profile_data', { data: [{ id: ids.phone, value: '1' }] });
  assert.deepEqual([botTry.status, botTry.body.msg], [400, 'This endpoint does not accept bot requests.']);
});

test("an empty value: one's own PATCH /users/me/profile_data stores it (Zulip's update_user_custom_profile_data), an administrator's PATCH /users/{id} clears the field (check_remove_custom_profile_field_value)", async () => {
  assert.equal((await member.patch('/users/me/profile_data', { data: [{ id: ids.pronouns, value: 'he/him' }] })).status, 200);
  const q = await openQueue(other, ['realm_user']);
  assert.equal((await member.patch('/users/me/profile_data', { data: [{ id: ids.pronouns, value: '' }] })).status, 200);
  assert.deepEqual((await queuedEvents(other, q)).map((e: any) => e.person.custom_profile_field), [{ id: ids.pronouns, value: '' }]);
  assert.equal((await member.get('/users/me')).body.profile_data[String(ids.pronouns)].value, '');
  // Empty is still checked as a value of its type.
  const noUrl = await member.patch('/users/me/profile_data', { data: [{ id: ids.site, value: '' }] });
  assert.deepEqual([noUrl.status, noUrl.body.msg], [400, 'Website is not a URL']);

  const q2 = await openQueue(other, ['realm_user']);
  const cleared = await admin.patch(`/users/${member.userId}`, { profile_data: [{ id: ids.pronouns, value: '' }, { id: ids.site, value: '' }] });
  assert.equal(cleared.status, 200, JSON.stringify(cleared.body));
  assert.deepEqual(
    (await queuedEvents(other, q2)).map((e: any) => e.person),
    [
      { user_id: member.userId, custom_profile_field: { id: ids.pronouns, value: null } },
      { user_id: member.userId, custom_profile_field: { id: ids.site, value: null } },
    ],
  );
  const after = (await member.get('/users/me')).body.profile_data;
  assert.deepEqual([after[String(ids.pronouns)], after[String(ids.site)]], [undefined, undefined]);
});
