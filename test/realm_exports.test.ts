// Organization data exports: permissions, validation, the archive's contents per export type,
// downloading, deleting, failures, the weekly limit, consents, and realm_export events.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Client, openQueue, queuedEvents, startTestServer, type TestServer } from './helpers.js';
import { exportRecord } from './beyond_api.js';

let t: TestServer;
let admin: Client;
let member: Client;
let consenting: Client;
before(async () => {
  t = await startTestServer();
  admin = await t.createUser({ role: 'administrator', name: 'Ada Admin' });
  member = await t.createUser({ name: 'Mo Member' });
  consenting = await t.createUser({ name: 'Cy Consent' });
  assert.equal((await consenting.patch('/settings', { allow_private_data_export: true })).status, 200);
});
after(async () => {
  await t.close();
});

/** The files of a .tar.gz, by name (without the top folder). */
function untar(gz: Buffer): Map<string, string> {
  const tar = gunzipSync(gz);
  const files = new Map<string, string>();
  let off = 0;
  while (off + 512 <= tar.length) {
    const h = tar.subarray(off, off + 512);
    if (h.every((b) => b === 0)) break;
    const name = h.subarray(0, 100).toString('ascii').replace(/\0.*$/s, '');
    const size = parseInt(h.subarray(124, 136).toString('ascii').replace(/\0.*$/s, ''), 8);
    let sum = 0;
    for (let i = 0; i < 512; i++) sum += i >= 148 && i < 156 ? 32 : h[i];
    assert.equal(parseInt(h.subarray(148, 154).toString('ascii'), 8), sum, 'header checksum');
    assert.equal(h.subarray(257, 262).toString('ascii'), 'ustar');
    files.set(name.replace(/^[^/]+\//, ''), tar.subarray(off + 512, off + 512 + size).toString('utf8'));
    off += 512 + Math.ceil(size / 512) * 512;
  }
  return files;
}

async function waitDone(c: Client, id: number): Promise<any> {
  for (let i = 0; i < 200; i++) {
    const res = await c.get('/export/realm');
    assert.equal(res.status, 200);
    const e = res.body.exports.find((x: any) => x.id === id);
    if (e && !e.pending) return e;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`export ${id} never finished`);
}

async function download(url: string, c?: Client): Promise<{ status: number; body: Buffer; type: string | null }> {
  const res = await fetch(url, { headers: c ? { Authorization: c.authHeader } : {} });
  return { status: res.status, body: Buffer.from(await res.arrayBuffer()), type: res.headers.get('content-type') };
}

test('only administrators export; export_type is validated', async () => {
  for (const [method, path] of [
    ['post', '/export/realm'],
    ['get', '/export/realm'],
    ['get', '/export/realm/consents'],
    ['delete', '/export/realm/1'],
  ] as const) {
    const res = await member[method](path);
    assert.equal(res.status, 400, `${method} ${path}`);
    assert.equal(res.body.msg, 'Must be an organization administrator');
    assert.equal(res.body.code, 'UNAUTHORIZED_PRINCIPAL');
  }
  const bad = await admin.post('/export/realm', { export_type: 'everything' });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.msg, 'Invalid export_type');
  const numeric = await admin.post('/export/realm', { export_type: 1 });
  assert.equal(numeric.body.msg, 'Invalid export_type', 'the integer form was replaced by names');
  const noConsent = await t.owner.post('/export/realm', { export_type: 'full_without_consent' });
  assert.equal(noConsent.status, 400);
  assert.equal(noConsent.body.msg, 'Full export without consent is not enabled for this organization.');
  assert.deepEqual((await admin.get('/export/realm')).body.exports, [], 'refused requests record nothing');
});

test('a public export: events to administrators, the archive without private data, downloads for administrators only', async () => {
  const pub = await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'town square' }], principals: [member.userId, consenting.userId] });
  assert.equal(pub.status, 200);
  const priv = await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'back room' }], invite_only: true, principals: [consenting.userId, t.owner.userId] });
  assert.equal(priv.status, 200);
  const sent = await member.post('/messages', { type: 'stream', to: 'town square', topic: 'hello', content: 'public words' });
  assert.equal(sent.status, 200);
  assert.equal((await member.post(`/messages/${sent.body.id}/reactions`, { emoji_name: 'smile' })).status, 200);
  assert.equal((await t.owner.post('/messages', { type: 'stream', to: 'back room', topic: 'x', content: 'private channel words' })).status, 200);
  assert.equal((await member.post('/messages', { type: 'direct', to: [consenting.userId], content: 'a direct word' })).status, 200);
  assert.equal((await member.post('/messages', { type: 'direct', to: [admin.userId], content: 'unconsented direct word' })).status, 200);

  const adminQueue = await openQueue(admin, ['realm_export']);
  const memberQueue = await openQueue(member, ['realm_export']);
  const before = Date.now() / 1000;
  const res = await admin.post('/export/realm');
  assert.equal(res.status, 200);
  assert.ok(Number.isInteger(res.body.id));
  const done = await waitDone(admin, res.body.id);
  assert.equal(done.acting_user_id, admin.userId);
  assert.equal(done.export_type, 'public');
  assert.equal(done.deleted_timestamp, null);
  assert.equal(done.failed_timestamp, null);
  assert.ok(done.export_time >= before - 1 && done.export_time <= Date.now() / 1000 + 1);
  assert.match(done.export_url, new RegExp(`^${t.url}/user_avatars/exports/${t.realmId}/[A-Za-z0-9_-]+/zulip-export-[0-9a-f]+\\.tar\\.gz$`));

  const events = (await queuedEvents(admin, adminQueue)).filter((e) => e.type === 'realm_export');
  assert.equal(events.length, 2, 'one when it starts, one when it is ready');
  assert.deepEqual(Object.keys(events[0]).sort(), ['exports', 'id', 'type']);
  assert.equal(events[0].exports[0].pending, true);
  assert.equal(events[0].exports[0].export_url, null);
  assert.deepEqual(events[1].exports, [done]);
  assert.deepEqual(await queuedEvents(member, memberQueue), [], 'members hear nothing');

  const file = await download(done.export_url, admin);
  assert.equal(file.status, 200);
  assert.equal(file.type, 'application/gzip');
  const files = untar(file.body);
  assert.deepEqual([...files.keys()].sort(), [
    'channels.json', 'custom_emoji.json', 'direct_message_groups.json', 'messages.json', 'reactions.json', 'realm.json', 'subscriptions.json', 'uploads.json', 'users.json',
  ]);
  const users = JSON.parse(files.get('users.json')!);
  assert.ok(users.some((u: any) => u.id === member.userId && u.full_name === 'Mo Member'));
  for (const u of users) {
    assert.equal(u.api_key, undefined);
    assert.equal(u.password_hash, undefined);
    assert.equal(u.settings, undefined, 'no personal settings in a public export');
  }
  const contents = JSON.parse(files.get('messages.json')!).map((m: any) => m.content);
  assert.deepEqual(contents.filter((c: string) => c.includes('words') || c.includes('word')), ['public words']);
  const channels = JSON.parse(files.get('channels.json')!).map((c: any) => c.name);
  assert.ok(channels.includes('town square'));
  assert.ok(!channels.includes('back room'));
  assert.deepEqual(JSON.parse(files.get('reactions.json')!).map((r: any) => [r.message_id, r.emoji_name]), [[sent.body.id, 'smile']]);
  assert.equal(JSON.parse(files.get('realm.json')!).id, t.realmId);

  assert.equal((await download(done.export_url, member)).status, 404, 'members cannot download');
  assert.equal((await download(done.export_url)).status, 401, 'nor can anyone without credentials');
  const other = await t.createOrg('Elsewhere');
  assert.equal((await download(done.export_url, other.owner)).status, 404, 'nor another organization');
  assert.deepEqual((await other.owner.get('/export/realm')).body.exports, [], 'lists are per organization');
  assert.equal((await download(done.export_url.replace(/zulip-export-[0-9a-f]+/, 'zulip-export-00'), admin)).status, 404);
  const byKey = await fetch(`${done.export_url}?api_key=${encodeURIComponent(admin.apiKey)}`);
  assert.equal(byKey.status, 200, 'a browser link with the api_key works');
  await byKey.arrayBuffer();
});

