// Logged-in devices (POST /register_client_device, `devices` in /register, device events), the
// mobile push endpoints on a server without a push notification service, and Constructor Groups calls.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client, openQueue, queuedEvents, rawRequest, startTestServer, type TestServer } from './helpers.js';

let t: TestServer;
let phone: Client;
let other: Client;
const PUSH_KEY = 'MTaUDJDMWypQ1WufZ1NRTHSSvgYtXh1qVNSjN3aBiEFt'; // 0x31 and a 32-byte key
const NOT_CONFIGURED = { result: 'error', msg: 'Server is not configured to use push notification service.', code: 'PUSH_SERVICE_NOT_CONFIGURED' };
before(async () => {
  t = await startTestServer();
  phone = await t.createUser({ name: 'Pat Phone' });
  other = await t.createUser({ name: 'Oli Other' });
});
after(async () => {
  await t.close();
});

async function devices(c: Client): Promise<Record<string, any>> {
  const reg = await c.post('/register', { fetch_event_types: ['device'] });
  assert.equal(reg.status, 200);
  return reg.body.devices;
}

test('registering a logged-in device: a new id each time, an event to the user, listed in /register', async () => {
  assert.deepEqual(await devices(phone), {});
  const mine = await openQueue(phone, ['device']);
  const theirs = await openQueue(other, ['device']);
  const first = await phone.post('/register_client_device');
  assert.equal(first.status, 200);
  assert.ok(Number.isInteger(first.body.device_id));
  const second = await phone.post('/register_client_device');
  assert.notEqual(second.body.device_id, first.body.device_id);
  const events = await queuedEvents(phone, mine);
  assert.deepEqual(events.map(({ id, ...e }) => e), [
    { type: 'device', op: 'add', device_id: first.body.device_id },
    { type: 'device', op: 'add', device_id: second.body.device_id },
  ]);
  assert.deepEqual(await queuedEvents(other, theirs), [], 'only the user hears of their devices');
  const empty = { push_key_id: null, push_token_id: null, pending_push_token_id: null, push_token_last_updated_timestamp: null, push_registration_error_code: null };
  assert.deepEqual(await devices(phone), { [first.body.device_id]: empty, [second.body.device_id]: empty });
  assert.deepEqual(await devices(other), {}, "another user's devices are not listed");
  const reg = await phone.post('/register', { fetch_event_types: ['message'] });
  assert.equal(reg.body.devices, undefined, 'only when asked for');
});

test('E2EE push registration: checked like Zulip, then refused because there is no push service', async () => {
  const deviceId = (await phone.post('/register_client_device')).body.device_id;
  const full = { device_id: deviceId, push_key_id: 2408, push_key: PUSH_KEY, token_kind: 'fcm', token_id: 'hGsEWGmyyfI=', bouncer_public_key: 'key', encrypted_push_registration: 'ciphertext' };
  const post = (p: Record<string, unknown>) => phone.post('/mobile_push/register', p as Record<string, string>);

  const missing = await post({ push_key_id: 1, push_key: PUSH_KEY });
  assert.equal(missing.status, 400);
  assert.equal(missing.body.code, 'REQUEST_VARIABLE_MISSING');
  assert.equal((await post({ ...full, device_id: 'abc' })).body.msg, 'device_id is not an integer');
  for (const v of [-1, 4294967296]) {
    assert.equal((await post({ ...full, push_key_id: v })).body.msg, 'Invalid push_key_id: Value error, Not a valid unsigned 32-bit integer');
  }
  for (const key of ['@abcdefg', 'abcd', Buffer.concat([Buffer.from([0x32]), Buffer.alloc(32, 7)]).toString('base64')]) {
    assert.equal((await post({ ...full, push_key: key })).body.msg, 'Invalid `push_key`', key);
  }
  assert.equal((await post({ ...full, token_kind: 'sms' })).body.msg, 'Invalid token_kind');
  assert.equal((await post({ ...full, token_id: '@abcdefg' })).body.msg, '`token_id` is not Base64 encoded');
  const partial = await post({ device_id: deviceId, push_key: PUSH_KEY });
  assert.equal(partial.status, 400);
  assert.equal(partial.body.msg, 'Missing parameters: provide the push key fields, the token fields, or both');
  assert.equal((await post({ device_id: deviceId })).status, 400);

  const otherDevice = (await other.post('/register_client_device')).body.device_id;
  assert.equal((await post({ ...full, device_id: otherDevice })).body.msg, 'Invalid `device_id`', "another user's device");
  assert.equal((await post({ ...full, device_id: 999999 })).body.msg, 'Invalid `device_id`');

  const queue = await openQueue(phone, ['device']);
  for (const p of [full, { device_id: deviceId, push_key_id: 1, push_key: PUSH_KEY }]) {
    const res = await post(p);
    assert.equal(res.status, 400);
    assert.deepEqual(res.body, NOT_CONFIGURED);
  }
  assert.deepEqual(await queuedEvents(phone, queue), [], 'nothing changed');
  assert.equal((await devices(phone))[deviceId].push_key_id, null);
});

test('test notifications: unknown tokens and devices are named, otherwise no push service', async () => {
  const unknown = await phone.post('/mobile_push/test_notification', { token: 'never-registered' });
  assert.equal(unknown.status, 400);
  assert.deepEqual(unknown.body, { result: 'error', msg: 'Device not recognized', code: 'INVALID_PUSH_DEVICE_TOKEN' });
  assert.equal((await phone.post('/users/me/android_gcm_reg_id', { token: 'fcm-known' })).status, 200);
  assert.deepEqual((await phone.post('/mobile_push/test_notification', { token: 'fcm-known' })).body, NOT_CONFIGURED);
  assert.deepEqual((await phone.post('/mobile_push/test_notification')).body, NOT_CONFIGURED);
  assert.equal((await other.post('/mobile_push/test_notification', { token: 'fcm-known' })).body.code, 'INVALID_PUSH_DEVICE_TOKEN', "another user's token");

  const deviceId = (await phone.post('/register_client_device')).body.device_id;
  const noDevice = { result: 'error', msg: 'No active registered push device', code: 'NO_ACTIVE_PUSH_DEVICE' };
  for (const params of [{}, { device_id: deviceId }, { device_id: 999999 }]) {
    const res = await phone.post('/mobile_push/e2ee/test_notification', params);
    assert.equal(res.status, 400);
    assert.deepEqual(res.body, noDevice);
  }
  assert.equal((await phone.post('/mobile_push/e2ee/test_notification', { device_id: 'x' })).body.msg, 'device_id is not an integer');
});

test("the push bouncer's registration endpoint answers that this server is no push service", async () => {
  const form = (p: Record<string, string>) =>
    rawRequest(t.url, 'POST', '/remotes/push/e2ee/register', { headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(p).toString() });
  const all = { realm_uuid: '9aa61d0b-8ce5-488d-8e9e-fedc346e6836', token_id: '+wKIhyAx/Eg=', encrypted_push_registration: 'data', bouncer_public_key: 'key' };
  const missing = await form({ realm_uuid: all.realm_uuid });
  assert.equal(missing.status, 400);
  assert.equal(missing.body.code, 'REQUEST_VARIABLE_MISSING');
  const res = await form(all);
  assert.equal(res.status, 400);
  assert.deepEqual(res.body, NOT_CONFIGURED);
});

test('Constructor Groups calls: a clear error, since it is not configured', async () => {
  const res = await phone.post('/calls/constructorgroups/create');
  assert.equal(res.status, 400);
  assert.deepEqual(res.body, { result: 'error', msg: 'Constructor Groups is not configured on this server.', code: 'BAD_REQUEST' });
});
