// File uploads: POST /user_uploads, serving /user_uploads/… to those who may see the file,
// temporary URLs, attachment bookkeeping on send and edit, GET/DELETE /attachments and events.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openQueue, postToChannel, queuedEvents, startTestServer, type Client, type TestServer } from './helpers.js';

let t: TestServer;
let ann: Client;
let bob: Client;
let carol: Client;
let guest: Client;
before(async () => {
  t = await startTestServer();
  ann = await t.createUser({ name: 'Ann Uploader' });
  bob = await t.createUser({ name: 'Bob Reader' });
  carol = await t.createUser({ name: 'Carol Other' });
  guest = await t.createUser({ name: 'Gus Guest', role: 'guest' });
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'open' }], principals: [ann.userId, bob.userId] });
});
after(async () => {
  await t.close();
});

/** A file request as a browser or download manager makes it (not an API exchange: not recorded). */
async function fetchFile(url: string, c?: Client, query = '') {
  const headers: Record<string, string> = {};
  if (c) headers.Authorization = c.authHeader;
  const res = await fetch(new URL(url + query, t.url), { headers });
  return { status: res.status, headers: res.headers, text: Buffer.from(await res.arrayBuffer()).toString('utf8') };
}

async function upload(c: Client, name: string, data: string, type?: string) {
  const res = await c.upload('/user_uploads', [{ name, data, type }]);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body as { url: string; uri: string; filename: string };
}

const pathOf = (url: string) => url.slice('/user_uploads/'.length);
const dm = (from: Client, to: Client[], content: string) => from.post('/messages', { type: 'direct', to: JSON.stringify(to.map((c) => c.userId)), content });
const attachmentsOf = async (c: Client) => (await c.get('/attachments')).body.attachments as any[];

test('upload: Zulip URL shape, legacy uri, original filename, add event, served to the uploader', async () => {
  const q = await openQueue(ann, ['attachment']);
  const res = await ann.upload('/user_uploads', [{ name: 'hello.txt', data: 'hello world', type: 'text/plain' }]);
  assert.equal(res.status, 200);
  assert.match(res.body.url, new RegExp(`^/user_uploads/${t.realmId}/[0-9a-f]{1,2}/[A-Za-z0-9_-]{24}/hello\\.txt$`));
  assert.equal(res.body.uri, res.body.url);
  assert.equal(res.body.filename, 'hello.txt');
  const [ev] = await queuedEvents(ann, q);
  assert.equal(ev.type, 'attachment');
  assert.equal(ev.op, 'add');
  assert.deepEqual(Object.keys(ev.attachment).sort(), ['create_time', 'id', 'message_ids', 'name', 'path_id', 'size']);
  assert.equal(ev.attachment.path_id, pathOf(res.body.url));
  assert.equal(ev.attachment.name, 'hello.txt');
  assert.equal(ev.attachment.size, 11);
  assert.deepEqual(ev.attachment.message_ids, []);
  assert.ok(Math.abs(ev.attachment.create_time - Date.now() / 1000) < 60, 'create_time is in seconds');
  assert.ok(ev.upload_space_used >= 11);

  const file = await fetchFile(res.body.url, ann);
  assert.equal(file.status, 200);
  assert.equal(file.text, 'hello world');
  assert.equal(file.headers.get('content-type'), 'text/plain; charset=ascii');
  assert.equal(file.headers.get('content-disposition'), 'inline; filename="hello.txt"');
  assert.equal(file.headers.get('x-content-type-options'), 'nosniff');
  assert.match(file.headers.get('cache-control') ?? '', /private/);
  const download = await fetchFile(res.body.url.replace('/user_uploads/', '/user_uploads/download/'), ann);
  assert.equal(download.status, 200);
  assert.equal(download.headers.get('content-disposition'), 'attachment; filename="hello.txt"');
});

