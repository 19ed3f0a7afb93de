// Code playgrounds and video calls.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type Client, type TestServer } from './helpers.js';

let t: TestServer;
let member: Client;
before(async () => {
  t = await startTestServer({ jitsiServerUrl: 'https://jitsi.example.com/' });
  member = await t.createUser({ name: 'Pat Player' });
});
after(async () => {
  await t.close();
});

test('playgrounds: administrators add and remove them; everyone hears of it', async () => {
  const reg = await member.post('/register', { event_types: ['realm_playgrounds'], fetch_event_types: ['realm_playgrounds'] });
  assert.deepEqual(reg.body.realm_playgrounds, []);
  const res = await t.owner.post('/realm/playgrounds', { name: 'Python playground', pygments_language: 'Python', url_template: 'https://python.example.com/?code={code}' });
  assert.equal(res.status, 200);
  assert.equal(typeof res.body.id, 'number');
  const state = await member.post('/register', { fetch_event_types: ['realm_playgrounds'] });
  assert.deepEqual(state.body.realm_playgrounds, [{ id: res.body.id, name: 'Python playground', pygments_language: 'Python', url_template: 'https://python.example.com/?code={code}' }]);
  assert.equal((await t.owner.delete(`/realm/playgrounds/${res.body.id}`)).status, 200);
  assert.equal((await t.owner.delete(`/realm/playgrounds/${res.body.id}`)).body.msg, 'Invalid playground');
  const evs = (await member.get('/events', { queue_id: reg.body.queue_id, last_event_id: -1, dont_block: true })).body.events;
  assert.deepEqual(evs.map((e: any) => e.realm_playgrounds.length), [1, 0]);
});

test('playgrounds: validation and permission', async () => {
  const post = (c: Client, p: Record<string, string>) => c.post('/realm/playgrounds', { name: 'P', pygments_language: 'Rust', url_template: 'https://play.example.com/?c={code}', ...p });
  assert.equal((await post(member, {})).status, 400, 'administrators only');
  assert.equal((await post(t.owner, { url_template: 'https://play.example.com/?c={code}&v={version}' })).status, 400, 'exactly one variable');
  assert.equal((await post(t.owner, { url_template: 'https://play.example.com/?c={source}' })).status, 400, 'the variable is code');
  assert.equal((await post(t.owner, { url_template: 'https://play.example.com/?c={code' })).status, 400, 'a valid template');
  assert.equal((await post(t.owner, { url_template: 'javascript:alert({code})' })).status, 400, 'web links only');
  assert.equal((await post(t.owner, { name: ' ' })).status, 400);
  assert.equal((await post(t.owner, { pygments_language: 'Rust<script>' })).status, 400);
  // As Zulip's zerver/views/realm_playgrounds.py: the role before the parameters, check_pygments_language's
  // cap, and a URL template stripped like the name and the language.
  assert.deepEqual((await member.post('/realm/playgrounds', {})).body.msg, 'Must be an organization administrator');
  assert.deepEqual((await member.delete('/realm/playgrounds/999999')).body.msg, 'Must be an organization administrator');
  assert.equal((await post(t.owner, { pygments_language: 'R'.repeat(41) })).body.msg, 'pygments_language is too long (limit: 40 characters)');
  const spaced = await post(t.owner, { name: 'Spaced', url_template: '  https://play.example.com/?c={code} ' });
  assert.equal(spaced.status, 200);
  const listed = (await member.post('/register', { fetch_event_types: ['realm_playgrounds'] })).body.realm_playgrounds.find((p: any) => p.id === spaced.body.id);
  assert.equal(listed.url_template, 'https://play.example.com/?c={code}');
  assert.equal((await post(t.owner, {})).status, 200);
  assert.equal((await post(t.owner, {})).status, 400, 'no duplicate name for a language');
});

test('video calls: a Jitsi room when configured, a clear error otherwise', async () => {
  const res = await member.post('/calls/videocall/create');
  assert.equal(res.status, 200);
  assert.match(res.body.url, /^https:\/\/jitsi\.example\.com\/[0-9a-f]{24}/);
  assert.notEqual((await member.post('/calls/videocall/create')).body.url, res.body.url, 'a new room each time');
  const reg = await member.post('/register', { fetch_event_types: ['video_calls'] });
  assert.equal(reg.body.has_videocall_token, false, 'Jitsi needs no per-user token, so nobody holds one');
  assert.equal(reg.body.has_zoom_token, false);
  const bare = await startTestServer();
  try {
    const none = await bare.owner.post('/calls/videocall/create');
    assert.equal(none.status, 400);
    assert.match(none.body.msg, /not configured/);
  } finally {
    await bare.close();
  }
});

