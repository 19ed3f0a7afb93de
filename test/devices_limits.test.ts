// Push device tokens, API key rotation, and rate limits.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client, rawRequest, startTestServer, type TestServer } from './helpers.js';

let t: TestServer;
let member: Client;
before(async () => {
  t = await startTestServer();
  member = await t.createUser({ name: 'Dee Device' });
});
after(async () => {
  await t.close();
});

test('push tokens: both names of each endpoint, validation, removal', async () => {
  const hex = 'ab'.repeat(32);
  for (const path of ['/users/me/ios_device_token', '/users/me/apns_device_token']) {
    assert.equal((await member.post(path, { token: hex, appid: 'org.zulip.Zulip' })).status, 200, path);
  }
  assert.equal((await member.post('/users/me/apns_device_token', { token: '', appid: 'org.zulip.Zulip' })).body.msg, 'Empty or invalid length token');
  assert.equal((await member.post('/users/me/apns_device_token', { token: 'x'.repeat(4097), appid: 'a' })).status, 400);
  assert.equal((await member.post('/users/me/apns_device_token', { token: 'not-hex!', appid: 'org.zulip.Zulip' })).body.msg, 'Invalid APNS token');
  assert.equal((await member.post('/users/me/apns_device_token', { token: hex, appid: 'bad app id!' })).status, 400);
  assert.equal((await member.post('/users/me/apns_device_token', { token: hex })).body.code, 'REQUEST_VARIABLE_MISSING');
  assert.equal((await member.delete('/users/me/apns_device_token', { token: hex })).status, 200);
  assert.equal((await member.delete('/users/me/ios_device_token', { token: hex })).body.msg, 'Token does not exist');
  for (const path of ['/users/me/android_reg_id', '/users/me/android_gcm_reg_id']) {
    assert.equal((await member.post(path, { token: `fcm-token-${path.length}` })).status, 200, path);
  }
  assert.equal((await member.post('/users/me/android_gcm_reg_id', { token: '' })).status, 400);
  assert.equal((await member.delete('/users/me/android_reg_id', { token: 'fcm-token-24' })).status, 200);
  assert.equal((await member.delete('/users/me/android_reg_id', { token: 'never-added' })).status, 400);
  assert.equal((await member.post('/users/me/android_gcm_reg_id', { token: 'fcm-token-again' })).status, 200);
  assert.equal((await member.delete('/users/me/android_gcm_reg_id', { token: 'fcm-token-again' })).status, 200);
  const rows = await t.server.services.database.db.selectFrom('push_device_tokens').select(['kind', 'token']).where('user_id', '=', member.userId).execute();
  assert.deepEqual(rows.map((r) => r.token), ['fcm-token-28'], 'tokens are stored per user');
});

test('regenerating the API key: the old key stops working at once', async () => {
  const user = await t.createUser({ name: 'Key Keeper' });
  const res = await user.post('/users/me/api_key/regenerate');
  assert.equal(res.status, 200);
  assert.notEqual(res.body.api_key, user.apiKey);
  assert.equal((await user.get('/users/me')).body.msg, 'Invalid API key');
  const renewed = new Client(t.url, user.email, res.body.api_key, user.userId);
  assert.equal((await renewed.get('/users/me')).status, 200);
});

test('rate limits: per user, per address, per username for passwords', async () => {
  const limited = await startTestServer({
    rateLimits: { user: { limit: 5, windowSeconds: 60 }, anonymous: { limit: 8, windowSeconds: 60 }, password: { limit: 2, windowSeconds: 1800 } },
  });
  try {
    let last;
    for (let i = 0; i < 5; i++) {
      last = await limited.owner.get('/users/me');
      assert.equal(last.status, 200);
    }
    assert.equal(last!.headers.get('x-ratelimit-limit'), '5');
    assert.equal(last!.headers.get('x-ratelimit-remaining'), '0');
    assert.ok(Number(last!.headers.get('x-ratelimit-reset')) > Date.now() / 1000);
    const over = await limited.owner.get('/users/me');
    assert.equal(over.status, 429);
    assert.equal(over.body.code, 'RATE_LIMIT_HIT');
    assert.ok(Number.isInteger(over.body['retry-after']) && over.body['retry-after'] > 0);
    assert.equal(over.headers.get('retry-after'), String(over.body['retry-after']));
    const other = await limited.createUser();
    assert.equal((await other.get('/users/me')).status, 200, 'each user has their own budget');

    const login = (password: string) =>
      rawRequest(limited.url, 'POST', '/fetch_api_key', {
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ username: limited.owner.email, password }).toString(),
      });
    // Logging in with the right password over and over is not guessing: each success clears the
    // count (a browser test suite logs the same person in many times).
    assert.equal((await login('wrong-0')).status, 401);
    for (let i = 0; i < 4; i++) assert.equal((await login('owner-password')).status, 200, `login ${i + 1} with the right password`);
    assert.equal((await login('wrong-1')).status, 401);
    assert.equal((await login('wrong-2')).status, 401);
    const refused = await login('owner-password');
    assert.equal(refused.status, 429, 'over the password limit even the right password is refused');

    const anon = await rawRequest(limited.url, 'GET', '/server_settings');
    assert.equal(anon.status, 429, 'the address already spent its unauthenticated budget on the logins');
  } finally {
    await limited.close();
  }
});