test('upload: filenames sanitized as Zulip does; the response keeps the name as sent', async () => {
  const cases: Array<[string, string, string]> = [
    ['My Résumé (final)!.pdf', 'My-Résumé-final.pdf', 'My Résumé (final)!.pdf'],
    ['a  -  b.txt', 'a-b.txt', 'a  -  b.txt'],
    ['../../etc/passwd', 'passwd', 'passwd'],
    ['???', 'uploaded-file', '???'],
    ['a%20b%2Bc.txt', 'a-bc.txt', 'a b+c.txt'],
    ['ﬁle.txt', 'file.txt', 'ﬁle.txt'],
  ];
  for (const [sent, stored, reported] of cases) {
    const res = await upload(ann, sent, 'x');
    assert.equal(res.url.split('/').pop(), stored, sent);
    assert.equal(res.filename, reported, sent);
    assert.equal((await fetchFile(res.url, ann)).status, 200, sent);
  }
  const long = await upload(ann, 'x'.repeat(300) + '.txt', 'x');
  const last = long.url.split('/').pop()!;
  assert.equal(Buffer.byteLength(last), 255);
  assert.ok(last.endsWith('.txt'), 'the extension survives truncation');
});

test('upload: no file, two files, unauthenticated', async () => {
  const none = await ann.upload('/user_uploads', [], { note: 'nothing' });
  assert.equal(none.status, 400);
  assert.equal(none.body.msg, 'You must specify a file to upload');
  assert.equal(none.body.code, 'BAD_REQUEST');
  const two = await ann.upload('/user_uploads', [
    { name: 'a.txt', data: 'a' },
    { name: 'b.txt', data: 'b', field: 'other' },
  ]);
  assert.equal(two.status, 400);
  assert.equal(two.body.msg, 'You may only upload one file at a time');
  const form = new FormData();
  form.append('file', new Blob(['x']), 'x.txt');
  const anon = await fetch(new URL('/api/v1/user_uploads', t.url), { method: 'POST', body: form });
  assert.equal(anon.status, 401);
  assert.equal((await anon.json()).code, 'UNAUTHORIZED');
});

test('upload: the size limit is max_file_upload_size_mib, with Zulip\'s error', async () => {
  const small = await startTestServer({ maxFileUploadSizeMib: 1 });
  try {
    const reg = await small.owner.post('/register', { fetch_event_types: ['realm'] });
    assert.equal(reg.body.max_file_upload_size_mib, 1);
    const atLimit = await small.owner.upload('/user_uploads', [{ name: 'ok.bin', data: Buffer.alloc(1024 * 1024, 1) }]);
    assert.equal(atLimit.status, 200);
    const over = await small.owner.upload('/user_uploads', [{ name: 'big.bin', data: Buffer.alloc(1024 * 1024 + 1, 1) }]);
    assert.equal(over.status, 400);
    assert.equal(over.body.msg, "File is larger than this server's configured maximum upload size (1 MiB).");
    assert.equal((await small.owner.get('/attachments')).body.attachments.length, 1, 'the refused file was not kept');
  } finally {
    await small.close();
  }
  const reg = await ann.post('/register', { fetch_event_types: ['realm'] });
  assert.equal(reg.body.max_file_upload_size_mib, 25, 'the default');
});

test('content type and disposition: images inline, other types as downloads, non-ASCII names in RFC 8187 form', async () => {
  const png = await upload(ann, 'pic.png', 'not really a png', 'image/png');
  const pngFile = await fetchFile(png.url, ann);
  assert.equal(pngFile.headers.get('content-type'), 'image/png');
  assert.equal(pngFile.headers.get('content-disposition'), 'inline; filename="pic.png"');
  const html = await upload(ann, 'page.html', '<script>alert(1)</script>', 'text/html');
  const htmlFile = await fetchFile(html.url, ann);
  assert.equal(htmlFile.headers.get('content-type'), 'text/html');
  assert.equal(htmlFile.headers.get('content-disposition'), 'attachment; filename="page.html"');
  assert.equal(htmlFile.headers.get('x-content-type-options'), 'nosniff');
  const guessed = await upload(ann, 'photo.jpg', 'jpeg bytes');
  assert.equal((await fetchFile(guessed.url, ann)).headers.get('content-type'), 'image/jpeg', 'an undeclared type is guessed from the extension');
  const svg = await upload(ann, 'draw.svg', '<svg xmlns="http://www.w3.org/2000/svg"/>', 'image/svg+xml');
  assert.match((await fetchFile(svg.url, ann)).headers.get('content-security-policy') ?? '', /sandbox/);
  const named = await upload(ann, 'Ünïcode "q".zip', 'zip', 'application/zip');
  assert.equal((await fetchFile(named.url, ann)).headers.get('content-disposition'), `attachment; filename*=utf-8''${encodeURIComponent('Ünïcode "q".zip')}`);
  const quoted = await upload(ann, 'say "hi".txt', 'hi', 'text/plain');
  assert.equal((await fetchFile(quoted.url, ann)).headers.get('content-disposition'), 'inline; filename="say \\"hi\\".txt"');
});

