// The HTTP conventions every endpoint shares: authentication, the error envelope, 404/405,
// ignored parameters, and the login endpoint.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client, rawRequest, startTestServer, type TestServer } from './helpers.js';

let t: TestServer;
before(async () => {
  t = await startTestServer();
});
after(async () => {
  await t.close();
});

test('server_settings needs no credentials and reports the feature level', async () => {
  const res = await rawRequest(t.url, 'GET', '/server_settings');
  assert.equal(res.status, 200);
  assert.equal(res.body.result, 'success');
  assert.equal(res.body.zulip_feature_level, 494);
  assert.equal(res.body.realm_name, 'Test Org');
  assert.equal(res.body.require_email_format_usernames, true);
});

test('missing credentials get 401 with a Basic challenge', async () => {
  const res = await rawRequest(t.url, 'GET', '/users/me');
  assert.equal(res.status, 401);
  assert.equal(res.body.result, 'error');
  assert.equal(res.body.code, 'UNAUTHORIZED');
  assert.match(res.headers.get('www-authenticate') ?? '', /^Basic /);
});

test('a wrong API key and an unknown email get the same 401 UNAUTHORIZED, as Zulip answers', async () => {
  const wrongKey = await new Client(t.url, t.owner.email, 'x'.repeat(32), 0).get('/users/me');
  const unknown = await new Client(t.url, 'nobody@example.com', t.owner.apiKey, 0).get('/users/me');
  for (const res of [wrongKey, unknown]) {
    assert.equal(res.status, 401);
    assert.deepEqual([res.body.code, res.body.msg], ['UNAUTHORIZED', 'Invalid API key']);
    assert.ok(res.headers.get('www-authenticate'));
  }
  assert.deepEqual(wrongKey.body, unknown.body);
  const malformed = await new Client(t.url, t.owner.email, 'short', 0).get('/users/me');
  assert.deepEqual([malformed.status, malformed.body.code, malformed.body.msg], [401, 'UNAUTHORIZED', 'Malformed API key']);
  const padded = await new Client(t.url, ` ${t.owner.email} `, ` ${t.owner.apiKey}\t`, 0).get('/users/me');
  assert.equal(padded.status, 200, 'whitespace around the credentials is forgiven');
});

test('malformed Authorization header is a 401, not a crash', async () => {
  const nul = 'Basic ' + Buffer.from('a\u0000@example.com:key').toString('base64');
  for (const header of ['Bearer abc', 'Basic', 'Basic !!!!', 'Basic ' + Buffer.from('no-colon').toString('base64'), nul]) {
    const res = await rawRequest(t.url, 'GET', '/users/me', { headers: { Authorization: header } });
    assert.equal(res.status, 401, header);
    assert.equal(res.body.result, 'error');
  }
});

test('unknown routes are 404 and wrong methods 405, both in the envelope', async () => {
  const missing = await t.owner.get('/no/such/endpoint');
  assert.equal(missing.status, 404);
  assert.equal(missing.body.result, 'error');
  assert.equal(typeof missing.body.code, 'string');
  const wrong = await t.owner.request('PUT', '/fetch_api_key', {});
  assert.equal(wrong.status, 405);
  assert.equal(wrong.body.result, 'error');
});

test('fetch_api_key trades a password for the key', async () => {
  const res = await rawRequest(t.url, 'POST', '/fetch_api_key', {
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ username: t.owner.email, password: 'owner-password' }).toString(),
  });
  assert.equal(res.status, 200);
  assert.equal(res.body.api_key, t.owner.apiKey);
  assert.equal(res.body.email, t.owner.email);
  assert.equal(res.body.user_id, t.owner.userId);
});

test('fetch_api_key: wrong password and unknown user get the same 401', async () => {
  const form = (u: string, p: string) => ({
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ username: u, password: p }).toString(),
  });
  const wrong = await rawRequest(t.url, 'POST', '/fetch_api_key', form(t.owner.email, 'nope'));
  const unknown = await rawRequest(t.url, 'POST', '/fetch_api_key', form('ghost@example.com', 'nope'));
  assert.equal(wrong.status, 401);
  assert.deepEqual(wrong.body, unknown.body);
  assert.equal(wrong.body.code, 'AUTHENTICATION_FAILED');
});