test('BigBlueButton: a signed link; following it creates the meeting and redirects to it', async () => {
  const { createServer } = await import('node:http');
  const calls: string[] = [];
  // A stand-in BigBlueButton server on this machine, answering the create call as BBB does.
  const fake = createServer((req, res) => {
    calls.push(req.url ?? '');
    res.writeHead(200, { 'Content-Type': 'text/xml' });
    res.end('<response><returncode>SUCCESS</returncode></response>');
  });
  await new Promise<void>((r) => fake.listen(0, '127.0.0.1', r));
  const port = (fake.address() as { port: number }).port;
  const secret = 'bbb-shared-secret';
  const s = await startTestServer({ bigBlueButton: { url: `http://127.0.0.1:${port}/bigbluebutton/`, secret } });
  try {
    const groups = await s.owner.post('/register', { fetch_event_types: ['realm'] });
    assert.ok(groups.body.realm_available_video_chat_providers.big_blue_button);
    assert.equal((await s.owner.patch('/realm', { video_chat_provider: 4 })).status, 200);
    const res = await s.owner.post('/calls/videocall/create');
    assert.equal(res.status, 200);
    assert.match(res.body.url, /\/calls\/bigbluebutton\/join\?/);
    const legacy = await s.owner.get('/calls/bigbluebutton/create', { meeting_name: 'Standup', voice_only: true });
    assert.match(legacy.body.url, /meeting_name=Standup/);
    const follow = await fetch(res.body.url, { redirect: 'manual' });
    assert.equal(follow.status, 302);
    const location = follow.headers.get('location') ?? '';
    assert.match(location, new RegExp(`^http://127\\.0\\.0\\.1:${port}/bigbluebutton/api/join\\?`));
    const { createHash } = await import('node:crypto');
    const [, query] = location.split('?');
    const params = new URLSearchParams(query);
    const checksum = params.get('checksum');
    params.delete('checksum');
    assert.equal(checksum, createHash('sha1').update('join' + params.toString() + secret).digest('hex'), 'BBB can verify the join call');
    assert.ok(calls.some((c) => c.startsWith('/bigbluebutton/api/create?')));
    const forged = await fetch(res.body.url.replace('meeting_name=', 'meeting_name=x'), { redirect: 'manual' });
    assert.equal(forged.status, 404, 'a link whose parameters were changed is refused');
    assert.equal((await s.owner.patch('/realm', { video_chat_provider: 9 })).status, 400);
  } finally {
    await s.close();
    fake.close();
  }
});

test('Nextcloud Talk: a public conversation through the Talk API', async () => {
  const { createServer } = await import('node:http');
  const seen: Array<{ url: string; auth: string; body: string }> = [];
  const fake = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      seen.push({ url: req.url ?? '', auth: req.headers.authorization ?? '', body });
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ ocs: { meta: { status: 'ok' }, data: { token: 'abc123xyz' } } }));
    });
  });
  await new Promise<void>((r) => fake.listen(0, '127.0.0.1', r));
  const port = (fake.address() as { port: number }).port;
  const s = await startTestServer({ nextcloud: { url: `http://127.0.0.1:${port}`, user: 'confab', password: 'app-password' } });
  try {
    const res = await s.owner.post('/calls/nextcloud_talk/create', { room_name: 'Planning' });
    assert.equal(res.status, 200);
    assert.equal(res.body.url, `http://127.0.0.1:${port}/index.php/call/abc123xyz`);
    assert.match(seen[0]!.url, /^\/ocs\/v2\.php\/apps\/spreed\/api\/v4\/room/);
    assert.equal(seen[0]!.auth, 'Basic ' + Buffer.from('confab:app-password').toString('base64'));
    assert.deepEqual(JSON.parse(seen[0]!.body), { roomType: 3, roomName: 'Planning' });
  } finally {
    await s.close();
    fake.close();
  }
  const bare = await member.post('/calls/nextcloud_talk/create', { room_name: 'x' });
  assert.equal(bare.status, 400);
  assert.match(bare.body.msg, /not configured/);
});