test('serving: credentials required; api_key in the query works; others and other organizations get 404', async () => {
  const up = await upload(ann, 'secret.txt', 'top secret');
  assert.equal((await fetchFile(up.url)).status, 401, 'no credentials');
  const byKey = await fetchFile(up.url, undefined, `?api_key=${ann.apiKey}`);
  assert.equal(byKey.status, 200);
  assert.equal(byKey.text, 'top secret');
  assert.equal((await fetchFile(up.url, undefined, '?api_key=wrong')).status, 401);
  const other = await fetchFile(up.url, bob);
  assert.equal(other.status, 404, 'not linked anywhere bob can read');
  assert.match(other.text, /does not exist/);
  const missing = await fetchFile(up.url.replace(/[^/]+$/, 'nope.txt'), ann);
  assert.equal(missing.status, 404, 'a missing file looks the same');
  const { owner: foreign } = await t.createOrg('Elsewhere');
  assert.equal((await fetchFile(up.url, foreign)).status, 404, 'another organization');
  // The API form answers with the same error as JSON.
  const api = await bob.get(up.url);
  assert.equal(api.status, 404);
  assert.equal(api.body.result, 'error');
  assert.equal((await foreign.get(up.url)).status, 404);
});

test('temporary URLs: GET /api/v1/user_uploads/… gives a URL that works without credentials', async () => {
  const up = await upload(ann, 'report.txt', 'quarterly');
  const res = await ann.get(up.url);
  assert.equal(res.status, 200);
  assert.match(res.body.url, /^\/user_uploads\/temporary\/[0-9A-F]+\/report\.txt$/);
  const file = await fetchFile(res.body.url);
  assert.equal(file.status, 200);
  assert.equal(file.text, 'quarterly');
  assert.equal(file.headers.get('content-disposition'), 'inline; filename="report.txt"');
  const parts = res.body.url.split('/');
  const token: string = parts[3];
  const flipped = token.slice(0, -2) + (token.endsWith('41') ? '42' : '41');
  const tampered = await fetch(new URL(`/user_uploads/temporary/${flipped}/report.txt`, t.url));
  assert.equal(tampered.status, 400);
  assert.equal((await tampered.json()).msg, 'Invalid token');
  const renamed = await fetch(new URL(`/user_uploads/temporary/${token}/other.txt`, t.url));
  assert.equal(renamed.status, 400);
  assert.equal((await renamed.json()).msg, 'Invalid filename');
  const garbage = await fetch(new URL('/user_uploads/temporary/zz/report.txt', t.url));
  assert.equal(garbage.status, 400);
});

test('a public channel message shares the file with members, not with guests; update event to the uploader', async () => {
  const up = await upload(ann, 'plan.txt', 'the plan');
  const [before] = (await attachmentsOf(ann)).filter((a) => a.path_id === pathOf(up.url));
  const q = await openQueue(ann, ['attachment']);
  const sent = await postToChannel(ann, 'open', 'files', `see [plan.txt](${up.url})`);
  assert.equal(sent.status, 200);
  const [ev] = await queuedEvents(ann, q);
  assert.equal(ev.op, 'update');
  assert.equal(ev.attachment.id, before.id);
  assert.deepEqual(ev.attachment.message_ids, [sent.body.id]);
  assert.equal((await fetchFile(up.url, bob)).status, 200, 'a subscriber');
  assert.equal((await fetchFile(up.url, carol)).status, 200, 'a member not subscribed: public history');
  assert.equal((await fetchFile(up.url, guest)).status, 404, 'a guest who is not subscribed');
  const api = await carol.get(up.url);
  assert.equal(api.status, 200);
});

test('private channels: recipients, and late subscribers only where history is public', async () => {
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'vault' }], principals: [ann.userId, bob.userId], invite_only: true, history_public_to_subscribers: false });
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'library' }], principals: [ann.userId], invite_only: true, history_public_to_subscribers: true });
  const v = await upload(ann, 'vault.txt', 'v');
  const l = await upload(ann, 'library.txt', 'l');
  assert.equal((await postToChannel(ann, 'vault', 'files', `[v](${v.url})`)).status, 200);
  assert.equal((await postToChannel(ann, 'library', 'files', `[l](${l.url})`)).status, 200);
  assert.equal((await fetchFile(v.url, bob)).status, 200, 'received the message');
  assert.equal((await fetchFile(v.url, carol)).status, 404, 'not subscribed');
  const added = await ann.post('/users/me/subscriptions', { subscriptions: [{ name: 'vault' }, { name: 'library' }], principals: [carol.userId] });
  assert.equal(added.status, 200, JSON.stringify(added.body));
  assert.equal((await fetchFile(v.url, carol)).status, 404, 'joined later, protected history');
  assert.equal((await fetchFile(l.url, carol)).status, 200, 'joined later, public history');
  assert.equal((await fetchFile(l.url, bob)).status, 404, 'not subscribed to the private channel');
});

