// Bots: creating generic and incoming-webhook bots, who may, the address rule, and the events.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client, startTestServer, type TestServer, openQueue, queuedEvents } from './helpers.js';

let t: TestServer;
let member: Client;
let admin: Client;
let bystander: Client;
let domain: string;
before(async () => {
  t = await startTestServer();
  member = await t.createUser({ name: 'Mona Member' });
  admin = await t.createUser({ role: 'administrator', name: 'Adam Admin' });
  bystander = await t.createUser({ name: 'Bea Bystander' });
  domain = (await member.post('/register', { fetch_event_types: ['realm'] })).body.realm_bot_domain;
});
after(async () => {
  await t.close();
});

test('POST /bots: the caller owns a generic bot whose key works', async () => {
  const res = await member.post('/bots', { full_name: 'Helper Bot', short_name: 'helper' });
  assert.equal(res.status, 200);
  assert.equal(typeof res.body.user_id, 'number');
  assert.equal(typeof res.body.api_key, 'string');
  assert.equal(typeof res.body.avatar_url, 'string');
  assert.equal(res.body.default_sending_stream, null);
  assert.equal(res.body.default_events_register_stream, null);
  assert.equal(res.body.default_all_public_streams, false);

  const bot = (await member.get(`/users/${res.body.user_id}`)).body.user;
  assert.equal(bot.is_bot, true);
  assert.equal(bot.bot_owner_id, member.userId);
  assert.equal(bot.bot_type, 1);
  assert.equal(bot.role, 400);
  assert.equal(bot.email, `helper-bot@${domain}`, 'Zulip appends -bot to the short name, at the bot domain');
  const asBot = new Client(t.url, bot.email, res.body.api_key, res.body.user_id);
  const me = await asBot.get('/users/me');
  assert.equal(me.status, 200);
  assert.equal(me.body.is_bot, true);
  assert.equal('bot_type' in me.body, false, 'GET /users/me has no bot fields');
  const more = await asBot.post('/bots', { full_name: 'Bot Child', short_name: 'child' });
  assert.deepEqual([more.status, more.body.msg], [400, 'This endpoint does not accept bot requests.']);
});

test('POST /bots: realm_user to everyone, realm_bot to the owner and administrators only', async () => {
  const qOwner = await openQueue(member, ['realm_bot', 'realm_user']);
  const qAdmin = await openQueue(admin, ['realm_bot', 'realm_user']);
  const qOther = await openQueue(bystander, ['realm_bot', 'realm_user']);
  const res = await member.post('/bots', { full_name: 'Hook Bot', short_name: 'hook', bot_type: 2 });
  assert.equal(res.status, 200);
  for (const q of [[member, qOwner], [admin, qAdmin]] as const) {
    const evs = await queuedEvents(q[0], q[1]);
    const botEvent = evs.find((e) => e.type === 'realm_bot');
    assert.equal(botEvent.op, 'add');
    assert.deepEqual(
      { ...botEvent.bot, avatar_url: 'x' },
      {
        user_id: res.body.user_id,
        full_name: 'Hook Bot',
        api_key: res.body.api_key,
        default_sending_stream: null,
        default_events_register_stream: null,
        default_all_public_streams: false,
        avatar_url: 'x',
        owner_id: member.userId,
        services: [],
        email: `hook-bot@${domain}`,
        bot_type: 2,
        is_active: true,
      },
    );
    const add = evs.find((e) => e.type === 'realm_user');
    assert.equal(add.op, 'add');
    assert.equal(add.person.user_id, res.body.user_id);
    assert.equal(add.person.bot_type, 2);
    assert.equal(add.person.bot_owner_id, member.userId);
  }
  const others = await queuedEvents(bystander, qOther);
  assert.deepEqual(others.map((e) => e.type), ['realm_user'], 'bystanders hear of the user, not the bot details');
});

