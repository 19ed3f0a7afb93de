// Subscribing users to existing channels (POST /users/me/subscriptions with principals), who may
// add whom, the subscription/peer events, colors, GET /users/me/subscriptions and the subscription
// state of POST /register.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openQueue, queuedEvents, startTestServer, type Client, type TestServer } from './helpers.js';

let t: TestServer;
let member: Client;
let other: Client;
let bystander: Client;
let guest: Client;
let admin: Client;
let groups: Record<string, number>;

before(async () => {
  t = await startTestServer();
  member = await t.createUser({ name: 'Mia Member' });
  other = await t.createUser({ name: 'Otto Other' });
  bystander = await t.createUser({ name: 'Bea Bystander' });
  guest = await t.createUser({ role: 'guest', name: 'Gus Guest' });
  admin = await t.createUser({ role: 'administrator', name: 'Ada Admin' });
  const list = (await t.owner.get('/user_groups')).body.user_groups as Array<{ id: number; name: string }>;
  groups = Object.fromEntries(list.map((g) => [g.name, g.id]));
});
after(async () => {
  await t.close();
});

function subscribe(c: Client, names: string[], extra: Record<string, any> = {}) {
  return c.post('/users/me/subscriptions', { subscriptions: names.map((name) => ({ name })), ...extra });
}

async function idOf(name: string): Promise<number> {
  return (await t.owner.get('/get_stream_id', { stream: name })).body.stream_id;
}

const kinds = (events: any[]) => events.map((e) => `${e.type}/${e.op}`);

test('subscribing others: subscription/add to them, peer_add to everyone else who may see the channel', async () => {
  assert.equal((await subscribe(t.owner, ['peers'])).status, 200);
  const id = await idOf('peers');
  const ownerQ = await openQueue(t.owner, ['stream', 'subscription'], ['subscription']);
  const bystanderQ = await openQueue(bystander, ['stream', 'subscription'], ['subscription']);
  const memberQ = await openQueue(member, ['stream', 'subscription'], ['subscription']);
  const guestQ = await openQueue(guest, ['stream', 'subscription'], ['subscription']);

  const res = await subscribe(t.owner, ['peers'], { principals: [other.userId, member.userId] });
  assert.equal(res.status, 200);
  assert.deepEqual(res.body.subscribed, { [String(other.userId)]: ['peers'], [String(member.userId)]: ['peers'] });
  assert.deepEqual(res.body.already_subscribed, {});

  for (const [c, q] of [[t.owner, ownerQ], [bystander, bystanderQ]] as const) {
    const events = await queuedEvents(c, q);
    assert.deepEqual(kinds(events), ['subscription/peer_add']);
    assert.deepEqual([events[0].stream_ids, events[0].user_ids], [[id], [member.userId, other.userId].sort((a, b) => a - b)]);
  }
  const mine = await queuedEvents(member, memberQ);
  assert.deepEqual(kinds(mine), ['subscription/add'], 'a member could already see the public channel');
  assert.deepEqual(mine[0].subscriptions[0].subscribers, [t.owner.userId, member.userId, other.userId].sort((a, b) => a - b));
  assert.equal(mine[0].subscriptions[0].subscriber_count, 3);
  assert.deepEqual(await queuedEvents(guest, guestQ), [], 'guests do not follow public channels they are not in');

  const byEmail = await subscribe(t.owner, ['peers'], { principals: [bystander.email, member.email.toUpperCase()] });
  assert.deepEqual(byEmail.body.subscribed, { [String(bystander.userId)]: ['peers'] });
  assert.deepEqual(byEmail.body.already_subscribed, { [String(member.userId)]: ['peers'] });
});

