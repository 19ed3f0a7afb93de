// PATCH /settings: validation of every kind of setting, events, the state in /register, drafts
// synchronization turning off, password and name changes, and administrators' bulk edits.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client as ApiClient, rawRequest, startTestServer, type Client, type TestServer } from './helpers.js';

let t: TestServer;
let member: Client;
before(async () => {
  t = await startTestServer();
  member = await t.createUser({ name: 'Sam Settings' });
});
after(async () => {
  await t.close();
});

async function settingsOf(c: Client) {
  return (await c.post('/register', { fetch_event_types: ['user_settings'] })).body.user_settings;
}

test('settings change, come back in /register, and are announced to the user', async () => {
  const reg = await member.post('/register', { event_types: ['user_settings'], fetch_event_types: ['user_settings'] });
  const res = await member.patch('/settings', { twenty_four_hour_time: true, color_scheme: 2, web_home_view: 'recent_topics', emojiset: 'text', timezone: 'Europe/Berlin' });
  assert.equal(res.status, 200);
  const s = await settingsOf(member);
  assert.equal(s.twenty_four_hour_time, true);
  assert.equal(s.color_scheme, 2);
  assert.equal(s.web_home_view, 'recent', 'the legacy name is stored as the new one');
  assert.equal(s.emojiset, 'text');
  assert.equal(s.timezone, 'Europe/Berlin');
  const evs = (await member.get('/events', { queue_id: reg.body.queue_id, last_event_id: -1, dont_block: true })).body.events;
  const props = evs.map((e: any) => [e.property, e.value]);
  assert.deepEqual(props.sort(), [['color_scheme', 2], ['emojiset', 'text'], ['timezone', 'Europe/Berlin'], ['twenty_four_hour_time', true], ['web_home_view', 'recent']].sort());
  const alias = await member.patch('/settings/display', { left_side_userlist: true });
  assert.equal(alias.status, 200);
  const alias2 = await member.patch('/settings/notifications', { enable_sounds: false });
  assert.equal(alias2.status, 200);
  const after = await settingsOf(member);
  assert.equal(after.left_side_userlist, true);
  assert.equal(after.enable_sounds, false);
});

test('out-of-range and malformed values are refused, naming the parameter', async () => {
  const cases: Array<[string, unknown]> = [
    ['color_scheme', 4],
    ['web_channel_default_view', 3],
    ['web_mark_read_on_scroll_policy', 0],
    ['web_font_size_px', 200],
    ['email_notifications_batching_period_seconds', 5],
    ['web_animate_image_previews', 'sometimes'],
    ['emojiset', 'comic-sans'],
    ['default_language', 'klingon'],
    ['timezone', 'Mars/Olympus_Mons'],
    ['twenty_four_hour_time', 'yes'],
    ['demote_inactive_streams', 'two'],
  ];
  for (const [name, value] of cases) {
    const res = await member.patch('/settings', { [name]: value as string });
    assert.equal(res.status, 400, `${name}=${String(value)}`);
    assert.equal(res.body.code, 'BAD_REQUEST');
    assert.match(res.body.msg, name === 'timezone' ? /time zone/ : new RegExp(name), `${name}: ${res.body.msg}`);
  }
  const unknown = await member.patch('/settings', { no_such_setting: 'x' });
  assert.deepEqual(unknown.body.ignored_parameters_unsupported, ['no_such_setting']);
});

test('turning drafts synchronization off deletes the stored drafts', async () => {
  const created = await member.post('/drafts', { drafts: [{ type: '', to: [], topic: '', content: 'keep me?' }] });
  assert.equal(created.status, 200);
  assert.equal((await member.get('/drafts')).body.count, 1);
  const off = await member.patch('/settings', { enable_drafts_synchronization: false });
  assert.equal(off.status, 200);
  const denied = await member.get('/drafts');
  assert.equal(denied.status, 400);
  const on = await member.patch('/settings', { enable_drafts_synchronization: true });
  assert.equal(on.status, 200);
  assert.equal((await member.get('/drafts')).body.count, 0, 'the drafts were deleted, not hidden');
});

