// POST /messages/{message_id}/report (the Notification Bot's report in the moderation request
// channel) and POST /realm/test_welcome_bot_custom_message (the Welcome Bot's direct message).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openQueue, queuedEvents, startTestServer, type Client, type TestServer, sendMessage } from './helpers.js';

let t: TestServer;
let member: Client;
let reported: Client;
let admin: Client;
let guest: Client;
let streams: Record<string, number>;

before(async () => {
  t = await startTestServer();
  member = await t.createUser({ name: 'Mia Member' });
  reported = await t.createUser({ name: 'Rex Rude' });
  admin = await t.createUser({ role: 'administrator', name: 'Ada Admin' });
  guest = await t.createUser({ role: 'guest', name: 'Gus Guest' });
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'town square' }], principals: [t.owner.userId, member.userId, reported.userId] });
  // Zulip's moderation request channel must be private.
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'mods' }], principals: [t.owner.userId, member.userId, reported.userId], invite_only: true });
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'hidden' }], invite_only: true });
  const all = (await t.owner.get('/streams')).body.streams as Array<{ stream_id: number; name: string }>;
  streams = Object.fromEntries(all.map((s) => [s.name, s.stream_id]));
});
after(async () => {
  await t.close();
});


test('reporting needs a moderation request channel; validation of the report', async () => {
  const id = await sendMessage(reported, { type: 'stream', to: 'town square', topic: 'lunch', content: 'You are all **terrible**.' });
  // Zulip's report_message_backend (the report_type/description version): the missing explanation
  // is found before reporting is found off.
  const off = await member.post(`/messages/${id}/report`, { report_type: 'harassment' });
  assert.deepEqual([off.status, off.body.code, off.body.msg], [400, 'BAD_REQUEST', 'Message reporting is not enabled in this organization.']);
  const offNoReason = await member.post(`/messages/${id}/report`, { report_type: 'other' });
  assert.deepEqual([offNoReason.status, offNoReason.body.msg], [400, 'An explanation is required.']);
  assert.equal((await t.owner.patch('/realm', { moderation_request_channel_id: streams.mods! })).status, 200);

  const missingType = await member.post(`/messages/${id}/report`, {});
  assert.deepEqual([missingType.status, missingType.body.code], [400, 'REQUEST_VARIABLE_MISSING']);
  const badType = await member.post(`/messages/${id}/report`, { report_type: 'boring' });
  assert.deepEqual([badType.status, badType.body.msg], [400, 'Invalid report_type']);
  const noReason = await member.post(`/messages/${id}/report`, { report_type: 'other' });
  assert.deepEqual([noReason.status, noReason.body.msg], [400, 'An explanation is required.']);
  const tooLong = await member.post(`/messages/${id}/report`, { report_type: 'spam', description: 'x'.repeat(1001) });
  assert.deepEqual([tooLong.status, tooLong.body.msg], [400, 'description is too long (limit: 1000 characters)']);
  for (const path of ['/messages/999999/report', '/messages/abc/report']) {
    const res = await member.post(path, { report_type: 'spam' });
    assert.deepEqual([res.status, res.body.msg], [400, 'Invalid message(s)'], path);
  }
  const secret = await sendMessage(t.owner, { type: 'stream', to: 'hidden', topic: 't', content: 'private words' });
  const hidden = await member.post(`/messages/${secret}/report`, { report_type: 'spam' });
  assert.deepEqual([hidden.status, hidden.body.msg], [400, 'Invalid message(s)'], 'a message one cannot read looks missing');
  const byGuest = await guest.post(`/messages/${id}/report`, { report_type: 'spam' });
  assert.deepEqual([byGuest.status, byGuest.body.msg], [400, 'Invalid message(s)']);
});

test('a channel message report: the Notification Bot posts it to the moderation channel', async () => {
  assert.equal((await t.owner.patch('/realm', { moderation_request_channel_id: streams.mods! })).status, 200);
  const id = await sendMessage(reported, { type: 'stream', to: 'town square', topic: 'lunch', content: 'Buy cheap pills!' });
  const q = await openQueue(t.owner, ['message']);
  const res = await member.post(`/messages/${id}/report`, { report_type: 'spam', description: 'Obvious spam.' });
  assert.deepEqual(res.body, { result: 'success', msg: '' });
  const msgs = (await queuedEvents(t.owner, q)).filter((e) => e.type === 'message').map((e) => e.message);
  assert.equal(msgs.length, 1);
  const m = msgs[0];
  assert.equal(m.sender_email, 'notification-bot@zulip.com');
  assert.equal(m.stream_id, streams.mods);
  assert.equal(m.subject, 'Rex Rude moderation');
  const lines = m.content.split('\n');
  assert.match(lines[0], new RegExp(`^@_\\*\\*Mia Member\\|${member.userId}\\*\\* reported a message sent by @_\\*\\*Rex Rude\\|${reported.userId}\\*\\* at <time:\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\+00:00>\\.$`));
  assert.equal(lines[1], '```quote');
  assert.equal(lines[2], '**Spam**. Obvious spam.');
  assert.equal(lines[3], '```');
  assert.equal(lines[5], `\`\`\` spoiler Original message at #**town square>lunch@${id}**`);
  assert.equal(lines[6], 'Buy cheap pills!');
  assert.equal(lines[7], '```');
  assert.match(m.content, /Buy cheap pills!/);
  // The reported message as stored for GET /messages.
  const fetched = await t.owner.get('/messages', { anchor: 'newest', num_before: 1, num_after: 0, narrow: [{ operator: 'channel', operand: streams.mods }], apply_markdown: true });
  assert.match(fetched.body.messages[0].content, /<blockquote>/);
  assert.match(fetched.body.messages[0].content, /spoiler-block/);
});