test('a guest added to a public channel first learns the channel exists', async () => {
  const guestQ = await openQueue(guest, ['stream', 'subscription'], ['subscription']);
  const memberQ = await openQueue(member, ['subscription'], ['subscription']);
  const res = await subscribe(member, ['peers'], { principals: [guest.userId] });
  assert.equal(res.status, 200);
  const events = await queuedEvents(guest, guestQ);
  assert.deepEqual(kinds(events), ['stream/create', 'subscription/add']);
  assert.equal(events[0].streams[0].name, 'peers');
  assert.ok(events[1].subscriptions[0].subscribers.includes(guest.userId));
  assert.deepEqual(kinds(await queuedEvents(member, memberQ)), ['subscription/peer_add']);
  assert.equal((await guest.get(`/streams/${await idOf('peers')}`)).status, 200, 'now the guest sees it');
  const guestTry = await subscribe(guest, ['peers']);
  assert.deepEqual([guestTry.status, guestTry.body.msg], [400, 'Not allowed for guest users']);
});

test('principals must be active users of this organization, all ids or all emails', async () => {
  const org = await t.createOrg('Elsewhere');
  const leaver = await t.createUser({ name: 'Lee Leaver' });
  assert.equal((await subscribe(t.owner, ['peers'], { principals: [leaver.userId] })).status, 200);
  const countBefore = (await t.owner.get(`/streams/${await idOf('peers')}`)).body.stream.subscriber_count;
  assert.equal((await t.owner.delete(`/users/${leaver.userId}`)).status, 200);
  const countAfter = (await t.owner.get(`/streams/${await idOf('peers')}`)).body.stream.subscriber_count;
  assert.equal(countAfter, countBefore - 1, 'deactivated users are not counted');

  for (const principals of [[999999], [org.owner.userId], ['nobody@example.com'], [leaver.userId, 999999]]) {
    const res = await subscribe(t.owner, ['peers'], { principals });
    assert.deepEqual([res.status, res.body.code, res.body.msg], [400, 'BAD_REQUEST', 'No such user'], JSON.stringify(principals));
  }
  // bulk_access_users_by_id / _by_email find a deactivated user, whom access_user_common refuses.
  for (const principals of [[leaver.userId], [leaver.email]]) {
    const res = await subscribe(t.owner, ['peers'], { principals });
    assert.deepEqual([res.status, res.body.code, res.body.msg], [400, 'BAD_REQUEST', 'User is deactivated'], JSON.stringify(principals));
    const removal = await t.owner.delete('/users/me/subscriptions', { subscriptions: ['peers'], principals });
    assert.deepEqual([removal.status, removal.body.msg], [400, 'User is deactivated'], JSON.stringify(principals));
  }
  const mixed = await subscribe(t.owner, ['peers'], { principals: [member.userId, other.email] });
  assert.equal(mixed.status, 400);
  const notList = await subscribe(t.owner, ['peers'], { principals: '"x"' });
  assert.equal(notList.status, 400);
  const empty = await subscribe(admin, ['admins-own'], { principals: [] });
  assert.deepEqual(empty.body.subscribed, { [String(admin.userId)]: ['admins-own'] }, 'an empty list means the caller');
});

test('who may add others to an existing channel', async () => {
  // Members may, while the organization's can_add_subscribers_group is role:members.
  assert.equal((await subscribe(member, ['peers'], { principals: [admin.userId] })).status, 200);
  assert.equal((await subscribe(member, ['mine'])).status, 200);
  const restrict = await t.owner.patch('/realm', { can_add_subscribers_group: { new: groups['role:administrators'] } });
  assert.equal(restrict.status, 200);
  try {
    const denied = await subscribe(other, ['peers'], { principals: [bystander.userId] });
    assert.deepEqual([denied.status, denied.body.msg], [400, 'Insufficient permission']);
    assert.equal((await subscribe(other, ['peers'], { principals: [other.userId] })).status, 200, 'oneself is always fine');
    assert.equal((await subscribe(member, ['mine'], { principals: [other.userId] })).status, 200, "the channel's administrator may");
    const peersId = await idOf('peers');
    const grant = await t.owner.patch(`/streams/${peersId}`, { can_add_subscribers_group: { new: { direct_members: [other.userId], direct_subgroups: [] } } });
    assert.equal(grant.status, 200, JSON.stringify(grant.body));
    assert.equal((await subscribe(other, ['peers'], { principals: [bystander.userId] })).status, 200, "the channel's can_add_subscribers_group may");
    assert.equal((await subscribe(admin, ['mine'], { principals: [bystander.userId] })).status, 200, 'administrators may');
    // Creating a channel with others in it is part of creating it.
    assert.equal((await subscribe(other, ['others-new'], { principals: [other.userId, bystander.userId] })).status, 200);
  } finally {
    await t.owner.patch('/realm', { can_add_subscribers_group: { new: groups['role:members'] } });
  }
});