test('full_name and password changes', async () => {
  const reg = await t.owner.post('/register', { event_types: ['realm_user'], fetch_event_types: ['realm_user'] });
  const rename = await member.patch('/settings', { full_name: 'Samantha Settings' });
  assert.equal(rename.status, 200);
  const evs = (await t.owner.get('/events', { queue_id: reg.body.queue_id, last_event_id: -1, dont_block: true })).body.events;
  assert.ok(evs.some((e: any) => e.type === 'realm_user' && e.person.user_id === member.userId && e.person.full_name === 'Samantha Settings'));
  const blank = await member.patch('/settings', { full_name: ' ' });
  assert.equal(blank.status, 400);

  // The owner has a password; change it and log in with the new one.
  // Zulip's json_change_settings authenticates with old_password: a wrong or a missing one is
  // 'Wrong password!', checked before the name; an old password alone changes nothing.
  const wrong = await t.owner.patch('/settings', { old_password: 'not it', new_password: 'new-owner-pass' });
  assert.deepEqual([wrong.status, wrong.body.code, wrong.body.msg], [400, 'BAD_REQUEST', 'Wrong password!']);
  const onlyNew = await t.owner.patch('/settings', { new_password: 'new-owner-pass' });
  assert.deepEqual([onlyNew.status, onlyNew.body.code, onlyNew.body.msg], [400, 'BAD_REQUEST', 'Wrong password!']);
  const withBadName = await t.owner.patch('/settings', { full_name: ' ', old_password: 'not it', new_password: 'new-owner-pass' });
  assert.deepEqual([withBadName.status, withBadName.body.msg], [400, 'Wrong password!'], 'the password is checked before the name');
  // And before the new address (validate_email_change_request comes after the password there).
  const withBadEmail = await t.owner.patch('/settings', { email: 'not an address', old_password: 'not it', new_password: 'new-owner-pass' });
  assert.deepEqual([withBadEmail.status, withBadEmail.body.msg], [400, 'Wrong password!'], 'the password is checked before the address');
  const weakWithBadEmail = await t.owner.patch('/settings', { email: 'not an address', old_password: 'owner-password', new_password: 'abc' });
  assert.deepEqual([weakWithBadEmail.status, weakWithBadEmail.body.msg], [400, 'New password is too weak!']);
  const onlyOld = await t.owner.patch('/settings', { old_password: 'not it' });
  assert.deepEqual([onlyOld.status, onlyOld.body.result], [200, 'success'], 'an old password alone is ignored');
  const weak = await t.owner.patch('/settings', { old_password: 'owner-password', new_password: 'abc' });
  assert.deepEqual([weak.status, weak.body.msg], [400, 'New password is too weak!'], "json_change_settings' text");
  const ok = await t.owner.patch('/settings', { old_password: 'owner-password', new_password: 'new-owner-pass' });
  assert.equal(ok.status, 200);
  const login = (password: string) =>
    rawRequest(t.url, 'POST', '/fetch_api_key', {
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ username: t.owner.email, password }).toString(),
    });
  assert.equal((await login('new-owner-pass')).status, 200);
  assert.equal((await login('owner-password')).status, 401);
});

test('target_users: administrators edit others in bulk; skip_if_already_edited respects choices', async () => {
  const a = await t.createUser({ name: 'Bulk A' });
  const b = await t.createUser({ name: 'Bulk B' });
  assert.equal((await b.patch('/settings', { enter_sends: false, web_font_size_px: 18 })).status, 200);
  const denied = await member.patch('/settings', { enter_sends: true, target_users: { user_ids: [a.userId] } });
  assert.equal(denied.status, 400);
  const res = await t.owner.patch('/settings', { enter_sends: true, web_font_size_px: 14, target_users: { user_ids: [a.userId, b.userId], skip_if_already_edited: true } });
  assert.equal(res.status, 200);
  assert.equal((await settingsOf(a)).enter_sends, true);
  assert.equal((await settingsOf(a)).web_font_size_px, 14);
  assert.equal((await settingsOf(b)).enter_sends, false, 'B chose this setting themselves');
  assert.equal((await settingsOf(b)).web_font_size_px, 18);
  const groups = (await t.owner.get('/user_groups')).body.user_groups;
  const members = groups.find((g: any) => g.name === 'role:members').id;
  const everyone = await t.owner.patch('/settings', { high_contrast_mode: true, target_users: { group_ids: [members] } });
  assert.equal(everyone.status, 200);
  assert.equal((await settingsOf(a)).high_contrast_mode, true);
  assert.equal((await settingsOf(member)).high_contrast_mode, true);
  const badUser = await t.owner.patch('/settings', { enter_sends: true, target_users: { user_ids: [999999] } });
  assert.equal(badUser.status, 400);
  const badGroup = await t.owner.patch('/settings', { enter_sends: true, target_users: { group_ids: [999999] } });
  assert.equal(badGroup.status, 400);
  // A name is not a setting: Zulip's json_change_settings leaves it alone for others.
  const nameForOthers = await t.owner.patch('/settings', { full_name: 'Everyone', target_users: { user_ids: [a.userId] } });
  assert.equal(nameForOthers.status, 200);
  assert.equal((await a.get('/users/me')).body.full_name, 'Bulk A');
});

