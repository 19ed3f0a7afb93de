// An organization's allowed email domains (GET/POST/PATCH/DELETE /realm/domains) and
// emails_restricted_to_domains, checked as Zulip's email_allowed_for_realm wherever an account is
// made or an address changed: POST /users, invitations, the sign-up form, PATCH /settings.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openQueue, queuedEvents, startTestServer, type Client, type TestServer } from './helpers.js';

let t: TestServer;
let admin: Client;
before(async () => {
  t = await startTestServer();
  admin = await t.createUser({ role: 'administrator', name: 'Ada Admin' });
});
after(async () => {
  await t.close();
});

async function signUp(link: string, fields: Record<string, string>): Promise<{ status: number; text: string }> {
  const res = await fetch(link, { method: 'POST', body: new URLSearchParams(fields) });
  return { status: res.status, text: await res.text() };
}

test("realm domains as Zulip's zerver/views/realm_domains.py: owners change them, everyone hears of it", async () => {
  assert.deepEqual((await admin.get('/realm/domains')).body.domains, []);
  assert.deepEqual((await admin.post('/register', { fetch_event_types: ['realm_domains'] })).body.realm_domains, []);
  // @require_realm_owner, before any parameter.
  const notOwner = await admin.post('/realm/domains', {});
  assert.deepEqual([notOwner.status, notOwner.body.code, notOwner.body.msg], [400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization owner']);
  assert.equal((await t.owner.post('/realm/domains', { domain: 'x.org' })).body.msg, "Missing 'allow_subdomains' argument");
  for (const [domain, why] of [
    ['', "Domain can't be empty."],
    ['localhost', 'Domain must have at least one dot (.)'],
    ['.example.com', 'Domain cannot start or end with a dot (.)'],
    ['a..com', "Consecutive '.' are not allowed."],
    ['-a.com', "Subdomains cannot start or end with a '-'."],
    ['a_b.com', "Domain can only have letters, numbers, '.' and '-'s."],
  ]) {
    const res = await t.owner.post('/realm/domains', { domain, allow_subdomains: false });
    assert.deepEqual([res.status, res.body.msg], [400, `Invalid domain: ${why}`], domain);
  }
  const q = await openQueue(admin, ['realm_domains']);
  const added = await t.owner.post('/realm/domains', { domain: ' Example.COM ', allow_subdomains: false });
  assert.equal(added.status, 200);
  assert.deepEqual([typeof added.body.new_domain[0], added.body.new_domain[1]], ['number', 'example.com']);
  const again = await t.owner.post('/realm/domains', { domain: 'example.com', allow_subdomains: true });
  assert.equal(again.body.msg, 'The domain example.com is already a part of your organization.');
  assert.equal((await t.owner.patch('/realm/domains/example.com', { allow_subdomains: true })).status, 200);
  assert.equal((await t.owner.patch('/realm/domains/nope.com', { allow_subdomains: true })).body.msg, 'No entry found for domain nope.com.');
  assert.equal((await t.owner.delete('/realm/domains/nope.com')).body.msg, 'No entry found for domain nope.com.');
  assert.deepEqual((await admin.get('/realm/domains')).body.domains, [{ domain: 'example.com', allow_subdomains: true }]);
  assert.deepEqual((await admin.post('/register', { fetch_event_types: ['realm_domains'] })).body.realm_domains, [{ domain: 'example.com', allow_subdomains: true }]);
  const evs = await queuedEvents(admin, q);
  assert.deepEqual(evs.map((e) => [e.op, e.realm_domain]), [
    ['add', { domain: 'example.com', allow_subdomains: false }],
    ['change', { domain: 'example.com', allow_subdomains: true }],
  ]);
  assert.equal((await t.owner.delete('/realm/domains/example.com')).status, 200);
  assert.deepEqual((await admin.get('/realm/domains')).body.domains, []);
});

test("emails_restricted_to_domains: POST /users, invitations and sign-up refuse other domains with Zulip's texts", async () => {
  assert.equal((await t.owner.post('/realm/domains', { domain: 'corp.example', allow_subdomains: false })).status, 200);
  assert.equal((await t.owner.post('/realm/domains', { domain: 'group.example', allow_subdomains: true })).status, 200);
  const link = (await admin.post('/invites/multiuse', {})).body.invite_link as string;
  // Unrestricted, any domain may join.
  assert.equal((await t.owner.post('/users', { email: 'free@elsewhere.example', password: 'free-password', full_name: 'Free Bird' })).status, 200);
  assert.equal((await t.owner.patch('/realm', { emails_restricted_to_domains: true })).status, 200);

  // create_user_backend: email_allowed_for_realm's refusals, before the address is found in use.
  const outside = await t.owner.post('/users', { email: 'free@elsewhere.example', password: 'x1234567', full_name: 'Out Sider' });
  assert.deepEqual([outside.status, outside.body.code, outside.body.msg], [400, 'BAD_REQUEST', "Email 'free@elsewhere.example' not allowed in this organization"]);
  const plus = await t.owner.post('/users', { email: 'a+b@corp.example', password: 'x1234567', full_name: 'Plus Sign' });
  assert.equal(plus.body.msg, 'Email addresses containing + are not allowed.');
  const sub = await t.owner.post('/users', { email: 'x@sub.corp.example', password: 'x1234567', full_name: 'Sub Domain' });
  assert.equal(sub.body.msg, "Email 'x@sub.corp.example' not allowed in this organization", 'corp.example admits no subdomains');
  assert.equal((await t.owner.post('/users', { email: 'in@corp.example', password: 'x1234567', full_name: 'In Side' })).status, 200);
  assert.equal((await t.owner.post('/users', { email: 'deep@a.b.group.example', password: 'x1234567', full_name: 'Deep Sub' })).status, 200);
  assert.equal((await t.owner.post('/users', { email: 'Top@GROUP.example', password: 'x1234567', full_name: 'Top Level' })).status, 200);

  // do_invite_users: validate_email_is_valid's texts, and nobody is invited.
  const invited = await admin.post('/invites', { invitee_emails: 'ok@corp.example, far@elsewhere.example, p+q@corp.example', stream_ids: [] });
  assert.deepEqual([invited.status, invited.body.code, invited.body.msg, invited.body.sent_invitations], [400, 'INVITATION_FAILED', "Some emails did not validate, so we didn't send any invitations.", false]);
  assert.deepEqual(invited.body.errors, [
    ['far@elsewhere.example', 'Outside your domain.', false],
    ['p+q@corp.example', 'Email addresses containing + are not allowed.', false],
  ]);
  assert.ok(!(await admin.get('/invites')).body.invites.some((i: any) => i.email === 'ok@corp.example'));

  // The sign-up form (HomepageForm.clean_email), here through a reusable link made before.
  const far = await signUp(link, { email: 'far@elsewhere.example', full_name: 'Far Away', password: 'far-password' });
  assert.equal(far.status, 400);
  assert.match(far.text, /Your email address, far@elsewhere\.example, is not in one of the domains that are allowed to register for accounts in this organization\./);
  const plusForm = await signUp(link, { email: 'r+s@corp.example', full_name: 'Plus Form', password: 'plus-password' });
  assert.match(plusForm.text, /Email addresses containing \+ are not allowed in this organization\./);
  const near = await signUp(link, { email: 'near@corp.example', full_name: 'Near By', password: 'near-password' });
  assert.equal(near.status, 200, near.text);

  // validate_email_change_request: the same check for a new address, with validate_email_is_valid's texts.
  const moving = await admin.patch('/settings', { email: 'ada@elsewhere.example' });
  assert.deepEqual([moving.status, moving.body.code, moving.body.msg], [400, 'BAD_REQUEST', 'Outside your domain.']);
  assert.equal((await admin.patch('/settings', { email: 'ada+x@corp.example' })).body.msg, 'Email addresses containing + are not allowed.');
  assert.equal((await admin.patch('/settings', { email: 'ada@corp.example' })).status, 200);

  // do_remove_realm_domain: removing the last domain lifts the restriction, announced first.
  const q = await openQueue(admin, ['realm', 'realm_domains']);
  assert.equal((await t.owner.delete('/realm/domains/corp.example')).status, 200);
  assert.equal((await t.owner.delete('/realm/domains/group.example')).status, 200);
  const evs = (await queuedEvents(admin, q)).map((e) => (e.type === 'realm' ? [e.type, e.property, e.value] : [e.type, e.op, e.domain]));
  assert.deepEqual(evs, [
    ['realm_domains', 'remove', 'corp.example'],
    ['realm', 'emails_restricted_to_domains', false],
    ['realm_domains', 'remove', 'group.example'],
  ]);
  assert.equal((await admin.post('/register', { fetch_event_types: ['realm'] })).body.realm_emails_restricted_to_domains, false);
  assert.equal((await t.owner.post('/users', { email: 'free2@elsewhere.example', password: 'x1234567', full_name: 'Free Again' })).status, 200);
});

test('disallow_disposable_email_addresses (on by default): disposable-address domains are refused with each view\'s text', async () => {
  assert.equal((await admin.post('/register', { fetch_event_types: ['realm'] })).body.realm_disallow_disposable_email_addresses, true);
  const link = (await admin.post('/invites/multiuse', {})).body.invite_link as string;
  // create_user_backend's DisposableEmailError text.
  const created = await t.owner.post('/users', { email: 'temp@Mailinator.com', password: 'x1234567', full_name: 'Temp Person' });
  assert.deepEqual([created.status, created.body.code, created.body.msg], [400, 'BAD_REQUEST', 'Disposable email addresses are not allowed in this organization']);
  // validate_email_is_valid: invitations and a new address.
  const invited = await admin.post('/invites', { invitee_emails: 'fine@real.example, temp@mailinator.com', stream_ids: [] });
  assert.deepEqual([invited.status, invited.body.code], [400, 'INVITATION_FAILED']);
  assert.deepEqual(invited.body.errors, [['temp@mailinator.com', 'Please use your real email address.', false]]);
  const moving = await admin.patch('/settings', { email: 'ada@yopmail.com' });
  assert.deepEqual([moving.status, moving.body.msg], [400, 'Please use your real email address.']);
  // HomepageForm.clean_email, on the sign-up form.
  const form = await signUp(link, { email: 'temp@mailinator.com', full_name: 'Temp Form', password: 'temp-password' });
  assert.equal(form.status, 400);
  assert.match(form.text, /Please use your real email address\./);

  // An owner turns the rule off; the same addresses are then accepted.
  assert.equal((await t.owner.patch('/realm', { disallow_disposable_email_addresses: false })).status, 200);
  assert.equal((await admin.post('/register', { fetch_event_types: ['realm'] })).body.realm_disallow_disposable_email_addresses, false);
  assert.equal((await t.owner.post('/users', { email: 'temp@Mailinator.com', password: 'x1234567', full_name: 'Temp Person' })).status, 200);
  assert.equal((await admin.patch('/settings', { email: 'ada@yopmail.com' })).status, 200);
  assert.equal((await signUp(link, { email: 'temp2@mailinator.com', full_name: 'Temp Form', password: 'temp-password' })).status, 200);
});