test("a report's mentions flag those mentioned, as Zulip's internal_send_stream_message does; the header's silent mentions do not", async () => {
  assert.equal((await t.owner.patch('/realm', { moderation_request_channel_id: streams.mods! })).status, 200);
  const ownerName = (await t.owner.get('/users/me')).body.full_name;
  const id = await sendMessage(reported, { type: 'stream', to: 'town square', topic: 'lunch', content: 'Hey @**Mia Member**, and @**all** of you!' });
  const queues = new Map<Client, string>();
  for (const c of [t.owner, member, reported]) queues.set(c, await openQueue(c, ['message']));
  const res = await member.post(`/messages/${id}/report`, { report_type: 'harassment', description: `cc @**${ownerName}**` });
  assert.deepEqual(res.body, { result: 'success', msg: '' });
  const flagsOf = async (c: Client) => {
    const evs = (await queuedEvents(c, queues.get(c)!)).filter((e) => e.type === 'message' && e.message.stream_id === streams.mods);
    assert.equal(evs.length, 1);
    return [...evs[0].flags].sort();
  };
  // The owner is mentioned in the note; Mia (the reporter) in the quoted message; everyone by its @**all**.
  // (wildcard_mentioned is the legacy flag clients still get beside stream_wildcard_mentioned.)
  const wildcard = ['stream_wildcard_mentioned', 'wildcard_mentioned'];
  assert.deepEqual(await flagsOf(t.owner), ['mentioned', ...wildcard]);
  assert.deepEqual(await flagsOf(member), ['mentioned', ...wildcard]);
  assert.deepEqual(await flagsOf(reported), wildcard, "the reported user's silent mention flags nothing");
  const unread = await t.owner.post('/register', { fetch_event_types: ['message', 'update_message_flags'] });
  const report = (await t.owner.get('/messages', { anchor: 'newest', num_before: 1, num_after: 0, narrow: [{ operator: 'channel', operand: streams.mods }] })).body.messages[0];
  assert.ok(unread.body.unread_msgs.mentions.includes(report.id), "the report is among the owner's unread mentions");
});

