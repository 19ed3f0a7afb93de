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
  assert.equal((await post(t.owner, {})).status, 200);
  assert.equal((await post(t.owner, {})).status, 400, 'no duplicate name for a language');
});

test('video calls: a Jitsi room when configured, a clear error otherwise', async () => {
  const res = await member.post('/calls/videocall/create');
  assert.equal(res.status, 200);
  assert.match(res.body.url, /^https:\/\/jitsi\.example\.com\/[0-9a-f]{24}/);
  assert.notEqual((await member.post('/calls/videocall/create')).body.url, res.body.url, 'a new room each time');
  const bare = await startTestServer();
  try {
    const none = await bare.owner.post('/calls/videocall/create');
    assert.equal(none.status, 400);
    assert.match(none.body.msg, /not configured/);
  } finally {
    await bare.close();
  }
});
