// Invitations: POST /invites (emails, per-address errors), POST /invites/multiuse, GET /invites,
// revoking and resending, who may do what, invites_changed events, and accepting an invitation
// through its link (the account, its role, channels, events and the referrer's notice).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, openQueue, queuedEvents, startTestServer, type TestServer } from './helpers.js';
import { expireInvites } from './beyond_api.js';

let t: TestServer;
let member: Client;
let admin: Client;
let moderator: Client;
let guest: Client;
let groups: Record<string, number>;
let streams: Record<string, number>;

before(async () => {
  t = await startTestServer();
  member = await t.createUser({ name: 'Mia Member' });
  admin = await t.createUser({ role: 'administrator', name: 'Ada Admin' });
  moderator = await t.createUser({ role: 'moderator', name: 'Moe Moderator' });
  guest = await t.createUser({ role: 'guest', name: 'Gus Guest' });
  await t.createUser({ name: 'Dee Deactivated', email: 'dee@example.com' });
  const list = (await t.owner.get('/user_groups')).body.user_groups as Array<{ id: number; name: string }>;
  groups = Object.fromEntries(list.map((g) => [g.name, g.id]));
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'open' }] });
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'secret' }], invite_only: true });
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'lobby' }] });
  const all = (await t.owner.get('/streams')).body.streams as Array<{ stream_id: number; name: string }>;
  streams = Object.fromEntries(all.map((s) => [s.name, s.stream_id]));
  assert.equal((await t.owner.post('/default_streams', { stream_id: streams.lobby! })).status, 200);
  const dee = (await t.owner.get('/users')).body.members.find((u: any) => u.email === 'dee@example.com');
  assert.equal((await t.owner.delete(`/users/${dee.user_id}`)).status, 200);
});
after(async () => {
  await t.close();
});

function outbox(): string[] {
  const dir = t.server.services.config.outboxDir;
  return existsSync(dir) ? readdirSync(dir).sort().map((f) => readFileSync(join(dir, f), 'utf8')) : [];
}

function linkIn(mail: string): string {
  const link = /(http:\/\/\S+\/accounts\/do_confirm\/[0-9a-f]+)/.exec(mail)?.[1];
  assert.ok(link, mail);
  return link;
}

/**
 * The mail sent to this address among those written since `before`: found by recipient, since a
 * mail of an earlier test (a missed-message email goes out after a delay) may land in between.
 */
function mailTo(address: string, before: number): string {
  const mail = outbox().slice(before).find((m) => new RegExp(`^To: ${address.replace(/[.+]/g, '\\$&')}\r?$`, 'm').test(m));
  assert.ok(mail, `no mail to ${address}`);
  return mail;
}

async function form(url: string, fields: Record<string, string>) {
  const res = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() });
  return { status: res.status, text: await res.text() };
}

test('POST /invites mails each address a link; GET /invites lists it; invites_changed reaches admins and the inviter', async () => {
  const adminQueue = await openQueue(admin, ['invites_changed']);
  const memberQueue = await openQueue(member, ['invites_changed']);
  const modQueue = await openQueue(moderator, ['invites_changed']);
  const before = outbox().length;
  const res = await member.post('/invites', { invitee_emails: 'new1@example.com, Named Person <new2@example.com>\n', stream_ids: [streams.open!], invite_expires_in_minutes: 60 });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual(res.body, { result: 'success', msg: '' });
  const mails = outbox().slice(before);
  assert.equal(mails.length, 2);
  assert.ok(mails.some((m) => /^To: new1@example\.com/m.test(m)));
  assert.ok(mails.some((m) => /^To: new2@example\.com/m.test(m)));
  assert.match(mails[0]!, /Mia Member/);
  assert.deepEqual((await queuedEvents(admin, adminQueue)).map((e) => e.type), ['invites_changed']);
  assert.deepEqual((await queuedEvents(member, memberQueue)).map((e) => e.type), ['invites_changed']);
  assert.deepEqual(await queuedEvents(moderator, modQueue), [], 'moderators who did not invite are not told');

  const mine = (await member.get('/invites')).body.invites as any[];
  assert.equal(mine.length, 2);
  const one = mine.find((i) => i.email === 'new1@example.com');
  assert.deepEqual(Object.keys(one).sort(), ['email', 'expiry_date', 'id', 'invited', 'invited_as', 'invited_by_user_id', 'is_multiuse', 'notify_referrer_on_join']);
  assert.equal(one.invited_by_user_id, member.userId);
  assert.equal(one.invited_as, 400);
  assert.equal(one.is_multiuse, false);
  assert.equal(one.notify_referrer_on_join, true);
  assert.equal(one.expiry_date - one.invited, 3600);
  assert.equal((await moderator.get('/invites')).body.invites.length, 0, 'others see only their own');
  assert.ok((await admin.get('/invites')).body.invites.length >= 2, 'administrators see all');
});