test('a direct message report names the recipient; fences inside the message are outgrown', async () => {
  assert.equal((await t.owner.patch('/realm', { moderation_request_channel_id: streams.mods! })).status, 200);
  const id = await sendMessage(reported, { type: 'private', to: [member.userId], content: 'look:\n```\ncode\n```' });
  const q = await openQueue(t.owner, ['message']);
  assert.equal((await reported.post(`/messages/${id}/report`, { report_type: 'other', description: 'I regret this.' })).status, 200);
  const [m] = (await queuedEvents(t.owner, q)).filter((e) => e.type === 'message').map((e) => e.message);
  assert.match(m.content, new RegExp(`reported a message sent by @_\\*\\*Rex Rude\\|${reported.userId}\\*\\* to @_\\*\\*Mia Member\\|${member.userId}\\*\\* at <time:`));
  assert.match(m.content, /\*\*Other reason\*\*\. I regret this\./);
  assert.match(m.content, /\n```` spoiler \[Original message\]\(http:\/\/[^)]+\/#narrow\/dm\/[\d,]+-dm\/near\/\d+\)\nlook:\n```\ncode\n```\n````/);
});

test('POST /realm/test_welcome_bot_custom_message: administrators get the Welcome Bot message', async () => {
  const q = await openQueue(admin, ['message', 'realm_user']);
  const res = await admin.post('/realm/test_welcome_bot_custom_message', { welcome_message_custom_text: 'Welcome, **friend**!' });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(typeof res.body.message_id, 'number');
  const evs = await queuedEvents(admin, q);
  assert.equal(evs.find((e) => e.type === 'realm_user'), undefined, 'the Welcome Bot is a system bot: no realm_user event');
  const bots = (await admin.post('/register', { fetch_event_types: ['realm_user'] })).body.cross_realm_bots;
  const added = { person: bots.find((b: any) => b.email === 'welcome-bot@zulip.com') };
  const event = evs.find((e) => e.type === 'message');
  const m = event?.message;
  assert.equal(m.id, res.body.message_id);
  assert.equal(m.sender_email, 'welcome-bot@zulip.com');
  assert.equal(m.type, 'private');
  assert.deepEqual(m.display_recipient.map((r: any) => r.id).sort(), [admin.userId, added.person.user_id].sort());
  assert.equal(m.content, 'Welcome, **friend**!');
  assert.deepEqual(event.flags, [], 'unread for the administrator');
  const again = await admin.post('/realm/test_welcome_bot_custom_message', { welcome_message_custom_text: 'Second' });
  assert.equal(again.status, 200);
  assert.ok(again.body.message_id > res.body.message_id);

  const byMember = await member.post('/realm/test_welcome_bot_custom_message', { welcome_message_custom_text: 'hi' });
  assert.deepEqual([byMember.status, byMember.body.code, byMember.body.msg], [400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator']);
  const missing = await admin.post('/realm/test_welcome_bot_custom_message', {});
  assert.deepEqual([missing.status, missing.body.code], [400, 'REQUEST_VARIABLE_MISSING']);
  const long = await admin.post('/realm/test_welcome_bot_custom_message', { welcome_message_custom_text: 'x'.repeat(8001) });
  assert.deepEqual([long.status, long.body.msg], [400, 'welcome_message_custom_text is too long (limit: 8000 characters)']);
  const blank = await admin.post('/realm/test_welcome_bot_custom_message', { welcome_message_custom_text: '   ' });
  assert.equal(blank.status, 400);
});

test('an invitation with a custom welcome text: the Welcome Bot greets the new account (administrators only choose it)', async () => {
  const link = (await admin.post('/invites/multiuse', { welcome_message_custom_text: 'Hello from the admins' })).body.invite_link as string;
  const res = await fetch(link, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ email: 'greeted@example.com', full_name: 'Greta Greeted', password: 'greeted-pw' }).toString() });
  assert.equal(res.status, 200, await res.text());
  const login = await (await fetch(new URL('/api/v1/fetch_api_key', t.url), { method: 'POST', body: new URLSearchParams({ username: 'greeted@example.com', password: 'greeted-pw' }) })).json() as any;
  const { Client } = await import('./helpers.js');
  const greta = new Client(t.url, 'greeted@example.com', login.api_key, login.user_id);
  const msgs = (await greta.get('/messages', { anchor: 'newest', num_before: 10, num_after: 0, narrow: [{ operator: 'is', operand: 'dm' }] })).body.messages as any[];
  assert.equal(msgs.length, 1);
  assert.equal(msgs[0].sender_email, 'welcome-bot@zulip.com');
  assert.match(msgs[0].content, /Hello from the admins/);
  assert.deepEqual(msgs[0].flags, []);

  // A member may not choose a custom text (Zulip's invite_users_backend refuses it); a member's
  // invitation carries the organization's (empty) text, so no greeting.
  const { existsSync, readdirSync, readFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const refused = await member.post('/invites', { invitee_emails: 'plain@example.com', stream_ids: [], welcome_message_custom_text: 'Member text' });
  assert.deepEqual([refused.status, refused.body.msg], [400, 'Must be an organization administrator']);
  assert.equal((await member.post('/invites', { invitee_emails: 'plain@example.com', stream_ids: [] })).status, 200);
  const dir = t.server.services.config.outboxDir;
  const mail = readdirSync(dir).map((f) => readFileSync(join(dir, f), 'utf8')).find((m) => /^To: plain@example\.com/m.test(m))!;
  assert.ok(existsSync(dir) && mail);
  const confirm = /(http:\/\/\S+\/accounts\/do_confirm\/[0-9a-f]+)/.exec(mail)![1]!;
  const made = await fetch(confirm, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ full_name: 'Pat Plain', password: 'plain-pw-1' }).toString() });
  assert.equal(made.status, 200);
  const login2 = await (await fetch(new URL('/api/v1/fetch_api_key', t.url), { method: 'POST', body: new URLSearchParams({ username: 'plain@example.com', password: 'plain-pw-1' }) })).json() as any;
  const pat = new Client(t.url, 'plain@example.com', login2.api_key, login2.user_id);
  const dms = (await pat.get('/messages', { anchor: 'newest', num_before: 10, num_after: 0, narrow: [{ operator: 'is', operand: 'dm' }] })).body.messages as any[];
  assert.deepEqual(dms, []);
});