test('private channels: only those with content access may join or add others', async () => {
  assert.equal((await subscribe(t.owner, ['vault'], { invite_only: true })).status, 200);
  const fatal = await subscribe(member, ['Vault']);
  assert.deepEqual([fatal.status, fatal.body.msg], [400, 'Unable to access channel (vault).']);
  const soft = await subscribe(member, ['vault', 'fresh-one'], { authorization_errors_fatal: false });
  assert.equal(soft.status, 200);
  assert.deepEqual(soft.body.unauthorized, ['vault']);
  assert.deepEqual(soft.body.subscribed, { [String(member.userId)]: ['fresh-one'] });
  const adminTry = await subscribe(admin, ['vault']);
  assert.equal(adminTry.body.msg, 'Unable to access channel (vault).', 'administrators see it but may not read it');
  const adminAdds = await subscribe(admin, ['vault'], { principals: [member.userId] });
  assert.equal(adminAdds.status, 400);

  const vaultId = await idOf('vault');
  const grant = await t.owner.patch(`/streams/${vaultId}`, { can_subscribe_group: { new: { direct_members: [member.userId], direct_subgroups: [] } } });
  assert.equal(grant.status, 200, JSON.stringify(grant.body));
  const memberQ = await openQueue(member, ['stream', 'subscription'], ['subscription']);
  assert.equal((await subscribe(member, ['vault'])).status, 200, 'can_subscribe_group lets one join');
  assert.deepEqual(kinds(await queuedEvents(member, memberQ)), ['subscription/add'], 'the group already let the member see it');

  const otherQ = await openQueue(other, ['stream', 'subscription'], ['subscription']);
  const adminQ = await openQueue(admin, ['subscription'], ['subscription']);
  const bystanderQ = await openQueue(bystander, ['stream', 'subscription'], ['subscription']);
  const memberQ2 = await openQueue(member, ['subscription'], ['subscription']);
  assert.equal((await subscribe(t.owner, ['vault'], { principals: [other.userId] })).status, 200);
  const theirs = await queuedEvents(other, otherQ);
  assert.deepEqual(kinds(theirs), ['stream/create', 'subscription/add']);
  assert.equal(theirs[0].streams[0].invite_only, true);
  assert.deepEqual(theirs[1].subscriptions[0].subscribers, [t.owner.userId, member.userId, other.userId].sort((a, b) => a - b));
  assert.deepEqual(kinds(await queuedEvents(admin, adminQ)), ['subscription/peer_add'], 'administrators follow private subscribers');
  assert.deepEqual(kinds(await queuedEvents(member, memberQ2)), ['subscription/peer_add']);
  assert.deepEqual(await queuedEvents(bystander, bystanderQ), []);
});

test('colors come from the palette, unused ones first; a requested color is kept; leaving and rejoining keeps it', async () => {
  const newcomer = await t.createUser({ name: 'Nell Newcomer' });
  const res = await subscribe(newcomer, ['color-a', 'color-b', 'color-c']);
  assert.equal(res.status, 200);
  const subs = (await newcomer.get('/users/me/subscriptions')).body.subscriptions;
  assert.deepEqual(subs.map((s: any) => s.color), ['#76ce90', '#fae589', '#a6c7e5']);
  const chosen = await newcomer.post('/users/me/subscriptions', { subscriptions: [{ name: 'color-d', color: '#ABCDEF' }] });
  assert.equal(chosen.status, 200);
  const d = (await newcomer.get('/users/me/subscriptions')).body.subscriptions.find((s: any) => s.name === 'color-d');
  assert.equal(d.color, '#ABCDEF');

  const left = await newcomer.delete('/users/me/subscriptions', { subscriptions: ['color-d'] });
  assert.deepEqual(left.body.removed, ['color-d']);
  const q = await openQueue(newcomer, ['subscription'], ['subscription']);
  const back = await subscribe(newcomer, ['color-d']);
  assert.deepEqual(back.body.subscribed, { [String(newcomer.userId)]: ['color-d'] });
  const events = await queuedEvents(newcomer, q);
  assert.deepEqual(kinds(events), ['subscription/add']);
  assert.equal(events[0].subscriptions[0].color, '#ABCDEF', 'the old subscription comes back as it was');
  const noDm = await subscribe(newcomer, ['color-a'], { send_new_subscription_messages: false });
  assert.equal('new_subscription_messages_sent' in noDm.body, false, 'present only when asked for');
});