test("target_users as Zulip's json_change_settings: what may not change for others, which users count", async () => {
  const c = await t.createUser({ name: 'Bulk C' });
  const gone = await t.createUser({ name: 'Bulk Gone' });
  const refused = async (params: Record<string, unknown>) => {
    const res = await t.owner.patch('/settings', { ...params, target_users: { user_ids: [c.userId] } });
    assert.deepEqual([res.status, res.body.msg], [400, 'Cannot change this setting for other users.'], JSON.stringify(params));
  };
  await refused({ email: 'someone-else@example.com' });
  await refused({ new_password: 'a-new-long-password' });
  await refused({ timezone: 'Europe/Paris' });
  await refused({ presence_enabled: false });
  await refused({ send_read_receipts: false, enter_sends: true });
  await refused({ email_address_visibility: 5 });
  const none = await t.owner.patch('/settings', { enter_sends: true, target_users: { user_ids: [] } });
  assert.equal(none.body.msg, 'Either user_ids or group_ids must be provided.');
  const missing = await t.owner.patch('/settings', { enter_sends: true, target_users: { user_ids: [999999] } });
  assert.equal(missing.body.msg, 'Invalid user ID: 999999');
  // A deactivated user's settings change too, so they hold if the account comes back.
  assert.equal((await t.owner.delete(`/users/${gone.userId}`)).status, 200);
  assert.equal((await t.owner.patch('/settings', { enter_sends: true, target_users: { user_ids: [gone.userId] } })).status, 200);
  assert.equal((await t.owner.post(`/users/${gone.userId}/reactivate`)).status, 200);
  assert.equal((await settingsOf(gone)).enter_sends, true);
});

test('a name and a time zone changed together: the name event first, the time zone last (json_change_settings)', async () => {
  const changer = await t.createUser({ name: 'Tia Timezone' });
  const q = (await t.owner.post('/register', { event_types: ['realm_user'], fetch_event_types: ['realm_user'] })).body.queue_id;
  assert.equal((await changer.patch('/settings', { timezone: 'Europe/Paris', full_name: 'Tia Renamed' })).status, 200);
  const evs = (await t.owner.get('/events', { queue_id: q, last_event_id: -1, dont_block: true })).body.events;
  assert.deepEqual(evs.map((e: any) => Object.keys(e.person).sort().join(',')), ['full_name,user_id', 'email,timezone,user_id']);
});