test('a full export with consent includes the private data of consenting users only', async () => {
  const res = await t.owner.post('/export/realm', { export_type: 'full_with_consent' });
  assert.equal(res.status, 200);
  const done = await waitDone(t.owner, res.body.id);
  assert.equal(done.export_type, 'full_with_consent');
  assert.equal(done.acting_user_id, t.owner.userId);
  const files = untar((await download(done.export_url, t.owner)).body);
  const contents = JSON.parse(files.get('messages.json')!).map((m: any) => m.content);
  assert.ok(contents.includes('public words'));
  assert.ok(contents.includes('a direct word'), 'a direct message a consenting user received');
  assert.ok(contents.includes('private channel words'), 'a private channel a consenting user is in');
  assert.ok(!contents.includes('unconsented direct word'));
  const users = JSON.parse(files.get('users.json')!);
  assert.equal(users.find((u: any) => u.id === consenting.userId).settings.allow_private_data_export, true);
  assert.equal(users.find((u: any) => u.id === member.userId).settings, undefined);
  const groups = JSON.parse(files.get('direct_message_groups.json')!);
  assert.ok(groups.some((g: any) => g.user_ids.includes(consenting.userId) && g.user_ids.includes(member.userId)));
});

test('consents: each active human user, with their email visibility; changes reach administrators', async () => {
  const res = await admin.get('/export/realm/consents');
  assert.equal(res.status, 200);
  const byUser = new Map(res.body.export_consents.map((c: any) => [c.user_id, c]));
  assert.deepEqual(byUser.get(consenting.userId), { user_id: consenting.userId, consented: true, email_address_visibility: 1 });
  assert.deepEqual(byUser.get(member.userId), { user_id: member.userId, consented: false, email_address_visibility: 1 });
  assert.equal((await member.patch('/settings', { email_address_visibility: 4 })).status, 200);
  const again = await t.owner.get('/export/realm/consents');
  assert.equal(again.body.export_consents.find((c: any) => c.user_id === member.userId).email_address_visibility, 4);

  const adminQueue = await openQueue(admin, ['realm_export_consent']);
  const memberQueue = await openQueue(member, ['realm_export_consent']);
  assert.equal((await member.patch('/settings', { allow_private_data_export: true })).status, 200);
  assert.deepEqual((await queuedEvents(admin, adminQueue)).map(({ id, ...e }) => e), [{ type: 'realm_export_consent', user_id: member.userId, consented: true }]);
  assert.deepEqual(await queuedEvents(member, memberQueue), [], 'only administrators hear of consent changes');
  assert.equal((await member.patch('/settings', { allow_private_data_export: true })).status, 200);
  assert.equal((await queuedEvents(admin, adminQueue)).length, 1, 'no event when nothing changed');
  assert.equal((await admin.get('/export/realm/consents')).body.export_consents.find((c: any) => c.user_id === member.userId).consented, true);
});

