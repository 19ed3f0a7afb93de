// Outgoing-webhook bots as objects: creation with an endpoint and a format, the service in
// /register's realm_bots and in realm_bot events, and PATCH /bots/{bot_id} changing the endpoint.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, openQueue, queuedEvents, type Client, type TestServer } from './helpers.js';

let t: TestServer;
let member: Client;
let admin: Client;
let bystander: Client;
before(async () => {
  t = await startTestServer();
  member = await t.createUser({ name: 'Otto Owner' });
  admin = await t.createUser({ role: 'administrator', name: 'Ada Admin' });
  bystander = await t.createUser({ name: 'Bert Bystander' });
});
after(async () => {
  await t.close();
});

test('POST /bots bot_type 3: a bot with a service (URL, format, its own token) in events and /register', async () => {
  const qOwner = await openQueue(member, ['realm_bot']);
  const qAdmin = await openQueue(admin, ['realm_bot']);
  const qOther = await openQueue(bystander, ['realm_bot']);
  const res = await member.post('/bots', {
    full_name: 'Echo Bot',
    short_name: 'echo',
    bot_type: 3,
    payload_url: JSON.stringify('https://bots.example/echo'),
    interface_type: 2,
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const botId = res.body.user_id;
  for (const [c, q] of [[member, qOwner], [admin, qAdmin]] as const) {
    const [ev] = await queuedEvents(c, q);
    assert.deepEqual([ev.type, ev.op, ev.bot.bot_type, ev.bot.user_id], ['realm_bot', 'add', 3, botId]);
    assert.equal(ev.bot.services.length, 1);
    const svc = ev.bot.services[0];
    assert.deepEqual(Object.keys(svc).sort(), ['base_url', 'interface', 'token']);
    assert.equal(svc.base_url, 'https://bots.example/echo');
    assert.equal(svc.interface, 2);
    assert.match(svc.token, /^[A-Za-z0-9]{32}$/);
    assert.notEqual(svc.token, res.body.api_key, 'the webhook token is not the API key');
  }
  assert.deepEqual(await queuedEvents(bystander, qOther), []);

  const reg = await member.post('/register', { fetch_event_types: ['realm_bot'] });
  const bot = reg.body.realm_bots.find((b: any) => b.user_id === botId);
  assert.equal(bot.bot_type, 3);
  assert.equal(bot.services[0].base_url, 'https://bots.example/echo');
  assert.equal(bot.services[0].interface, 2);
  // A bare URL (not JSON-encoded) is taken too, and the format defaults to Zulip's.
  const plain = await member.post('/bots', { full_name: 'Plain Bot', short_name: 'plain', bot_type: 3, payload_url: 'http://127.0.0.1:9/x' });
  assert.equal(plain.status, 200);
  const reg2 = await admin.post('/register', { fetch_event_types: ['realm_bot'] });
  const plainBot = reg2.body.realm_bots.find((b: any) => b.user_id === plain.body.user_id);
  assert.deepEqual([plainBot.services[0].base_url, plainBot.services[0].interface], ['http://127.0.0.1:9/x', 1]);
  // Other bots keep an empty list.
  const generic = await member.post('/bots', { full_name: 'Generic Bot', short_name: 'generic' });
  const reg3 = await member.post('/register', { fetch_event_types: ['realm_bot'] });
  assert.deepEqual(reg3.body.realm_bots.find((b: any) => b.user_id === generic.body.user_id).services, []);
});

test('PATCH /bots/{bot_id}: service_payload_url and service_interface, with a realm_bot update', async () => {
  const res = await member.post('/bots', { full_name: 'Moving Bot', short_name: 'moving', bot_type: 3, payload_url: JSON.stringify('https://a.example/') });
  const botId = res.body.user_id;
  const token = (await member.post('/register', { fetch_event_types: ['realm_bot'] })).body.realm_bots.find((b: any) => b.user_id === botId).services[0].token;
  const q = await openQueue(member, ['realm_bot']);
  const patched = await member.patch(`/bots/${botId}`, { service_payload_url: JSON.stringify('https://b.example/hook'), service_interface: 2 });
  assert.equal(patched.status, 200, JSON.stringify(patched.body));
  assert.equal(patched.body.service_payload_url, 'https://b.example/hook');
  assert.equal(patched.body.service_interface, 2);
  assert.equal(patched.body.full_name, 'Moving Bot');
  const [ev] = await queuedEvents(member, q);
  assert.deepEqual(ev.bot, { user_id: botId, services: [{ base_url: 'https://b.example/hook', interface: 2, token }] });
  const reg = await member.post('/register', { fetch_event_types: ['realm_bot'] });
  assert.deepEqual(reg.body.realm_bots.find((b: any) => b.user_id === botId).services, [{ base_url: 'https://b.example/hook', interface: 2, token }]);
  // do_update_bot_service: the same values again change nothing and send nothing.
  const q2 = await openQueue(member, ['realm_bot']);
  assert.equal((await member.patch(`/bots/${botId}`, { service_payload_url: JSON.stringify('https://b.example/hook'), service_interface: 2 })).status, 200);
  assert.deepEqual(await queuedEvents(member, q2), []);

  // A rename through the same endpoint.
  const renamed = await member.patch(`/bots/${botId}`, { full_name: 'Moved Bot' });
  assert.deepEqual([renamed.status, renamed.body.full_name], [200, 'Moved Bot']);

  const cases: Array<[Client, string, Record<string, unknown>, string]> = [
    [member, `/bots/${botId}`, { service_payload_url: JSON.stringify('nope') }, 'service_payload_url is not a URL'],
    [member, `/bots/${botId}`, { service_payload_url: JSON.stringify('https://c.example/'), service_interface: 3 }, 'Invalid interface type'],
    [bystander, `/bots/${botId}`, { service_payload_url: JSON.stringify('https://evil.example/') }, 'Insufficient permission'],
    [member, `/bots/${member.userId}`, { full_name: 'Not A Bot' }, 'No such bot'],
    [member, '/bots/999999', { full_name: 'Nobody' }, 'No such bot'],
  ];
  for (const [c, path, params, msg] of cases) {
    const r = await c.patch(path, params as any);
    assert.deepEqual([r.status, r.body.msg], [400, msg], JSON.stringify(params));
  }
  // An administrator may change anyone's bot.
  assert.equal((await admin.patch(`/bots/${botId}`, { service_payload_url: JSON.stringify('https://d.example/') })).status, 200);
});