test("DELETE with an empty principals list removes the caller, as remove_subscriptions_backend's `if principals:`", async () => {
  const leaver = await t.createUser({ name: 'Lee Leaver' });
  assert.equal((await subscribe(leaver, ['empty-principals'])).status, 200);
  const res = await leaver.delete('/users/me/subscriptions', { subscriptions: ['empty-principals'], principals: [] });
  assert.deepEqual([res.status, res.body.removed, res.body.not_removed], [200, ['empty-principals'], []]);
  const again = await leaver.delete('/users/me/subscriptions', { subscriptions: ['empty-principals'], principals: [] });
  assert.deepEqual([again.body.removed, again.body.not_removed], [[], ['empty-principals']]);
});

test("principals are looked up after the channels are checked, as add_subscriptions_backend's bulk_principals_to_user_profiles", async () => {
  assert.equal((await subscribe(t.owner, ['late-lookup'], { invite_only: true })).status, 200);
  // A channel one may not read is refused before an unknown principal is noticed.
  const hidden = await subscribe(member, ['late-lookup'], { principals: [999999] });
  assert.deepEqual([hidden.status, hidden.body.msg], [400, 'Unable to access channel (late-lookup).']);
  const badName = await subscribe(member, ['  '], { principals: ['nobody@example.com'] });
  assert.deepEqual([badName.status, badName.body.msg], [400, "Channel name can't be empty."]);
  // The shape of the list is a parameter's type, checked first.
  const mixed = await subscribe(member, ['late-lookup'], { principals: [member.userId, 'x@example.com'] });
  assert.equal(mixed.body.msg, 'principals is not a list of user IDs or a list of emails');
  // Only the caller's own id is not "someone else": the caller is then not looked up at all.
  assert.deepEqual((await subscribe(member, ['late-open'], { principals: [member.userId, member.userId] })).body.subscribed, { [String(member.userId)]: ['late-open'] });
  const unknown = await subscribe(member, ['late-open'], { principals: [999999] });
  assert.deepEqual([unknown.status, unknown.body.msg], [400, 'No such user']);
});

test('GET /users/me/subscriptions, with or without subscribers', async () => {
  const plain = await member.get('/users/me/subscriptions');
  assert.equal(plain.status, 200);
  const names = plain.body.subscriptions.map((s: any) => s.name);
  assert.deepEqual(names, [...names].sort());
  assert.ok(names.includes('vault') && names.includes('peers'));
  assert.ok(plain.body.subscriptions.every((s: any) => !('subscribers' in s)));
  for (const value of [true, 'partial']) {
    const full = await member.get('/users/me/subscriptions', { include_subscribers: value });
    const vault = full.body.subscriptions.find((s: any) => s.name === 'vault');
    assert.deepEqual(vault.subscribers, [t.owner.userId, member.userId, other.userId].sort((a, b) => a - b));
    assert.equal(vault.subscriber_count, 3);
  }
  assert.equal((await member.get('/users/me/subscriptions', { include_subscribers: 'some' })).status, 400);
  assert.deepEqual((await bystander.get('/users/me/subscriptions')).body.subscriptions.map((s: any) => s.name).includes('vault'), false);
});