test('direct messages: recipients may read and reshare; a user without access cannot share it', async () => {
  const up = await upload(ann, 'dm.txt', 'between us');
  const first = await dm(ann, [bob], `here [dm.txt](${up.url})`);
  assert.equal(first.status, 200);
  assert.equal((await fetchFile(up.url, bob)).status, 200);
  assert.equal((await fetchFile(up.url, carol)).status, 404);
  // Carol cannot read it, so her link claims nothing and gives the guest nothing.
  const q = await openQueue(ann, ['attachment']);
  assert.equal((await dm(carol, [guest], `try ${t.url}${up.url}`)).status, 200);
  assert.equal((await fetchFile(up.url, guest)).status, 404);
  assert.deepEqual(await queuedEvents(ann, q), []);
  // Bob received it, so he may pass it on (absolute links to this server count too).
  const reshare = await dm(bob, [carol], `fyi ${t.url}${up.url}`);
  assert.equal(reshare.status, 200);
  assert.equal((await fetchFile(up.url, carol)).status, 200);
  const [ev] = await queuedEvents(ann, q);
  assert.equal(ev.op, 'update');
  assert.deepEqual(ev.attachment.message_ids, [first.body.id, reshare.body.id]);
  const mine = (await attachmentsOf(ann)).find((a) => a.path_id === pathOf(up.url));
  assert.deepEqual(mine.message_ids, [first.body.id, reshare.body.id]);
  assert.equal((await attachmentsOf(bob)).length, 0, 'resharing does not make it bob\'s');
  // Several files reshared in one message, one of which the resharer cannot read.
  const second = await upload(ann, 'second.txt', 'two');
  const private2 = await upload(ann, 'private.txt', 'mine only');
  await dm(ann, [bob], `[2](${second.url})`);
  const both = await dm(bob, [guest], `[1](${up.url}) [2](${second.url}) [p](${private2.url})`);
  assert.equal(both.status, 200);
  assert.equal((await fetchFile(up.url, guest)).status, 200, 'a guest who received it');
  assert.equal((await fetchFile(second.url, guest)).status, 200);
  assert.equal((await fetchFile(private2.url, guest)).status, 404);
  assert.deepEqual((await attachmentsOf(ann)).find((a) => a.path_id === pathOf(private2.url)).message_ids, []);
  // Links that name no upload, or an upload path in code, are no claims at all.
  assert.equal((await dm(ann, [bob], '[x](/user_uploads/1/ab/nothing/here.txt) `/user_uploads/1/x/y/z.txt`')).status, 200);
});

test('GET /attachments: only the user\'s own files, their messages, and the organization\'s space used', async () => {
  const mineBefore = await ann.get('/attachments');
  assert.equal(mineBefore.status, 200);
  const b = await upload(bob, 'bobs.txt', '12345');
  const bobs = await bob.get('/attachments');
  assert.equal(bobs.body.attachments.length, 1);
  assert.equal(bobs.body.attachments[0].name, 'bobs.txt');
  assert.equal(bobs.body.attachments[0].path_id, pathOf(b.url));
  assert.equal(bobs.body.attachments[0].size, 5);
  const anns = await ann.get('/attachments');
  assert.ok(anns.body.attachments.every((a: any) => a.path_id !== pathOf(b.url)));
  const total = anns.body.attachments.reduce((s: number, a: any) => s + a.size, 0) + 5;
  assert.equal(anns.body.upload_space_used, total, 'every upload in the organization counts');
  assert.equal(bobs.body.upload_space_used, total);
});