test('email change of a hidden address: delivery_email to those who may see it, the avatar, no new_email (do_change_user_delivery_email)', async () => {
  const { readdirSync, readFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const changer = await t.createUser({ name: 'Hal Hidden', email: 'hal.old@example.com' });
  assert.equal((await changer.patch('/settings', { email_address_visibility: 3 })).status, 200);
  assert.equal((await changer.patch('/settings', { email: 'hal.new@example.com' })).status, 200);
  const outbox = t.server.services.config.outboxDir;
  const mails = readdirSync(outbox).sort().map((f) => readFileSync(join(outbox, f), 'utf8')).filter((m) => /^To: hal\.new@example\.com/m.test(m));
  const link = /(http:\/\/\S+\/accounts\/confirm_new_email\/[0-9a-f]+)/.exec(mails[mails.length - 1]!)?.[1];
  assert.ok(link);
  const ownerQ = (await t.owner.post('/register', { event_types: ['realm_user'], fetch_event_types: ['realm_user'] })).body.queue_id;
  const memberQ = (await member.post('/register', { event_types: ['realm_user'], fetch_event_types: ['realm_user'] })).body.queue_id;
  assert.equal((await fetch(link)).status, 200);
  const keysOf = async (c: Client, q: string) =>
    (await c.get('/events', { queue_id: q, last_event_id: -1, dont_block: true })).body.events.filter((e: any) => e.person?.user_id === changer.userId).map((e: any) => Object.keys(e.person).sort().join(','));
  // An administrator may see an address visible to administrators: the new one, then the avatar.
  assert.deepEqual(await keysOf(t.owner, ownerQ), ['delivery_email,user_id', 'avatar_source,avatar_url,avatar_url_medium,avatar_version,user_id']);
  // A member may not: the avatar only, and the API address (user{id}@...) has not changed.
  assert.deepEqual(await keysOf(member, memberQ), ['avatar_source,avatar_url,avatar_url_medium,avatar_version,user_id']);
});

test('email change: a link goes to the new address; the address changes only when it is followed', async () => {
  const { readdirSync, readFileSync, existsSync } = await import('node:fs');
  const { join } = await import('node:path');
  const changer = await t.createUser({ name: 'Cam Changer', email: 'cam.old@example.com' });
  const outbox = t.server.services.config.outboxDir;
  const before = existsSync(outbox) ? readdirSync(outbox).length : 0;
  const res = await changer.patch('/settings', { email: 'cam.new@example.com' });
  assert.equal(res.status, 200);
  assert.equal((await changer.get('/users/me')).body.email, 'cam.old@example.com', 'nothing changes before the link is followed');
  const files = readdirSync(outbox).sort();
  assert.equal(files.length, before + 1);
  const mail = readFileSync(join(outbox, files[files.length - 1]!), 'utf8');
  assert.match(mail, /^To: cam\.new@example\.com/m);
  const link = /(http:\/\/\S+\/accounts\/confirm_new_email\/[0-9a-f]+)/.exec(mail)?.[1];
  assert.ok(link, mail);
  const reg = await t.owner.post('/register', { event_types: ['realm_user'], fetch_event_types: ['realm_user'] });
  const page = await fetch(link);
  assert.equal(page.status, 200);
  assert.match(await page.text(), /cam\.new@example\.com/);
  const moved = new (changer.constructor as any)(t.url, 'cam.new@example.com', changer.apiKey, changer.userId);
  assert.equal((await moved.get('/users/me')).body.email, 'cam.new@example.com');
  assert.equal((await changer.get('/users/me')).status, 401, 'the old address no longer authenticates');
  const evs = (await t.owner.get('/events', { queue_id: reg.body.queue_id, last_event_id: -1, dont_block: true })).body.events;
  assert.ok(evs.some((e: any) => e.person?.new_email === 'cam.new@example.com'));
  assert.equal((await fetch(link)).status, 404, 'a link works once');
  // validate_email_change_request's words: an address in use, a deactivated account's, a bad one.
  const taken = await moved.patch('/settings', { email: t.owner.email });
  assert.deepEqual([taken.status, taken.body.msg], [400, 'Already has an account.']);
  const gone = await t.createUser({ name: 'Gil Gone', email: 'gil.gone@example.com' });
  assert.equal((await t.owner.delete(`/users/${gone.userId}`)).status, 200);
  assert.equal((await moved.patch('/settings', { email: 'Gil.Gone@example.com' })).body.msg, 'Account has been deactivated.');
  const invalid = await moved.patch('/settings', { email: 'not an email' });
  assert.deepEqual([invalid.status, invalid.body.msg], [400, 'Invalid address.']);
  // With address changes disabled, a member is refused before the address is looked at.
  assert.equal((await t.owner.patch('/realm', { email_changes_disabled: true })).status, 200);
  assert.equal((await moved.patch('/settings', { email: 'not an email' })).body.msg, 'Email address changes are disabled in this organization.');
  assert.equal((await t.owner.patch('/realm', { email_changes_disabled: false })).status, 200);
  assert.equal((await fetch(`${t.url}/accounts/confirm_new_email/${'0'.repeat(48)}`)).status, 404);
});

test("bots may not change settings (Zulip's json_change_settings is @human_users_only)", async () => {
  const made = await member.post('/bots', { full_name: 'Settings Bot', short_name: 'settingsbot' });
  const email = (await member.get(`/users/${made.body.user_id}`)).body.user.email;
  const bot = new ApiClient(t.url, email, made.body.api_key, made.body.user_id);
  for (const path of ['/settings', '/settings/display', '/settings/notifications']) {
    const res = await bot.patch(path, { twenty_four_hour_time: true });
    assert.deepEqual([res.status, res.body.code, res.body.msg], [400, 'BAD_REQUEST', 'This endpoint does not accept bot requests.'], path);
  }
  assert.equal((await bot.patch('/settings', { full_name: 'Renamed Bot' })).body.msg, 'This endpoint does not accept bot requests.');
});

test("full_name as Zulip's json_change_settings: no change, name changes disabled, unique names", async () => {
  const pat = await t.createUser({ name: 'Pat Plain' });
  // The current name again is no change, even where it would not pass today's checks.
  assert.equal((await pat.patch('/settings', { full_name: 'Pat Plain' })).status, 200);
  // With name changes disabled, a member's new name is ignored silently; an administrator's applies.
  assert.equal((await t.owner.patch('/realm', { name_changes_disabled: true })).status, 200);
  const ignored = await pat.patch('/settings', { full_name: 'Pat Renamed' });
  assert.deepEqual([ignored.status, ignored.body.msg], [200, '']);
  assert.equal((await pat.get('/users/me')).body.full_name, 'Pat Plain');
  assert.equal((await t.owner.patch('/settings', { full_name: 'Olive Owner' })).status, 200);
  assert.equal((await t.owner.get('/users/me')).body.full_name, 'Olive Owner');
  assert.equal((await t.owner.patch('/realm', { name_changes_disabled: false })).status, 200);
  // check_change_full_name enforces require_unique_names (one's own name aside).
  assert.equal((await t.owner.patch('/realm', { require_unique_names: true })).status, 200);
  const taken = await pat.patch('/settings', { full_name: 'olive owner' });
  assert.deepEqual([taken.status, taken.body.msg], [400, 'Unique names required in this organization.']);
  assert.equal((await pat.patch('/settings', { full_name: 'Pat Unique' })).status, 200);
  assert.equal((await t.owner.patch('/realm', { require_unique_names: false })).status, 200);
});

test("default_language's events carry language_name as Zulip's get_language_name gives it for English", async () => {
  const reg = await member.post('/register', { event_types: ['user_settings', 'update_display_settings'] });
  assert.equal((await member.patch('/settings', { default_language: 'de' })).status, 200);
  assert.equal((await member.patch('/settings', { default_language: 'en' })).status, 200);
  const evs = (await member.get('/events', { queue_id: reg.body.queue_id, last_event_id: -1, dont_block: true })).body.events;
  const english = evs.filter((e: any) => e.type === 'user_settings' && e.property === 'default_language' && e.value === 'en');
  assert.deepEqual(english.map((e: any) => e.language_name), ['English']);
});

test("default_language takes the codes of Zulip's get_available_language_codes (its locale directories, as Django's to_language names them), for a user and for the organization", async () => {
  for (const code of ['cy', 'bqi', 'zh-hans', 'en-gb', 'en']) {
    const res = await member.patch('/settings', { default_language: code });
    assert.equal(res.status, 200, `${code}: ${JSON.stringify(res.body)}`);
  }
  for (const code of ['he', 'zh_Hans', 'EN', 'en-us']) {
    const res = await member.patch('/settings', { default_language: code });
    assert.deepEqual([res.status, res.body.msg], [400, 'Invalid default_language'], code);
  }
  const realmBefore = (await t.owner.post('/register', { fetch_event_types: ['realm'] })).body.realm_default_language;
  try {
    assert.equal((await t.owner.patch('/realm', { default_language: 'cy' })).status, 200);
    const refused = await t.owner.patch('/realm', { default_language: 'he' });
    assert.deepEqual([refused.status, refused.body.msg], [400, "Invalid language 'he'"]);
  } finally {
    await t.owner.patch('/realm', { default_language: realmBefore });
  }
});