test('POST /bots: validation', async () => {
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ full_name: 'Helper Again', short_name: 'helper' }, 'Username already in use'],
    [{ full_name: 'Helper Bot', short_name: 'helper2' }, 'Name is already in use.'],
    [{ full_name: 'Spacey Bot', short_name: 'has space' }, 'Bad name or username'],
    [{ full_name: 'Blank Bot', short_name: '   ' }, 'Bad name or username'],
    [{ full_name: 'B', short_name: 'tiny' }, 'Name too short!'],
    [{ full_name: 'Star*Bot', short_name: 'star' }, 'Invalid characters in name!'],
    [{ full_name: 'Odd Bot', short_name: 'odd', bot_type: 9 }, 'Invalid bot type'],
    [{ full_name: 'Odd Bot', short_name: 'odd', bot_type: 'one' }, 'bot_type is not an integer'],
    [{ full_name: 'Out Bot', short_name: 'out', bot_type: 3, payload_url: JSON.stringify('not a url') }, 'payload_url is not a URL'],
    [{ full_name: 'Out Bot', short_name: 'out', bot_type: 3, payload_url: '"https://unterminated' }, 'payload_url is not valid JSON'],
    [{ full_name: 'Out Bot', short_name: 'out', bot_type: 3, payload_url: JSON.stringify('https://bots.example/hook'), interface_type: 7 }, 'Invalid interface type'],
    [{ full_name: 'Embedded Bot', short_name: 'emb', bot_type: 4 }, 'Embedded bots are not enabled.'],
  ];
  for (const [params, msg] of cases) {
    const res = await member.post('/bots', params as any);
    assert.deepEqual([res.status, res.body.result, res.body.msg], [400, 'error', msg], JSON.stringify(params));
  }
  const missing = await member.post('/bots', { full_name: 'No Short' });
  assert.deepEqual([missing.body.code, missing.body.var_name], ['REQUEST_VARIABLE_MISSING', 'short_name']);
});

test('POST /bots: guests never; members only while in can_create_bots_group', async () => {
  const guest = await t.createUser({ role: 'guest' });
  const byGuest = await guest.post('/bots', { full_name: 'Guest Bot', short_name: 'guestbot' });
  assert.deepEqual([byGuest.status, byGuest.body.msg], [400, 'Not allowed for guest users']);

  const groups = Object.fromEntries((await admin.get('/user_groups')).body.user_groups.map((g: any) => [g.name, g.id]));
  assert.equal((await admin.patch('/realm', { can_create_bots_group: { new: groups['role:administrators'] } })).status, 200);
  const denied = await member.post('/bots', { full_name: 'Denied Bot', short_name: 'denied' });
  assert.deepEqual([denied.status, denied.body.msg], [400, 'Insufficient permission']);
  // Incoming-webhook bots have their own, wider permission.
  assert.equal((await member.post('/bots', { full_name: 'Webhook Bot', short_name: 'webhook', bot_type: 2 })).status, 200);
  assert.equal((await admin.post('/bots', { full_name: 'Admin Bot', short_name: 'adminbot' })).status, 200);
  assert.equal((await admin.patch('/realm', { can_create_write_only_bots_group: { new: groups['role:nobody'] } })).status, 200);
  const hookDenied = await member.post('/bots', { full_name: 'Hook Denied', short_name: 'hookdenied', bot_type: 2 });
  assert.equal(hookDenied.body.msg, 'Insufficient permission');
  await admin.patch('/realm', { can_create_bots_group: { new: groups['role:members'] }, can_create_write_only_bots_group: { new: groups['role:members'] } });
});

test('PATCH /users/{bot_id}: the owner may rename their bot, others may not; realm_bot update follows', async () => {
  const res = await member.post('/bots', { full_name: 'Rename Me', short_name: 'renameme' });
  const q = await openQueue(member, ['realm_bot']);
  assert.equal((await member.patch(`/users/${res.body.user_id}`, { full_name: 'Renamed Bot' })).status, 200);
  const [ev] = await queuedEvents(member, q);
  assert.deepEqual([ev.type, ev.op, ev.bot], ['realm_bot', 'update', { user_id: res.body.user_id, full_name: 'Renamed Bot' }]);
  const byOther = await bystander.patch(`/users/${res.body.user_id}`, { full_name: 'Stolen Bot' });
  assert.deepEqual([byOther.status, byOther.body.msg], [400, 'Insufficient permission']);
  const roleByOwner = await member.patch(`/users/${res.body.user_id}`, { role: 200 });
  assert.deepEqual([roleByOwner.status, roleByOwner.body.code], [400, 'UNAUTHORIZED_PRINCIPAL']);
});