test('editing: links follow the content; removed own files come back as detached_uploads', async () => {
  const a = await upload(ann, 'first.txt', 'one');
  const b = await upload(ann, 'second.txt', 'two');
  const m = await postToChannel(ann, 'open', 'files', `[first](${a.url})`);
  const q = await openQueue(ann, ['attachment']);
  const edit = await ann.patch(`/messages/${m.body.id}`, { content: `now [second](${b.url})` });
  assert.equal(edit.status, 200);
  assert.equal(edit.body.detached_uploads.length, 1);
  assert.equal(edit.body.detached_uploads[0].path_id, pathOf(a.url));
  assert.deepEqual(edit.body.detached_uploads[0].message_ids, []);
  const events = await queuedEvents(ann, q);
  assert.deepEqual(events.map((e) => [e.op, e.attachment.path_id, e.attachment.message_ids]).sort(), [
    ['update', pathOf(a.url), []],
    ['update', pathOf(b.url), [m.body.id]],
  ].sort());
  assert.equal((await fetchFile(a.url, carol)).status, 404, 'no longer linked from a readable message');
  assert.equal((await fetchFile(b.url, carol)).status, 200);
  const same = await ann.patch(`/messages/${m.body.id}`, { content: `still [second](${b.url}) edited` });
  assert.deepEqual(same.body.detached_uploads, []);
  const topicOnly = await ann.patch(`/messages/${m.body.id}`, { topic: 'moved' });
  assert.deepEqual(topicOnly.body.detached_uploads, []);
});

test('DELETE /attachments/{id}: only the owner; file and row go; remove event; deleted messages release links', async () => {
  const up = await upload(ann, 'gone.txt', 'bye');
  const id = (await attachmentsOf(ann)).find((x) => x.path_id === pathOf(up.url)).id;
  const notOwner = await bob.delete(`/attachments/${id}`);
  assert.equal(notOwner.status, 400);
  assert.equal(notOwner.body.msg, 'Invalid attachment');
  assert.equal((await ann.delete('/attachments/99999999')).body.msg, 'Invalid attachment');
  assert.equal((await ann.delete('/attachments/abc')).status, 400);
  const q = await openQueue(ann, ['attachment']);
  const del = await ann.delete(`/attachments/${id}`);
  assert.equal(del.status, 200);
  const [ev] = await queuedEvents(ann, q);
  assert.deepEqual({ type: ev.type, op: ev.op, attachment: ev.attachment }, { type: 'attachment', op: 'remove', attachment: { id } });
  assert.equal(typeof ev.upload_space_used, 'number');
  assert.equal((await fetchFile(up.url, ann)).status, 404);
  assert.ok((await attachmentsOf(ann)).every((x) => x.id !== id));
  assert.equal((await ann.delete(`/attachments/${id}`)).status, 400, 'already gone');

  // A linked file can be deleted too; deleting the message releases the link.
  const kept = await upload(ann, 'kept.txt', 'k');
  const m = await dm(ann, [bob], `[k](${kept.url})`);
  assert.equal((await ann.delete(`/messages/${m.body.id}`)).status, 200);
  const row = (await attachmentsOf(ann)).find((x) => x.path_id === pathOf(kept.url));
  assert.deepEqual(row.message_ids, []);
  assert.equal((await fetchFile(kept.url, bob)).status, 404);
  const linked = await upload(ann, 'linked.txt', 'l');
  await dm(ann, [bob], `[l](${linked.url})`);
  const linkedId = (await attachmentsOf(ann)).find((x) => x.path_id === pathOf(linked.url)).id;
  assert.equal((await ann.delete(`/attachments/${linkedId}`)).status, 200);
  assert.equal((await fetchFile(linked.url, bob)).status, 404);
});

test('serving: a deactivated account can no longer fetch, by header or by api_key', async () => {
  const leaver = await t.createUser({ name: 'Lee Leaver' });
  const up = await upload(leaver, 'mine.txt', 'soon gone');
  assert.equal((await fetchFile(up.url, leaver)).status, 200);
  assert.equal((await t.owner.delete(`/users/${leaver.userId}`)).status, 200);
  const byHeader = await fetch(new URL(up.url, t.url), { headers: { Authorization: leaver.authHeader } });
  assert.equal(byHeader.status, 401);
  assert.deepEqual(await byHeader.json().then((b: any) => [b.code, b.msg]), ['UNAUTHORIZED', 'Account is deactivated'], 'REST authentication answers UNAUTHORIZED');
  const byKey = await fetch(new URL(`${up.url}?api_key=${leaver.apiKey}`, t.url));
  assert.equal(byKey.status, 401);
  assert.equal((await byKey.json()).code, 'USER_DEACTIVATED');
});
