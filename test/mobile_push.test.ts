// Mobile push through a push notification service: a stand-in bouncer started by the test checks
// every request's path, Basic auth and shape (token registration, E2EE registration, Zulip's
// APNs/FCM payloads for direct messages and mentions, removal when read), and the errors a
// client sees when the service fails.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { Client, openQueue, queuedEvents, startTestServer, type TestServer } from './helpers.js';
import { decryptPushPayload } from '../src/lib/push_crypto.js';

interface Received {
  path: string;
  auth: string;
  type: string;
  body: any;
}

const SERVER_ID = '6cde5f7a-1f7e-4978-9716-49f69ebfc9fe';
const SERVER_KEY = 'k'.repeat(64);
let bouncer: Server;
let received: Received[] = [];
/** The next answer for a path (status and JSON body); default success. */
const answers = new Map<string, { status: number; body: unknown }>();
let t: TestServer;
let ana: Client;
let ios: Client;

before(async () => {
  bouncer = createServer((req, res) => {
    let data = '';
    req.on('data', (c) => (data += c));
    req.on('end', () => {
      const type = String(req.headers['content-type'] ?? '');
      const body = type.startsWith('application/json') ? JSON.parse(data) : Object.fromEntries(new URLSearchParams(data));
      const path = req.url ?? '';
      received.push({ path, auth: String(req.headers.authorization ?? ''), type, body });
      const answer = answers.get(path);
      answers.delete(path);
      const success = path.endsWith('/push/e2ee/notify')
        ? { result: 'success', msg: '', apple_successfully_sent_count: 0, android_successfully_sent_count: body.push_requests?.length ?? 0, delete_token_ids: [] }
        : path.endsWith('/push/notify')
        ? { result: 'success', msg: '', total_android_devices: body.android_devices?.length ?? 0, total_apple_devices: body.apple_devices?.length ?? 0, deleted_devices: { android_devices: [], apple_devices: [] } }
        : { result: 'success', msg: '' };
      res.writeHead(answer?.status ?? 200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(answer?.body ?? success));
    });
  });
  await new Promise<void>((r) => bouncer.listen(0, '127.0.0.1', () => r()));
  const port = (bouncer.address() as { port: number }).port;
  t = await startTestServer({ pushBouncer: { url: `http://127.0.0.1:${port}`, serverId: SERVER_ID, serverKey: SERVER_KEY } });
  ana = await t.createUser({ name: 'Ana Android', email: 'ana@example.com' });
  ios = await t.createUser({ name: 'Ira Iphone', email: 'ira@example.com' });
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'general' }], principals: [t.owner.userId, ana.userId, ios.userId] });
});