test('a missing parameter is REQUEST_VARIABLE_MISSING naming it', async () => {
  const res = await rawRequest(t.url, 'POST', '/fetch_api_key', {
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ username: t.owner.email }).toString(),
  });
  assert.equal(res.status, 400);
  assert.equal(res.body.code, 'REQUEST_VARIABLE_MISSING');
  assert.equal(res.body.var_name, 'password');
});

test('malformed bodies are answered with a 400 envelope', async () => {
  const res = await rawRequest(t.url, 'POST', '/fetch_api_key', {
    headers: { 'Content-Type': 'application/json' },
    body: '{not json',
  });
  assert.equal(res.status, 400);
  assert.equal(res.body.result, 'error');
});

test('fetch_api_key: an address with accounts in two organizations logs in where the host points', async () => {
  const other = await t.createOrg('Second Org');
  const realm = await t.server.services.cache.realm(other.realmId);
  const inRoot = await t.createUser({ email: 'both@example.com', name: 'Root One', password: 'shared-password' });
  const inOther = await t.createUser({ realmId: other.realmId, email: 'both@example.com', name: 'Sub One', password: 'shared-password' });
  // fetch() will not send a Host header of our choosing; node:http will.
  const { request } = await import('node:http');
  const login = (host?: string) =>
    new Promise<{ body: any }>((resolve, reject) => {
      const body = new URLSearchParams({ username: 'both@example.com', password: 'shared-password' }).toString();
      const req = request(`${t.url}/api/v1/fetch_api_key`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Length': Buffer.byteLength(body), ...(host ? { Host: host } : {}) },
      }, (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ body: JSON.parse(text) }));
      });
      req.on('error', reject);
      req.end(body);
    });
  assert.equal((await login()).body.user_id, inRoot.userId, 'the root organization without a subdomain');
  assert.equal((await login(`${realm!.string_id}.localhost`)).body.user_id, inOther.userId, 'the organization at the subdomain');
});

test('multipart/form-data fields are parameters like form fields; a broken multipart body is a 400', async () => {
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'uploads here' }] });
  const sent = await t.owner.upload('/messages', [], {
    type: 'stream',
    to: 'uploads here',
    topic: 'multipart',
    content: 'sent as multipart',
  });
  assert.equal(sent.status, 200, JSON.stringify(sent.body));
  const got = await t.owner.get(`/messages/${sent.body.id}`);
  assert.equal(got.body.message.content, '<p>sent as multipart</p>');

  const broken = await rawRequest(t.url, 'POST', '/messages', {
    headers: { Authorization: t.owner.authHeader, 'Content-Type': 'multipart/form-data; boundary=xyz' },
    body: '--xyz\r\nContent-Disposition: form-data; name="type"\r\n\r\nstream\r\n--xy',
  });
  assert.equal(broken.status, 400);
  assert.equal(broken.body.result, 'error');
  const noBoundary = await rawRequest(t.url, 'POST', '/messages', {
    headers: { Authorization: t.owner.authHeader, 'Content-Type': 'multipart/form-data' },
    body: 'x',
  });
  assert.equal(noBoundary.status, 400);
  assert.equal(noBoundary.body.result, 'error');
});

test("the listening socket asks for a long accept queue, so a burst of reconnecting clients is not dropped by the kernel", async () => {
  // With Node's default (511), 5,000 clients connecting at once overflowed the queue and waited for
  // SYN retries (1, 3, 7 s). ss prints a listener's asked-for backlog as its Send-Q.
  const { execFileSync } = await import('node:child_process');
  const { readFileSync } = await import('node:fs');
  const port = new URL(t.url).port;
  const line = execFileSync('ss', ['-ltnH', `sport = :${port}`], { encoding: 'utf8' }).trim().split('\n')[0] ?? '';
  const sendQ = Number(line.trim().split(/\s+/)[2]);
  const somaxconn = Number(readFileSync('/proc/sys/net/core/somaxconn', 'utf8'));
  assert.equal(sendQ, Math.min(4096, somaxconn), line);
});