test('bots of another organization stay there', async () => {
  const other = await t.createOrg('Bot Elsewhere');
  const res = await other.owner.post('/bots', { full_name: 'Far Bot', short_name: 'far' });
  assert.equal(res.status, 200);
  assert.deepEqual((await member.get(`/users/${res.body.user_id}`)).body.msg, 'No such user');
  assert.ok(!(await member.get('/users')).body.members.some((u: any) => u.user_id === res.body.user_id));
});

test('DELETE /bots/{bot_id}: the owner or an administrator deactivates a bot; others and humans are refused; its key stops working', async () => {
  const made = await member.post('/bots', { full_name: 'Short Lived', short_name: 'shortlived' });
  assert.equal(made.status, 200);
  const botId = made.body.user_id as number;
  const email = (await member.get(`/users/${botId}`)).body.user.email;
  const asBot = new Client(t.url, email, made.body.api_key, botId);
  assert.equal((await asBot.get('/users/me')).status, 200);

  const byOther = await bystander.delete(`/bots/${botId}`);
  assert.deepEqual([byOther.status, byOther.body.msg], [400, 'Insufficient permission']);
  for (const id of [999999, bystander.userId]) {
    const res = await admin.delete(`/bots/${id}`);
    assert.deepEqual([res.status, res.body.msg], [400, 'No such bot'], `id ${id}`);
  }
  assert.equal((await admin.delete('/bots/abc')).status, 400);
  // A bot is not a person to DELETE /users/{id}, as in Zulip.
  assert.deepEqual((await admin.delete(`/users/${botId}`)).body.msg, 'No such user');

  const qOwner = await openQueue(member, ['realm_bot', 'realm_user']);
  const qOther = await openQueue(bystander, ['realm_bot', 'realm_user']);
  const res = await member.delete(`/bots/${botId}`);
  assert.deepEqual([res.status, res.body.result], [200, 'success']);
  const evs = await queuedEvents(member, qOwner);
  // do_deactivate_user: realm_bot/update with is_active; realm_bot/remove is no longer sent (feature level 222).
  assert.deepEqual(evs.map((e) => [e.type, e.op]), [['realm_user', 'update'], ['realm_bot', 'update']]);
  assert.deepEqual(evs[0].person, { user_id: botId, is_active: false });
  assert.deepEqual(evs[1].bot, { user_id: botId, is_active: false });
  assert.deepEqual((await queuedEvents(bystander, qOther)).map((e) => [e.type, e.op]), [['realm_user', 'update']]);
  assert.equal((await member.get(`/users/${botId}`)).body.user.is_active, false);
  assert.equal((await asBot.get('/users/me')).status, 401, 'a deactivated bot\'s key no longer works');
  assert.equal((await admin.delete(`/bots/${botId}`)).status, 200, 'again: nothing changes, no error');

  // An administrator may deactivate any member's bot; reactivation brings it back.
  const other = await bystander.post('/bots', { full_name: 'Admin Target', short_name: 'admintarget' });
  assert.equal((await admin.delete(`/bots/${other.body.user_id}`)).status, 200);
  assert.equal((await admin.post(`/users/${other.body.user_id}/reactivate`)).status, 200);
  assert.equal((await bystander.get(`/users/${other.body.user_id}`)).body.user.is_active, true);
});

test("PATCH /bots/{bot_id} full_name as Zulip's check_change_bot_full_name: checked, the same name no change, another account's name taken", async () => {
  const made = await member.post('/bots', { full_name: 'Renamable Bot', short_name: 'renamable' });
  const id = made.body.user_id;
  const blank = await member.patch(`/bots/${id}`, { full_name: '   ' });
  assert.deepEqual([blank.status, blank.body.msg], [400, 'Name too short!']);
  const taken = await member.patch(`/bots/${id}`, { full_name: 'Bea Bystander' });
  assert.deepEqual([taken.status, taken.body.msg], [400, 'Name is already in use.']);
  const q = await openQueue(member, ['realm_user', 'realm_bot']);
  const same = await member.patch(`/bots/${id}`, { full_name: ' Renamable Bot ' });
  assert.equal(same.status, 200, JSON.stringify(same.body));
  assert.deepEqual(await queuedEvents(member, q), [], 'its own name again changes nothing');
  assert.equal((await member.patch(`/bots/${id}`, { full_name: 'Freshly Named Bot' })).status, 200);
  assert.equal((await member.get(`/users/${id}`)).body.user.full_name, 'Freshly Named Bot');
});