test('POST /register splits channels into subscribed, unsubscribed and never subscribed', async () => {
  const state = async (c: Client) => (await c.post('/register', { fetch_event_types: ['subscription', 'stream'], include_subscribers: true })).body;
  assert.equal((await other.delete('/users/me/subscriptions', { subscriptions: ['peers'] })).status, 200);

  const mine = await state(other);
  const names = (list: any[]) => list.map((s) => s.name);
  assert.ok(names(mine.subscriptions).includes('vault'));
  assert.deepEqual(names(mine.unsubscribed), ['peers']);
  assert.deepEqual(mine.unsubscribed[0].subscribers.includes(other.userId), false);
  assert.ok(names(mine.never_subscribed).includes('fresh-one'));
  assert.ok(!names(mine.never_subscribed).includes('vault'));
  assert.ok(mine.never_subscribed.every((s: any) => Array.isArray(s.subscribers)));
  assert.deepEqual(names(mine.streams), [...names(mine.streams)].sort());

  const outsider = await state(bystander);
  assert.ok(!names(outsider.never_subscribed).includes('vault'), 'a private channel stays hidden');
  assert.ok(!names(outsider.streams).includes('vault'));

  const adminState = await state(admin);
  const vault = adminState.never_subscribed.find((s: any) => s.name === 'vault');
  assert.ok(vault, 'administrators see every channel');
  assert.equal(vault.subscribers.length, 3);
  assert.ok(names(adminState.streams).includes('vault'));

  const guestState = await state(guest);
  assert.deepEqual(names(guestState.subscriptions), ['peers']);
  assert.deepEqual(guestState.never_subscribed, [], 'guests see no channel they are not in');

  // Leaving a private channel one may no longer see drops it from the lists.
  assert.equal((await other.delete('/users/me/subscriptions', { subscriptions: ['vault'] })).status, 200);
  const after = await state(other);
  assert.ok(!names(after.unsubscribed).includes('vault') && !names(after.never_subscribed).includes('vault'));
});

test('two requests creating the same channel at once make one channel', async () => {
  const [a, b] = await Promise.all([subscribe(member, ['race']), subscribe(other, ['Race'])]);
  assert.deepEqual([a.status, b.status], [200, 200], JSON.stringify([a.body, b.body]));
  const streams = (await t.owner.get('/streams')).body.streams.filter((s: any) => s.name.toLowerCase() === 'race');
  assert.equal(streams.length, 1);
  assert.equal(streams[0].subscriber_count, 2);
});

test("a guest may not name users hidden from them as principals, as bulk_access_users_by_id's check_can_access_user", async () => {
  const seen = await t.createUser({ name: 'Sam Seen' });
  const unseen = await t.createUser({ name: 'Una Unseen', email: 'una.unseen@example.com' });
  const gone = await t.createUser({ name: 'Gil Gone' });
  assert.equal((await subscribe(t.owner, ['guest-shared'], { principals: [guest.userId, seen.userId] })).status, 200);
  assert.equal((await t.owner.delete(`/users/${gone.userId}`)).status, 200);
  assert.equal((await t.owner.patch('/realm', { can_access_all_users_group: { new: groups['role:members'] } })).status, 200);
  try {
    // remove_subscriptions_backend looks the principals up before the channels, so a missing
    // channel is not reached for a hidden user.
    for (const principals of [[unseen.userId], ['una.unseen@example.com'], [seen.userId, unseen.userId]]) {
      const res = await guest.delete('/users/me/subscriptions', { subscriptions: ['no-such-channel'], principals });
      assert.deepEqual(res.body, { result: 'error', msg: 'Insufficient permission', code: 'BAD_REQUEST' }, JSON.stringify(principals));
    }
    // access_user_common refuses a deactivated user before asking about access.
    assert.equal((await guest.delete('/users/me/subscriptions', { subscriptions: ['no-such-channel'], principals: [gone.userId] })).body.msg, 'User is deactivated');
    const visible = await guest.delete('/users/me/subscriptions', { subscriptions: ['no-such-channel'], principals: [seen.userId] });
    assert.equal(visible.body.msg, 'Channel(s) (no-such-channel) do not exist');
    // Members see everyone.
    const byMember = await member.delete('/users/me/subscriptions', { subscriptions: ['no-such-channel'], principals: [unseen.userId] });
    assert.equal(byMember.body.msg, 'Channel(s) (no-such-channel) do not exist');
  } finally {
    assert.equal((await t.owner.patch('/realm', { can_access_all_users_group: { new: groups['role:everyone'] } })).status, 200);
  }
});