test('deleting: the file goes, the list keeps the record, errors for every other state', async () => {
  const res = await admin.post('/export/realm');
  const done = await waitDone(admin, res.body.id);
  const queue = await openQueue(t.owner, ['realm_export']);
  const del = await admin.delete(`/export/realm/${done.id}`);
  assert.equal(del.status, 200);
  // The export's own completion may be announced after the list already showed it done (its
  // event goes out once the commit is on disk): the last event carries the newest list.
  const event = (await queuedEvents(t.owner, queue)).at(-1);
  assert.equal(event.type, 'realm_export');
  const after = event.exports.find((e: any) => e.id === done.id);
  assert.equal(typeof after.deleted_timestamp, 'number');
  assert.equal(after.export_url, null);
  assert.equal(after.pending, false);
  assert.deepEqual((await admin.get('/export/realm')).body.exports.find((e: any) => e.id === done.id), after);
  assert.equal((await download(done.export_url, admin)).status, 404, 'the file is gone');
  assert.equal((await admin.delete(`/export/realm/${done.id}`)).body.msg, 'Export already deleted');

  for (const id of ['999999', 'abc']) {
    const missing = await admin.delete(`/export/realm/${id}`);
    assert.equal(missing.status, 400);
    assert.equal(missing.body.msg, 'Invalid data export ID');
  }
  const other = await t.createOrg('Other Exports');
  assert.equal((await other.owner.delete(`/export/realm/${done.id}`)).body.msg, 'Invalid data export ID', "another organization's export looks missing");

  // Records in the states a request cannot catch in time: still being written, and failed.
  const pendingId = await exportRecord(t, { actingUserId: admin.userId, requestedMs: 1000 });
  const failedId = await exportRecord(t, { actingUserId: admin.userId, requestedMs: 1000, failedMs: 2000 });
  assert.equal((await admin.delete(`/export/realm/${pendingId}`)).body.msg, 'Export still in progress');
  assert.equal((await admin.delete(`/export/realm/${failedId}`)).body.msg, 'Export failed, nothing to delete');
  const listed = (await admin.get('/export/realm')).body.exports;
  assert.deepEqual(listed.find((e: any) => e.id === pendingId), {
    id: pendingId, acting_user_id: admin.userId, export_time: 1, deleted_timestamp: null, failed_timestamp: null, export_url: null, pending: true, export_type: 'public',
  });
  assert.equal(listed.find((e: any) => e.id === failedId).failed_timestamp, 2);
});

test('five exports a week per organization', async () => {
  const org = await t.createOrg('Busy Exporters');
  const ids: number[] = [];
  for (let i = 0; i < 5; i++) {
    const res = await org.owner.post('/export/realm');
    assert.equal(res.status, 200);
    ids.push(res.body.id);
  }
  const over = await org.owner.post('/export/realm');
  assert.equal(over.status, 400);
  assert.equal(over.body.msg, 'Exceeded rate limit.');
  for (const id of ids) await waitDone(org.owner, id);
  assert.equal((await org.owner.get('/export/realm')).body.exports.length, 5);
});

test('an export that cannot be written is marked failed, and administrators hear of it', async () => {
  const s = await startTestServer();
  try {
    // A file where the exports folder should be: writing the archive fails.
    const uploads = s.server.services.config.uploadsDir;
    mkdirSync(uploads, { recursive: true });
    writeFileSync(join(uploads, 'exports'), 'in the way');
    const queue = await openQueue(s.owner, ['realm_export']);
    const res = await s.owner.post('/export/realm');
    assert.equal(res.status, 200);
    const done = await waitDone(s.owner, res.body.id);
    assert.equal(typeof done.failed_timestamp, 'number');
    assert.equal(done.export_url, null);
    assert.equal(done.pending, false);
    const events = await queuedEvents(s.owner, queue);
    assert.equal(events.length, 2);
    assert.deepEqual(events[1].exports, [done]);
  } finally {
    await s.close();
  }
});