test('POST /invites: per-address errors with Zulip fields; validation and permissions', async () => {
  const taken = await member.post('/invites', { invitee_emails: `${admin.email}, fresh3@example.com`, stream_ids: [] });
  assert.equal(taken.status, 400);
  assert.equal(taken.body.code, 'INVITATION_FAILED');
  assert.equal(taken.body.msg, "Some of those addresses are already using Zulip, so we didn't send them an invitation. We did send invitations to everyone else!");
  assert.deepEqual(taken.body.errors, [[admin.email, 'Already has an account.', false]]);
  assert.equal(taken.body.sent_invitations, true);
  assert.equal(taken.body.daily_limit_reached, false);
  assert.equal(taken.body.license_limit_reached, false);
  assert.ok((await member.get('/invites')).body.invites.some((i: any) => i.email === 'fresh3@example.com'), 'the others were invited');

  const none = await member.post('/invites', { invitee_emails: `${admin.email},dee@example.com`, stream_ids: [] });
  assert.deepEqual([none.status, none.body.msg, none.body.sent_invitations], [400, "We weren't able to invite anyone.", false]);
  assert.deepEqual(none.body.errors, [[admin.email, 'Already has an account.', false], ['dee@example.com', 'Account has been deactivated.', true]]);

  const bad = await member.post('/invites', { invitee_emails: 'not-an-address, ok4@example.com', stream_ids: [] });
  assert.deepEqual([bad.status, bad.body.code, bad.body.msg, bad.body.sent_invitations], [400, 'INVITATION_FAILED', "Some emails did not validate, so we didn't send any invitations.", false]);
  assert.deepEqual(bad.body.errors, [['not-an-address', 'Invalid address.', false]]);
  assert.ok(!(await member.get('/invites')).body.invites.some((i: any) => i.email === 'ok4@example.com'), 'nothing was sent');

  const empty = await member.post('/invites', { invitee_emails: ' , ', stream_ids: [] });
  assert.deepEqual([empty.status, empty.body.msg], [400, 'You must specify at least one email address.']);
  const missing = await member.post('/invites', { invitee_emails: 'x5@example.com' });
  assert.deepEqual([missing.status, missing.body.code], [400, 'REQUEST_VARIABLE_MISSING']);
  const badStream = await member.post('/invites', { invitee_emails: 'x5@example.com', stream_ids: [999999] });
  assert.deepEqual([badStream.status, badStream.body.msg], [400, 'Invalid channel ID 999999. No invites were sent.']);
  const hidden = await member.post('/invites', { invitee_emails: 'x5@example.com', stream_ids: [streams.secret!] });
  assert.deepEqual([hidden.status, hidden.body.msg], [400, `Invalid channel ID ${streams.secret}. No invites were sent.`], 'a private channel looks missing');
  const badRole = await member.post('/invites', { invitee_emails: 'x5@example.com', stream_ids: [], invite_as: 250 });
  assert.deepEqual([badRole.status, badRole.body.msg], [400, 'Invalid invite_as']);
  const badExpiry = await member.post('/invites', { invitee_emails: 'x5@example.com', stream_ids: [], invite_expires_in_minutes: 0 });
  assert.equal(badExpiry.status, 400);
  const notJson = await member.post('/invites', { invitee_emails: 'x5@example.com', stream_ids: 'nope' });
  assert.equal(notJson.status, 400);

  // Roles (Zulip's check_role_based_permissions): owners only by owners; administrators and
  // moderators by administrators, refused as a plain error.
  const asOwner = await admin.post('/invites', { invitee_emails: 'x6@example.com', stream_ids: [], invite_as: 100 });
  assert.deepEqual([asOwner.status, asOwner.body.code, asOwner.body.msg], [400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization owner']);
  const asAdmin = await moderator.post('/invites', { invitee_emails: 'x6@example.com', stream_ids: [], invite_as: 200 });
  assert.deepEqual([asAdmin.status, asAdmin.body.code, asAdmin.body.msg], [400, 'BAD_REQUEST', 'Must be an organization administrator']);
  const asMod = await member.post('/invites', { invitee_emails: 'x6@example.com', stream_ids: [], invite_as: 300 });
  assert.equal(asMod.status, 400);
  const modByMod = await moderator.post('/invites', { invitee_emails: 'x7@example.com', stream_ids: [], invite_as: 300 });
  assert.deepEqual([modByMod.status, modByMod.body.msg], [400, 'Must be an organization administrator'], 'moderators are invited by administrators');
  assert.equal((await admin.post('/invites', { invitee_emails: 'x7@example.com', stream_ids: [], invite_as: 300 })).status, 200);
  // A custom welcome message is an administrator's choice; a member naming one is refused.
  const welcome = await member.post('/invites', { invitee_emails: 'x10@example.com', stream_ids: [], welcome_message_custom_text: 'Hi!' });
  assert.deepEqual([welcome.status, welcome.body.msg], [400, 'Must be an organization administrator']);
  // @require_member_or_admin comes before the parameters.
  assert.equal((await guest.post('/invites', {})).body.msg, 'Not allowed for guest users');
  assert.equal((await guest.post('/invites/multiuse', { invite_as: 7 })).body.msg, 'Not allowed for guest users');
  assert.equal((await t.owner.post('/invites', { invitee_emails: 'x8@example.com', stream_ids: [], invite_as: 100 })).status, 200);

  const byGuest = await guest.post('/invites', { invitee_emails: 'x9@example.com', stream_ids: [] });
  assert.deepEqual([byGuest.status, byGuest.body.msg], [400, 'Not allowed for guest users']);
  // can_invite_users_group narrowed to administrators.
  assert.equal((await t.owner.patch('/realm', { can_invite_users_group: JSON.stringify({ new: groups['role:administrators'] }) })).status, 200);
  const denied = await member.post('/invites', { invitee_emails: 'x9@example.com', stream_ids: [] });
  assert.deepEqual([denied.status, denied.body.msg], [400, 'Insufficient permission']);
  assert.equal((await admin.post('/invites', { invitee_emails: 'x9@example.com', stream_ids: [] })).status, 200);
  assert.equal((await t.owner.patch('/realm', { can_invite_users_group: JSON.stringify({ new: groups['role:members'] }) })).status, 200);

  // Channels beyond the default ones need permission to add subscribers.
  assert.equal((await t.owner.patch('/realm', { can_add_subscribers_group: JSON.stringify({ new: groups['role:administrators'] }) })).status, 200);
  const noSubscribe = await member.post('/invites', { invitee_emails: 'x10@example.com', stream_ids: [streams.open!] });
  assert.deepEqual([noSubscribe.status, noSubscribe.body.msg], [400, 'You do not have permission to subscribe other users to channels.']);
  assert.equal((await member.post('/invites', { invitee_emails: 'x10@example.com', stream_ids: [streams.lobby!] })).status, 200, 'a default channel is fine');
  assert.equal((await t.owner.patch('/realm', { can_add_subscribers_group: JSON.stringify({ new: groups['role:members'] }) })).status, 200);
});

test('POST /invites/multiuse: link, permissions, listing; never-expiring links', async () => {
  const denied = await member.post('/invites/multiuse', {});
  assert.deepEqual([denied.status, denied.body.msg], [400, 'Insufficient permission'], 'administrators only by default');
  const q = await openQueue(admin, ['invites_changed']);
  const res = await admin.post('/invites/multiuse', { invite_expires_in_minutes: null, invite_as: 600, stream_ids: [streams.open!] });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.match(res.body.invite_link, /^http:\/\/\S+\/join\/[0-9a-f]+\/$/);
  assert.deepEqual((await queuedEvents(admin, q)).map((e) => e.type), ['invites_changed']);
  const listed = ((await admin.get('/invites')).body.invites as any[]).find((i) => i.is_multiuse && i.link_url === res.body.invite_link);
  assert.ok(listed);
  assert.equal(listed.expiry_date, null);
  assert.equal(listed.invited_as, 600);
  assert.equal(listed.email, undefined);
  assert.equal((await t.owner.patch('/realm', { create_multiuse_invite_group: JSON.stringify({ new: groups['role:members'] }) })).status, 200);
  const byMember = await member.post('/invites/multiuse', {});
  assert.equal(byMember.status, 200);
  const asAdmin = await member.post('/invites/multiuse', { invite_as: 200 });
  assert.deepEqual([asAdmin.status, asAdmin.body.msg], [400, 'Must be an organization administrator']);
  assert.equal((await t.owner.patch('/realm', { create_multiuse_invite_group: JSON.stringify({ new: groups['role:administrators'] }) })).status, 200);
  const byGuest = await guest.post('/invites/multiuse', {});
  assert.equal(byGuest.status, 400);
});

test('revoking and resending: own invitations, administrators for others, owners for owner invitations', async () => {
  await member.post('/invites', { invitee_emails: 'revoke-me@example.com', stream_ids: [] });
  const inv = ((await member.get('/invites')).body.invites as any[]).find((i) => i.email === 'revoke-me@example.com');
  const before = outbox().length;
  assert.equal((await moderator.post(`/invites/${inv.id}/resend`)).body.msg, 'Must be an organization administrator');
  const resent = await member.post(`/invites/${inv.id}/resend`);
  assert.deepEqual(resent.body, { result: 'success', msg: '' });
  const mails = outbox().slice(before);
  assert.equal(mails.length, 1);
  assert.match(mails[0]!, /^To: revoke-me@example\.com/m);
  assert.equal((await admin.post(`/invites/${inv.id}/resend`)).status, 200, 'administrators may resend');

  const other = await moderator.delete(`/invites/${inv.id}`);
  assert.deepEqual([other.status, other.body.msg], [400, 'Must be an organization administrator']);
  const q = await openQueue(member, ['invites_changed']);
  assert.equal((await member.delete(`/invites/${inv.id}`)).status, 200);
  assert.deepEqual((await queuedEvents(member, q)).map((e) => e.type), ['invites_changed']);
  assert.ok(!((await member.get('/invites')).body.invites as any[]).some((i) => i.id === inv.id));
  for (const path of [`/invites/${inv.id}`, '/invites/999999', '/invites/abc']) {
    const res = await member.delete(path);
    assert.deepEqual([res.status, res.body.code, res.body.msg], [400, 'BAD_REQUEST', 'No such invitation'], path);
  }
  assert.deepEqual((await member.post(`/invites/${inv.id}/resend`)).body.msg, 'No such invitation');
  assert.equal((await (await t.createOrg('Elsewhere')).owner.delete(`/invites/${inv.id}`)).body.msg, 'No such invitation', 'another organization cannot see it');

  await t.owner.post('/invites', { invitee_emails: 'owner-invite@example.com', stream_ids: [], invite_as: 100 });
  const ownerInv = ((await t.owner.get('/invites')).body.invites as any[]).find((i) => i.email === 'owner-invite@example.com');
  const byAdmin = await admin.delete(`/invites/${ownerInv.id}`);
  assert.deepEqual([byAdmin.status, byAdmin.body.code, byAdmin.body.msg], [400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization owner']);

  const link = (await admin.post('/invites/multiuse', {})).body.invite_link as string;
  const multi = ((await admin.get('/invites')).body.invites as any[]).find((i) => i.link_url === link);
  assert.equal((await member.delete(`/invites/multiuse/${multi.id}`)).body.msg, 'Must be an organization administrator');
  assert.equal((await admin.delete(`/invites/${multi.id}`)).body.msg, 'No such invitation', 'a link is not an email invitation');
  assert.equal((await t.owner.delete(`/invites/multiuse/${multi.id}`)).status, 200);
  const again = await t.owner.delete(`/invites/multiuse/${multi.id}`);
  assert.deepEqual([again.status, again.body.msg], [400, 'Invitation has already been revoked']);
  assert.equal((await t.owner.delete('/invites/multiuse/999999')).body.msg, 'No such invitation');
  assert.equal((await fetch(link)).status, 404, 'a revoked link no longer works');
});

test('accepting an email invitation creates the account with the invited role and channels; the referrer is told', async () => {
  const before = outbox().length;
  assert.equal((await admin.post('/invites', { invitee_emails: 'joiner@example.com', stream_ids: [streams.open!], invite_as: 300, include_realm_default_subscriptions: true })).status, 200);
  const link = linkIn(mailTo('joiner@example.com', before));
  const page = await fetch(link);
  assert.equal(page.status, 200);
  assert.match(await page.text(), /joiner@example\.com[\s\S]*name="full_name"[\s\S]*name="password"/);
  const ownerQueue = await openQueue(t.owner, ['realm_user', 'invites_changed']);
  const adminQueue = await openQueue(admin, ['message']);

  const weak = await form(link, { full_name: 'Jo Joiner', password: '123' });
  assert.equal(weak.status, 400);
  assert.match(weak.text, /The password is too weak/);
  const done = await form(link, { full_name: 'Jo Joiner', password: 'joiner-password' });
  assert.equal(done.status, 200, done.text);
  assert.match(done.text, /Account created/);

  const key = await fetch(new URL('/api/v1/fetch_api_key', t.url), { method: 'POST', body: new URLSearchParams({ username: 'joiner@example.com', password: 'joiner-password' }) });
  const creds = (await key.json()) as any;
  assert.equal(creds.result, 'success');
  const joiner = new Client(t.url, 'joiner@example.com', creds.api_key, creds.user_id);
  const me = (await joiner.get('/users/me')).body;
  assert.equal(me.full_name, 'Jo Joiner');
  assert.equal(me.role, 300);
  const subs = ((await joiner.get('/users/me/subscriptions')).body.subscriptions as any[]).map((s) => s.name).sort();
  assert.deepEqual(subs, ['lobby', 'open']);

  const evs = await queuedEvents(t.owner, ownerQueue);
  assert.ok(evs.some((e) => e.type === 'realm_user' && e.op === 'add' && e.person.user_id === creds.user_id && e.person.role === 300));
  assert.ok(evs.some((e) => e.type === 'invites_changed'));
  const notices = (await queuedEvents(admin, adminQueue)).filter((e) => e.type === 'message');
  assert.equal(notices.length, 1);
  assert.equal(notices[0].message.sender_email, 'notification-bot@zulip.com');
  assert.equal(notices[0].message.type, 'private');
  assert.match(notices[0].message.content, /Jo Joiner.*accepted your invitation to join Zulip!/);

  assert.equal((await fetch(link)).status, 404, 'the link works once');
  assert.equal((await form(link, { full_name: 'Again', password: 'again-password' })).status, 404);
  assert.equal((await fetch(`${t.url}/accounts/do_confirm/${'0'.repeat(24)}`)).status, 404);
});

test('a reusable link serves several people; it asks for the address; no notice when the referrer opted out', async () => {
  const link = (await admin.post('/invites/multiuse', { invite_as: 600, stream_ids: [streams.open!], notify_referrer_on_join: false })).body.invite_link as string;
  const page = await fetch(link);
  assert.equal(page.status, 200);
  assert.match(await page.text(), /name="email"/);
  const q = await openQueue(admin, ['message']);
  for (const [email, name] of [['multi1@example.com', 'Multi One'], ['multi2@example.com', 'Multi Two']]) {
    const done = await form(link, { email: email!, full_name: name!, password: 'multi-password' });
    assert.equal(done.status, 200, done.text);
  }
  const taken = await form(link, { email: 'multi1@example.com', full_name: 'Multi Three', password: 'multi-password' });
  assert.equal(taken.status, 400);
  assert.match(taken.text, /already in use/);
  const badName = await form(link, { email: 'multi3@example.com', full_name: 'x', password: 'multi-password' });
  assert.equal(badName.status, 400);
  const users = (await t.owner.get('/users')).body.members as any[];
  const one = users.find((u) => u.email === 'multi1@example.com');
  assert.equal(one.role, 600);
  assert.deepEqual(await queuedEvents(admin, q), [], 'no notice: the referrer opted out');
});

test('an expired invitation link no longer works and is not listed', async () => {
  await member.post('/invites', { invitee_emails: 'late@example.com', stream_ids: [], invite_expires_in_minutes: 1 });
  await expireInvites(t, 'late@example.com');
  const db = t.server.services.database.db;
  assert.ok(!((await member.get('/invites')).body.invites as any[]).some((i) => i.email === 'late@example.com'));
  const row = await db.selectFrom('invites').select('confirmation_key').where('email', '=', 'late@example.com').executeTakeFirstOrThrow();
  assert.equal((await fetch(`${t.url}/accounts/do_confirm/${row.confirmation_key}`)).status, 404);
});

test('group_ids: the new account joins the groups; the inviter must be able to add members', async () => {
  const made = await t.owner.post('/user_groups/create', { name: 'newcomers', description: 'New people', members: [t.owner.userId] });
  assert.equal(made.status, 200, JSON.stringify(made.body));
  const groupId = made.body.group_id as number;
  const denied = await member.post('/invites', { invitee_emails: 'grouped@example.com', stream_ids: [], group_ids: [groupId] });
  assert.deepEqual([denied.status, denied.body.msg], [400, 'Insufficient permission']);
  const system = await admin.post('/invites', { invitee_emails: 'grouped@example.com', stream_ids: [], group_ids: [groups['role:members']!] });
  assert.deepEqual([system.status, system.body.msg], [400, 'Insufficient permission'], 'system groups follow the role');
  const missing = await admin.post('/invites', { invitee_emails: 'grouped@example.com', stream_ids: [], group_ids: [999999] });
  assert.deepEqual([missing.status, missing.body.msg], [400, 'Invalid user group']);
  const before = outbox().length;
  const ok = await t.owner.post('/invites', { invitee_emails: 'grouped@example.com', stream_ids: [], group_ids: [groupId] });
  assert.deepEqual(ok.body, { result: 'success', msg: '' });
  const q = await openQueue(member, ['user_group']);
  const done = await form(linkIn(mailTo('grouped@example.com', before)), { full_name: 'Gro Grouped', password: 'grouped-pw' });
  assert.equal(done.status, 200, done.text);
  const group = ((await member.get('/user_groups')).body.user_groups as any[]).find((g) => g.id === groupId);
  const newId = ((await t.owner.get('/users')).body.members as any[]).find((u) => u.email === 'grouped@example.com').user_id;
  assert.ok(group.members.includes(newId));
  const evs = await queuedEvents(member, q);
  assert.ok(evs.some((e) => e.type === 'user_group' && e.op === 'add_members' && e.group_id === groupId && e.user_ids[0] === newId));
});

test('in an organization open to all, new accounts may not send invitations (administrators may)', async () => {
  assert.equal((await t.owner.patch('/realm', { invite_required: false })).status, 200);
  const res = await member.post('/invites', { invitee_emails: 'open1@example.com', stream_ids: [] });
  assert.deepEqual([res.status, res.body.code, res.body.sent_invitations, res.body.errors], [400, 'INVITATION_FAILED', false, []]);
  assert.equal(res.body.msg, 'Your account is too new to send invites for this organization. Ask an organization admin, or a more experienced user.');
  assert.equal((await admin.post('/invites', { invitee_emails: 'open1@example.com', stream_ids: [] })).status, 200);
  assert.equal((await t.owner.patch('/realm', { invite_required: true })).status, 200);
  assert.equal((await member.post('/invites', { invitee_emails: 'open2@example.com', stream_ids: [] })).status, 200);
});

test('accepting honours require_unique_names', async () => {
  const link = (await admin.post('/invites/multiuse', {})).body.invite_link as string;
  assert.equal((await t.owner.patch('/realm', { require_unique_names: true })).status, 200);
  const dup = await form(link, { email: 'dup@example.com', full_name: 'Mia Member', password: 'dup-password' });
  assert.equal(dup.status, 400);
  assert.match(dup.text, /Unique names required in this organization\./);
  assert.equal((await t.owner.patch('/realm', { require_unique_names: false })).status, 200);
  assert.equal((await form(link, { email: 'dup@example.com', full_name: 'Mia Member', password: 'dup-password' })).status, 200);
});
