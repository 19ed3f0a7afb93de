// User status: set text and emoji (partial updates), clear, away as presence_enabled, read one
// user's status, administrators set others', user_status events and /register state.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type Client, openQueue, queuedEvents, testServerFor } from './helpers.js';

const t = testServerFor({ ann: { name: 'Ann Status' }, bob: { name: 'Bob Watcher' }, admin: { name: 'Ada Admin', role: 'administrator' } });

test('user status: set, change one part, read back, events, /register, clear', async () => {
  const q = await openQueue(t.bob, ['user_status']);
  const res = await t.ann.post('/users/me/status', { status_text: '  out to lunch ', emoji_name: 'car' });
  assert.equal(res.status, 200);
  assert.deepEqual((await t.bob.get(`/users/${t.ann.userId}/status`)).body.status, {
    status_text: 'out to lunch',
    emoji_name: 'car',
    emoji_code: '1f697',
    reaction_type: 'unicode_emoji',
  });
  // Only what is passed changes.
  assert.equal((await t.ann.post('/users/me/status', { status_text: 'in a meeting' })).status, 200);
  assert.equal((await t.bob.get(`/users/${t.ann.userId}/status`)).body.status.emoji_name, 'car');
  assert.equal((await t.ann.post('/users/me/status', { emoji_name: 'thumbs_up', emoji_code: '1f44d', reaction_type: 'unicode_emoji' })).status, 200);
  const evs = await queuedEvents(t.bob, q);
  assert.deepEqual(
    evs.map((e: any) => ({ ...e, id: undefined })),
    [
      { id: undefined, type: 'user_status', user_id: t.ann.userId, status_text: 'out to lunch', emoji_name: 'car', emoji_code: '1f697', reaction_type: 'unicode_emoji' },
      { id: undefined, type: 'user_status', user_id: t.ann.userId, status_text: 'in a meeting' },
      { id: undefined, type: 'user_status', user_id: t.ann.userId, emoji_name: 'thumbs_up', emoji_code: '1f44d', reaction_type: 'unicode_emoji' },
    ],
  );
  const state = await t.bob.post('/register', { fetch_event_types: ['user_status'] });
  assert.deepEqual(state.body.user_status, {
    [String(t.ann.userId)]: { status_text: 'in a meeting', emoji_name: 'thumbs_up', emoji_code: '1f44d', reaction_type: 'unicode_emoji' },
  });
  // Clearing both leaves no status at all.
  assert.equal((await t.ann.post('/users/me/status', { status_text: '', emoji_name: '' })).status, 200);
  assert.deepEqual((await t.bob.get(`/users/${t.ann.userId}/status`)).body.status, {});
  assert.deepEqual((await t.bob.post('/register', { fetch_event_types: ['user_status'] })).body.user_status, {});
  const last = (await queuedEvents(t.bob, q)).pop();
  assert.deepEqual({ ...last, id: undefined }, { id: undefined, type: 'user_status', user_id: t.ann.userId, status_text: '', emoji_name: '', emoji_code: '', reaction_type: 'unicode_emoji' });
});

test('user status: away is the inverse of presence_enabled', async () => {
  const q = await openQueue(t.ann, ['user_settings']);
  assert.equal((await t.ann.post('/users/me/status', { away: true })).status, 200);
  assert.deepEqual((await t.bob.get(`/users/${t.ann.userId}/status`)).body.status, { away: true });
  const settings = await t.ann.post('/register', { fetch_event_types: ['user_settings', 'user_status'] });
  assert.equal(settings.body.user_settings.presence_enabled, false);
  assert.deepEqual(settings.body.user_status[String(t.ann.userId)], { away: true });
  const evs = await queuedEvents(t.ann, q);
  assert.ok(evs.some((e: any) => e.type === 'user_settings' && e.property === 'presence_enabled' && e.value === false));
  assert.equal((await t.ann.post('/users/me/status', { away: false })).status, 200);
  assert.deepEqual((await t.bob.get(`/users/${t.ann.userId}/status`)).body.status, {});
});

test('user status: errors', async () => {
  const none = await t.ann.post('/users/me/status', {});
  assert.deepEqual([none.status, none.body.msg], [400, 'Client did not pass any new values.']);
  const long = await t.ann.post('/users/me/status', { status_text: 'x'.repeat(61) });
  assert.deepEqual([long.status, long.body.msg], [400, 'status_text is too long (limit: 60 characters)']);
  assert.equal((await t.ann.post('/users/me/status', { status_text: 'é'.repeat(60) })).status, 200);
  const codeOnly = await t.ann.post('/users/me/status', { status_text: 'driving', emoji_code: '1f697' });
  assert.equal(codeOnly.body.msg, 'Client must pass emoji_name if they pass either emoji_code or reaction_type.');
  assert.equal((await t.ann.post('/users/me/status', { emoji_name: 'invalid' })).body.msg, "Emoji 'invalid' does not exist");
  assert.equal((await t.ann.post('/users/me/status', { emoji_name: 'car', emoji_code: '1f419', reaction_type: 'unicode_emoji' })).body.msg, 'Invalid emoji name.');
  assert.equal((await t.ann.post('/users/me/status', { emoji_name: 'car', emoji_code: '1', reaction_type: 'realm_emoji' })).body.msg, 'Invalid custom emoji.');
  assert.equal((await t.ann.post('/users/me/status', { emoji_name: 'car', reaction_type: 'nope' })).body.msg, 'Invalid emoji type.');
  assert.equal((await t.ann.post('/users/me/status', { away: 'maybe' })).status, 400);
  const missing = await t.bob.get('/users/999999/status');
  assert.deepEqual([missing.status, missing.body.msg], [400, 'No such user']);
  assert.equal((await t.bob.get('/users/abc/status')).body.msg, 'No such user');
});