after(async () => {
  await t.close();
  await new Promise<void>((r) => bouncer.close(() => r()));
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const BASIC = 'Basic ' + Buffer.from(`${SERVER_ID}:${SERVER_KEY}`).toString('base64');

async function waitFor(pred: (r: Received) => boolean, timeoutMs = 5000): Promise<Received> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = received.find(pred);
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no such request; got ${received.map((r) => r.path).join(', ')}`);
    await sleep(50);
  }
}

test('the server says pushes work, and device tokens are registered with the service', async () => {
  assert.equal((await t.owner.get('/server_settings')).body.push_notifications_enabled, true);
  const reg = await ana.post('/register', { fetch_event_types: ['realm'] });
  assert.equal(reg.body.realm_push_notifications_enabled, true);

  received = [];
  assert.equal((await ana.post('/users/me/android_gcm_reg_id', { token: 'fcm-token-ana' })).status, 200);
  const r = received.find((x) => x.path === '/api/v1/remotes/push/register')!;
  assert.ok(r, 'the token went to the service');
  assert.equal(r.auth, BASIC);
  assert.match(r.type, /x-www-form-urlencoded/);
  assert.equal(r.body.token, 'fcm-token-ana');
  assert.equal(r.body.token_kind, '2');
  assert.equal(r.body.server_uuid, SERVER_ID);
  assert.equal(r.body.user_id, String(ana.userId));
  assert.match(r.body.user_uuid, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.match(r.body.realm_uuid, /^[0-9a-f-]{36}$/);

  assert.equal((await ios.post('/users/me/apns_device_token', { token: 'abcdef0123456789', appid: 'org.zulip.Zulip' })).status, 200);
  const apple = received.find((x) => x.path === '/api/v1/remotes/push/register' && x.body.token_kind === '1')!;
  assert.equal(apple.body.ios_app_id, 'org.zulip.Zulip');
  assert.equal(apple.body.realm_uuid, r.body.realm_uuid, 'one organization, one UUID');
  assert.notEqual(apple.body.user_uuid, r.body.user_uuid);
});

test('a direct message is pushed with Zulip payloads, and reading it takes the push back', async () => {
  received = [];
  const sent = await t.owner.post('/messages', { type: 'private', to: [ana.userId], content: 'Are you **there**? :smile:' });
  assert.equal(sent.status, 200);
  const notify = await waitFor((r) => r.path === '/api/v1/remotes/push/notify');
  assert.equal(notify.auth, BASIC);
  assert.match(notify.type, /application\/json/);
  const b = notify.body;
  assert.deepEqual(b.android_devices, ['fcm-token-ana']);
  assert.deepEqual(b.apple_devices, []);
  assert.equal(b.user_id, ana.userId);
  assert.deepEqual(b.gcm_options, { priority: 'high' });
  const g = b.gcm_payload;
  assert.equal(g.event, 'message');
  assert.equal(g.zulip_message_id, sent.body.id);
  assert.equal(g.recipient_type, 'private');
  assert.equal(g.sender_id, t.owner.userId);
  assert.equal(g.sender_full_name, 'Olivia Owner');
  assert.equal(g.content, 'Are you there? 😄');
  assert.equal(g.content_truncated, false);
  assert.equal(g.realm_name, 'Test Org');
  assert.equal(g.user_id, ana.userId);
  assert.ok(g.sender_avatar_url && g.realm_url && g.server && typeof g.time === 'number');
  assert.equal(b.apns_payload.alert.title, 'Olivia Owner');
  assert.equal(b.apns_payload.alert.subtitle, '');
  assert.deepEqual(b.apns_payload.custom.zulip.message_ids, [sent.body.id]);

  received = [];
  assert.equal((await ana.post('/messages/flags', { messages: [sent.body.id], op: 'add', flag: 'read' })).status, 200);
  const removal = await waitFor((r) => r.path === '/api/v1/remotes/push/notify');
  assert.equal(removal.body.gcm_payload.event, 'remove');
  assert.equal(removal.body.gcm_payload.zulip_message_ids, String(sent.body.id));
  assert.deepEqual(removal.body.gcm_options, { priority: 'normal' });
  assert.equal(removal.body.apns_payload.custom.zulip.event, 'remove');
  // Read again: nothing left to take back.
  received = [];
  await ana.post('/messages/flags', { messages: [sent.body.id], op: 'remove', flag: 'read' });
  await ana.post('/messages/flags', { messages: [sent.body.id], op: 'add', flag: 'read' });
  await sleep(300);
  assert.deepEqual(received.map((r) => r.path), []);
});

test("the Notification Bot's direct message about a subscription is pushed under its name", async () => {
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'push-room' }] });
  received = [];
  const res = await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'push-room' }], principals: [ana.userId] });
  assert.equal(res.body.new_subscription_messages_sent, true);
  const notify = await waitFor((r) => r.path === '/api/v1/remotes/push/notify' && r.body.gcm_payload?.event === 'message');
  const g = notify.body.gcm_payload;
  assert.equal(g.sender_full_name, 'Notification Bot');
  assert.equal(g.sender_email, 'notification-bot@zulip.com');
  assert.equal(g.recipient_type, 'private');
  assert.equal(g.content, 'Olivia Owner subscribed you to #push-room.');
  assert.equal(notify.body.apns_payload.alert.title, 'Notification Bot');
});

test('a channel mention reaches the iPhone with the title and subtitle; unmentioned or unwilling users get nothing', async () => {
  received = [];
  const sent = await t.owner.post('/messages', { type: 'stream', to: 'general', topic: 'launch', content: '@**Ira Iphone** please check' });
  const notify = await waitFor((r) => r.path === '/api/v1/remotes/push/notify');
  assert.deepEqual(notify.body.apple_devices, ['abcdef0123456789']);
  const a = notify.body.apns_payload;
  assert.equal(a.alert.title, '#general > launch');
  assert.equal(a.alert.subtitle, 'Olivia Owner mentioned you:');
  assert.match(a.alert.body, /Ira Iphone please check/);
  assert.equal(a.custom.zulip.recipient_type, 'stream');
  assert.equal(a.custom.zulip.stream, 'general');
  assert.equal(a.custom.zulip.topic, 'launch');
  assert.deepEqual(a.custom.zulip.message_ids, [sent.body.id]);
  await sleep(300);
  assert.equal(received.filter((r) => r.path.endsWith('/push/notify')).length, 1, 'Ana was not mentioned');

  assert.equal((await ana.patch('/settings', { enable_offline_push_notifications: false })).status, 200);
  received = [];
  await t.owner.post('/messages', { type: 'private', to: [ana.userId], content: 'quiet please' });
  await t.owner.post('/messages', { type: 'private', to: [ios.userId], content: 'marker' });
  await waitFor((r) => r.path.endsWith('/push/notify') && r.body.apple_devices?.length === 1);
  await sleep(300);
  assert.equal(received.filter((r) => r.path.endsWith('/push/notify') && r.body.android_devices?.length).length, 0, 'push notifications off');
  await ana.patch('/settings', { enable_offline_push_notifications: true });
});

test('unregistering a token tells the service; its failures reach the client as Zulip reports them', async () => {
  received = [];
  assert.equal((await ana.delete('/users/me/android_gcm_reg_id', { token: 'fcm-token-ana' })).status, 200);
  const un = received.find((r) => r.path === '/api/v1/remotes/push/unregister')!;
  assert.equal(un.body.token, 'fcm-token-ana');
  assert.equal(un.auth, BASIC);

  answers.set('/api/v1/remotes/push/register', { status: 500, body: {} });
  const down = await ana.post('/users/me/android_gcm_reg_id', { token: 'fcm-2' });
  assert.equal(down.status, 400, 'the status these endpoints document');
  assert.equal(down.body.code, 'INTERNAL_SERVER_ERROR_ON_BOUNCER');
  answers.set('/api/v1/remotes/push/register', { status: 401, body: { result: 'error', msg: 'Zulip server auth failure', code: 'INVALID_ZULIP_SERVER' } });
  const denied = await ana.post('/users/me/android_gcm_reg_id', { token: 'fcm-2' });
  assert.equal(denied.status, 400);
  assert.equal(denied.body.code, 'ADMIN_ACTION_REQUIRED');
  answers.set('/api/v1/remotes/push/notify', { status: 503, body: {} });
  const failing = await ios.post('/mobile_push/test_notification', { token: 'abcdef0123456789' });
  assert.equal(failing.status, 400);
  assert.equal(failing.body.code, 'INTERNAL_SERVER_ERROR_ON_BOUNCER');
  const tokens = await t.server.services.database.db.selectFrom('push_device_tokens').select('token').where('user_id', '=', ana.userId).execute();
  assert.deepEqual(tokens, [], 'nothing stored when the service refused');
});

test('E2EE registration: the push key is kept, the token registered with the service, the outcome sent as a device event', async () => {
  const deviceId = (await ana.post('/register_client_device')).body.device_id;
  const queue = await openQueue(ana, ['device']);
  received = [];
  const res = await ana.post('/mobile_push/register', {
    device_id: deviceId,
    push_key_id: 2408,
    push_key: 'MTaUDJDMWypQ1WufZ1NRTHSSvgYtXh1qVNSjN3aBiEFt',
    token_kind: 'fcm',
    token_id: 'hGsEWGmyyfI=',
    bouncer_public_key: 'bouncer-key',
    encrypted_push_registration: 'c2VhbGVk',
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const reg = await waitFor((r) => r.path === '/api/v1/remotes/push/e2ee/register');
  assert.equal(reg.auth, BASIC);
  assert.deepEqual(Object.keys(reg.body).sort(), ['bouncer_public_key', 'encrypted_push_registration', 'realm_uuid', 'token_id']);
  assert.equal(reg.body.token_id, 'hGsEWGmyyfI=');
  assert.equal(reg.body.encrypted_push_registration, 'c2VhbGVk');
  let events: any[] = [];
  for (let i = 0; i < 50 && !events.some((e) => e.push_token_id); i++) {
    await sleep(50);
    events = events.concat(await queuedEvents(ana, queue));
  }
  assert.ok(events.some((e) => e.type === 'device' && e.device_id === deviceId && e.push_key_id === 2408 && e.pending_push_token_id === 'hGsEWGmyyfI='));
  assert.ok(events.some((e) => e.type === 'device' && e.device_id === deviceId && e.push_token_id === 'hGsEWGmyyfI=' && e.pending_push_token_id === null));
  const devices = (await ana.post('/register', { fetch_event_types: ['device'] })).body.devices;
  assert.equal(devices[deviceId].push_token_id, 'hGsEWGmyyfI=');
  assert.equal(devices[deviceId].push_key_id, 2408);

  // A refusal becomes push_registration_error_code.
  const second = (await ana.post('/register_client_device')).body.device_id;
  answers.set('/api/v1/remotes/push/e2ee/register', { status: 400, body: { result: 'error', msg: 'Invalid bouncer_public_key', code: 'INVALID_BOUNCER_PUBLIC_KEY' } });
  await ana.post('/mobile_push/register', { device_id: second, push_key_id: 7, push_key: 'MTaUDJDMWypQ1WufZ1NRTHSSvgYtXh1qVNSjN3aBiEFt', token_kind: 'apns', token_id: 'AAAAAAAAAAA=', bouncer_public_key: 'old', encrypted_push_registration: 'eA==' });
  let code: string | null = null;
  for (let i = 0; i < 50 && !code; i++) {
    await sleep(50);
    code = (await ana.post('/register', { fetch_event_types: ['device'] })).body.devices[second].push_registration_error_code;
  }
  assert.equal(code, 'INVALID_BOUNCER_PUBLIC_KEY');
});

test('E2EE devices get their pushes encrypted with their own key; a token the service drops is forgotten', async () => {
  const KEY = 'MTaUDJDMWypQ1WufZ1NRTHSSvgYtXh1qVNSjN3aBiEFt';
  received = [];
  const sent = await t.owner.post('/messages', { type: 'private', to: [ana.userId, ios.userId], content: 'group **hello**' });
  const n = await waitFor((r) => r.path === '/api/v1/remotes/push/e2ee/notify');
  assert.equal(n.auth, BASIC);
  assert.match(n.type, /application\/json/);
  assert.match(n.body.realm_uuid, /^[0-9a-f-]{36}$/);
  assert.equal(n.body.push_requests.length, 1, "Ana's one registered device");
  const req = n.body.push_requests[0];
  assert.equal(req.token_id, 'hGsEWGmyyfI=');
  assert.equal(req.fcm_priority, 'high');
  assert.equal(req.payload.push_key_id, 2408);
  assert.doesNotMatch(JSON.stringify(n.body), /hello/, 'no plaintext reaches the service');
  const plain = JSON.parse(decryptPushPayload(KEY, req.payload.encrypted_data));
  assert.equal(plain.type, 'message');
  assert.equal(plain.message_id, sent.body.id);
  assert.equal(plain.content, 'group hello');
  assert.equal(plain.recipient_type, 'direct');
  assert.deepEqual(plain.recipient_user_ids, [t.owner.userId, ana.userId, ios.userId].sort((a, b) => a - b));
  assert.equal(plain.sender_full_name, 'Olivia Owner');
  assert.equal(plain.user_id, ana.userId);
  assert.equal(plain.realm_name, 'Test Org');

  received = [];
  assert.equal((await ana.post('/messages/flags', { messages: [sent.body.id], op: 'add', flag: 'read' })).status, 200);
  const removal = await waitFor((r) => r.path === '/api/v1/remotes/push/e2ee/notify');
  assert.equal(removal.body.push_requests[0].fcm_priority, 'normal');
  const gone = JSON.parse(decryptPushPayload(KEY, removal.body.push_requests[0].payload.encrypted_data));
  assert.deepEqual(gone, { type: 'remove', realm_name: 'Test Org', realm_url: gone.realm_url, user_id: ana.userId, message_ids: [sent.body.id] });

  answers.set('/api/v1/remotes/push/e2ee/notify', { status: 200, body: { result: 'success', msg: '', apple_successfully_sent_count: 0, android_successfully_sent_count: 0, delete_token_ids: ['hGsEWGmyyfI='] } });
  received = [];
  await t.owner.post('/messages', { type: 'private', to: [ana.userId], content: 'anyone?' });
  await waitFor((r) => r.path === '/api/v1/remotes/push/e2ee/notify');
  let devices: any = {};
  for (let i = 0; i < 40; i++) {
    devices = (await ana.post('/register', { fetch_event_types: ['device'] })).body.devices;
    if (Object.values(devices).every((d: any) => d.push_token_id === null)) break;
    await sleep(50);
  }
  assert.ok(Object.values(devices).every((d: any) => d.push_token_id === null), JSON.stringify(devices));
});

test('test notifications through the service, and deleted messages leave the phones', async () => {
  const KEY = 'MTaUDJDMWypQ1WufZ1NRTHSSvgYtXh1qVNSjN3aBiEFt';
  const deviceId = (await ana.post('/register_client_device')).body.device_id;
  await ana.post('/mobile_push/register', { device_id: deviceId, push_key_id: 99, push_key: KEY, token_kind: 'apns', token_id: 'BBBBBBBBBBB=', bouncer_public_key: 'k', encrypted_push_registration: 'eA==' });
  for (let i = 0; i < 40; i++) {
    if ((await ana.post('/register', { fetch_event_types: ['device'] })).body.devices[deviceId].push_token_id) break;
    await sleep(50);
  }
  received = [];
  const res = await ana.post('/mobile_push/e2ee/test_notification', { device_id: deviceId });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const n = received.find((r) => r.path === '/api/v1/remotes/push/e2ee/notify')!;
  assert.equal(n.body.push_requests.length, 1);
  assert.deepEqual(n.body.push_requests[0].http_headers, { apns_priority: 10, apns_push_type: 'alert' });
  assert.deepEqual(n.body.push_requests[0].payload.aps, { 'mutable-content': 1, alert: { title: 'New notification' } });
  const plain = JSON.parse(decryptPushPayload(KEY, n.body.push_requests[0].payload.encrypted_data));
  assert.equal(plain.type, 'test');
  assert.equal(plain.user_id, ana.userId);

  received = [];
  assert.equal((await ios.post('/mobile_push/test_notification', { token: 'abcdef0123456789' })).status, 200);
  const legacy = received.find((r) => r.path === '/api/v1/remotes/push/notify')!;
  assert.deepEqual(legacy.body.apple_devices, ['abcdef0123456789']);
  assert.equal(legacy.body.gcm_payload.event, 'test');

  received = [];
  const sent = await t.owner.post('/messages', { type: 'private', to: [ios.userId], content: 'oops, wrong person' });
  await waitFor((r) => r.path === '/api/v1/remotes/push/notify' && r.body.gcm_payload.event === 'message');
  received = [];
  assert.equal((await t.owner.delete(`/messages/${sent.body.id}`)).status, 200);
  const removal = await waitFor((r) => r.path === '/api/v1/remotes/push/notify');
  assert.equal(removal.body.apns_payload.custom.zulip.event, 'remove');
  assert.equal(removal.body.apns_payload.custom.zulip.zulip_message_ids, String(sent.body.id));
  assert.deepEqual(removal.body.apple_devices, ['abcdef0123456789']);
});

test('confab register-push-server registers the server and prints its settings', async () => {
  const { execFile } = await import('node:child_process');
  const { promisify } = await import('node:util');
  const { join, dirname } = await import('node:path');
  const { fileURLToPath } = await import('node:url');
  const bin = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'confab.js');
  const port = (bouncer.address() as { port: number }).port;
  received = [];
  const env = { ...process.env, CONFAB_EXTERNAL_URL: 'https://chat.example.org', CONFAB_PUSH_BOUNCER_URL: '', CONFAB_PUSH_BOUNCER_SERVER_ID: '', CONFAB_PUSH_BOUNCER_SERVER_KEY: '' };
  const { stdout } = await promisify(execFile)(process.execPath, [bin, 'register-push-server', '--url', `http://127.0.0.1:${port}`, '--contact-email', 'ops@example.org'], { env });
  const settings = Object.fromEntries(stdout.trim().split('\n').map((l) => l.split('=') as [string, string]));
  assert.equal(settings.CONFAB_PUSH_BOUNCER_URL, `http://127.0.0.1:${port}`);
  assert.match(settings.CONFAB_PUSH_BOUNCER_SERVER_ID!, /^[0-9a-f-]{36}$/);
  const r = received.find((x) => x.path === '/api/v1/remotes/server/register')!;
  assert.equal(r.auth, 'Basic ' + Buffer.from(`${settings.CONFAB_PUSH_BOUNCER_SERVER_ID}:${settings.CONFAB_PUSH_BOUNCER_SERVER_KEY}`).toString('base64'));
  assert.deepEqual(r.body, { zulip_org_id: settings.CONFAB_PUSH_BOUNCER_SERVER_ID, zulip_org_key: settings.CONFAB_PUSH_BOUNCER_SERVER_KEY, hostname: 'chat.example.org', contact_email: 'ops@example.org' });
});