test('user status: administrators set another user\'s status; others may not', async () => {
  const q = await openQueue(t.bob, ['user_status']);
  const denied = await t.bob.post(`/users/${t.ann.userId}/status`, { status_text: 'hijacked' });
  assert.deepEqual([denied.status, denied.body.code, denied.body.msg], [400, 'BAD_REQUEST', 'Insufficient permission']);
  assert.equal((await t.admin.post(`/users/${t.ann.userId}/status`, { status_text: 'on vacation', emoji_name: 'palm_tree' })).status, 200);
  const status = (await t.bob.get(`/users/${t.ann.userId}/status`)).body.status;
  assert.equal(status.status_text, 'on vacation');
  assert.equal(status.emoji_name, 'palm_tree');
  const evs = await queuedEvents(t.bob, q);
  assert.deepEqual([evs[0].type, evs[0].user_id, evs[0].status_text], ['user_status', t.ann.userId, 'on vacation']);
  assert.equal((await t.admin.post(`/users/${t.ann.userId}/status`, {})).body.msg, 'Client did not pass any new values.');
  assert.equal((await t.admin.post('/users/999999/status', { status_text: 'x' })).body.msg, 'No such user');
});

test('user status: a guest who may not see a user gets neither their status nor its events', async () => {
  const guest = await t.createUser({ name: 'Gus Guest', role: 'guest' });
  const groups = Object.fromEntries((await t.admin.get('/user_groups')).body.user_groups.map((g: any) => [g.name, g.id]));
  assert.equal((await t.owner.patch('/realm', { can_access_all_users_group: JSON.stringify({ new: groups['role:members'] }) })).status, 200);
  const q = await openQueue(guest, ['user_status']);
  assert.equal((await t.bob.post('/users/me/status', { status_text: 'hidden from guests' })).status, 200);
  assert.deepEqual(await queuedEvents(guest, q), []);
  // Zulip's get_status_backend (access_user_by_id): 'Insufficient permission' for a user one may
  // not see (their id is in the guest's /register, as an "Unknown user"); a missing one is no such
  // user; a hidden deactivated one is refused the same way, since the placeholder passes for active.
  const hidden = await guest.get(`/users/${t.bob.userId}/status`);
  assert.deepEqual([hidden.status, hidden.body.code, hidden.body.msg], [400, 'BAD_REQUEST', 'Insufficient permission']);
  assert.equal((await guest.get('/users/999999/status')).body.msg, 'No such user');
  const gone = await t.createUser({ name: 'Gone Hidden' });
  assert.equal((await t.owner.delete(`/users/${gone.userId}`)).status, 200);
  assert.equal((await guest.get(`/users/${gone.userId}/status`)).body.msg, 'Insufficient permission');
  const state = await guest.post('/register', { fetch_event_types: ['user_status'] });
  assert.equal(state.body.user_status[String(t.bob.userId)], undefined);
  assert.equal((await t.admin.get(`/users/${t.bob.userId}/status`)).body.status.status_text, 'hidden from guests');
  assert.equal((await t.owner.patch('/realm', { can_access_all_users_group: JSON.stringify({ new: groups['role:everyone'] }) })).status, 200);
});

test("user status: a deactivated user has none to show (access_user_by_id's 'User is deactivated')", async () => {
  const gone = await t.createUser({ name: 'Gone Soon' });
  assert.equal((await gone.post('/users/me/status', { status_text: 'leaving' })).status, 200);
  assert.equal((await t.owner.delete(`/users/${gone.userId}`)).status, 200);
  assert.deepEqual((await t.bob.get(`/users/${gone.userId}/status`)).body, { result: 'error', msg: 'User is deactivated', code: 'BAD_REQUEST' });
  assert.equal((await t.bob.post('/register', { fetch_event_types: ['user_status'] })).body.user_status[String(gone.userId)], undefined);
  assert.equal((await t.admin.post(`/users/${gone.userId}/status`, { status_text: 'x' })).body.msg, 'User is deactivated');
});

test("user status: bots, as Zulip's views/presence.py has it", async () => {
  const made = await t.ann.post('/bots', { full_name: 'Status Bot', short_name: 'statusbot' });
  const email = (await t.ann.get(`/users/${made.body.user_id}`)).body.user.email;
  const bot = new (t.ann.constructor as any)(t.url, email, made.body.api_key, made.body.user_id) as Client;
  // update_user_status_backend is @human_users_only.
  assert.deepEqual((await bot.post('/users/me/status', { status_text: 'beep' })).body.msg, 'This endpoint does not accept bot requests.');
  // A bot has no status to read or set (access_user_by_id with allow_bots=False).
  assert.equal((await t.bob.get(`/users/${made.body.user_id}/status`)).body.msg, 'No such user');
  assert.equal((await t.admin.post(`/users/${made.body.user_id}/status`, { status_text: 'x' })).body.msg, 'No such user');
  // The user is looked up before the caller's rights.
  assert.equal((await t.bob.post('/users/999999/status', { status_text: 'x' })).body.msg, 'No such user');
});
