// Incoming webhooks, what every integration shares: credentials, where the message goes (channel
// by name or id, topic override, the owner's direct messages), event filters, and the errors for
// unknown events and malformed payloads. The generic JSON integration serves as the example.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client, rawRequest } from './helpers.js';
import { webhookFixture, type WebhookFixture } from './webhook_helpers.js';

let f: WebhookFixture;
/** The id of the newest message the webhook bot posted (notices to the owner come from the Notification Bot). */
async function lastFromBot(): Promise<number> {
  const res = await f.owner.get('/messages', { anchor: 'newest', num_before: 1, num_after: 0, narrow: [{ operator: 'sender', operand: f.bot.id }] });
  return res.body.messages[0]?.id ?? 0;
}
before(async () => {
  f = await webhookFixture();
});
after(() => f.close());

const GH_PING = { zen: 'Keep it logically awesome.', hook_id: 1, repository: { name: 'confab', full_name: 'acme/confab', html_url: 'https://github.com/acme/confab', private: false }, sender: { login: 'octocat', html_url: 'https://github.com/octocat' } };

test('json: the payload as a JSON code block under the topic "JSON"', async () => {
  const res = await f.post('json', { name: 'Café', count: 2, tags: ['a'], nested: { ok: true, none: null } });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual(res.body, { result: 'success', msg: '' });
  const [m] = await f.latest();
  assert.equal(m!.topic, 'JSON');
  assert.equal(m!.sender_id, f.bot.id);
  assert.equal(m!.display_recipient, f.streamName);
  assert.equal(m!.content, '```json\n{\n  "name": "Caf\\u00e9",\n  "count": 2,\n  "tags": [\n    "a"\n  ],\n  "nested": {\n    "ok": true,\n    "none": null\n  }\n}\n```');
});

test('channel by id, topic override, trailing slash', async () => {
  const res = await f.post('json/', { a: 1 }, { stream: String(f.streamId), query: { topic: 'custom topic' } });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const [m] = await f.latest();
  assert.equal(m!.topic, 'custom topic');
  assert.equal(m!.display_recipient, f.streamName);
  assert.equal(m!.content, '```json\n{\n  "a": 1\n}\n```');
});

test('without stream: a direct message to the bot owner', async () => {
  const res = await f.post('json', { dm: true }, { stream: null });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const [m] = await f.latest();
  assert.equal(m!.type, 'private');
  assert.equal(m!.sender_id, f.bot.id);
  assert.deepEqual((m!.display_recipient as any[]).map((u) => u.id).sort(), [f.owner.userId, f.bot.id].sort());
  assert.equal(m!.content, '```json\n{\n  "dm": true\n}\n```');
});

test('a channel that does not exist: success for the service, a notice to the owner', async () => {
  const before = (await f.latest())[0]!.id;
  const res = await f.post('json', { x: 1 }, { stream: 'no such channel' });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const [m] = await f.latest();
  assert.ok(m!.id > before);
  assert.equal(m!.type, 'private');
  assert.equal(m!.content, `Your bot @_**Hook Bot|${f.bot.id}** tried to send a message to channel #**no such channel**, but that channel does not exist. Click [here](#channels/new) to create it.`);
});

test('credentials: api_key, HTTP Basic, missing, wrong', async () => {
  const missing = await rawRequest(f.t.url, 'POST', `/api/v1/external/json?stream=${f.streamName}`, { headers: { 'Content-Type': 'application/json' }, body: '{}' });
  assert.deepEqual([missing.status, missing.body.code, missing.body.msg], [400, 'REQUEST_VARIABLE_MISSING', "Missing 'api_key' argument"]);
  const wrong = await rawRequest(f.t.url, 'POST', `/api/v1/external/json?api_key=nope&stream=${f.streamName}`, { headers: { 'Content-Type': 'application/json' }, body: '{}' });
  assert.deepEqual([wrong.status, wrong.body.code], [401, 'INVALID_API_KEY']);
  const basic = 'Basic ' + Buffer.from(`${f.bot.email}:${f.bot.apiKey}`).toString('base64');
  const viaBasic = await rawRequest(f.t.url, 'POST', `/api/v1/external/json?stream=${f.streamName}&topic=basic`, { headers: { 'Content-Type': 'application/json', Authorization: basic }, body: '{"b":1}' });
  assert.equal(viaBasic.status, 200, JSON.stringify(viaBasic.body));
  assert.equal((await f.latest())[0]!.topic, 'basic');
  const badBasic = 'Basic ' + Buffer.from(`${f.bot.email}:wrong`).toString('base64');
  const viaBadBasic = await rawRequest(f.t.url, 'POST', `/api/v1/external/json?stream=${f.streamName}`, { headers: { 'Content-Type': 'application/json', Authorization: badBasic }, body: '{}' });
  // As Zulip: a key in the query is checked by the webhook view (INVALID_API_KEY); HTTP Basic goes
  // through REST authentication, which answers every credential failure with UNAUTHORIZED.
  assert.deepEqual([viaBadBasic.status, viaBadBasic.body.code, viaBadBasic.body.msg], [401, 'UNAUTHORIZED', 'Malformed API key']);
});

test('a generic bot may post through webhooks too', async () => {
  const created = await f.owner.post('/bots', { full_name: 'Generic Bot', short_name: 'generic' });
  assert.equal(created.status, 200);
  const res = await rawRequest(f.t.url, 'POST', `/api/v1/external/json?api_key=${created.body.api_key}&stream=${f.streamName}&topic=generic`, { headers: { 'Content-Type': 'application/json' }, body: '{"g":1}' });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const [m] = await f.latest();
  assert.deepEqual([m!.topic, m!.sender_id], ['generic', created.body.user_id]);
});

test('an incoming-webhook bot may send messages but use no other endpoint', async () => {
  const asBot = new Client(f.t.url, f.bot.email, f.bot.apiKey, f.bot.id);
  const me = await asBot.get('/users/me');
  assert.deepEqual([me.status, me.body.msg], [401, 'This API is not available to incoming webhook bots.']);
  const fetch = await asBot.get('/messages', { anchor: 'newest', num_before: 1, num_after: 0 });
  assert.equal(fetch.status, 401);
  const sent = await asBot.post('/messages', { type: 'stream', to: f.streamName, topic: 'direct send', content: 'hello' });
  assert.equal(sent.status, 200, JSON.stringify(sent.body));
});

test('malformed JSON and malformed payloads: 400 naming the problem, nothing posted', async () => {
  const before = await lastFromBot();
  const bad = await f.post('json', null, { raw: '{"a": ' });
  assert.deepEqual([bad.status, bad.body.result, bad.body.msg], [400, 'error', 'Malformed JSON']);
  const empty = await f.post('json', null, { raw: '' });
  assert.deepEqual([empty.status, empty.body.msg], [400, 'Malformed JSON']);
  const missingKey = await f.post('github', { action: 'opened' }, { headers: { 'X-GitHub-Event': 'issues' } });
  assert.deepEqual([missingKey.status, missingKey.body.msg], [400, 'payload["sender"] is missing']);
  const wrongType = await f.post('github', { ...GH_PING, sender: { login: 42 } }, { headers: { 'X-GitHub-Event': 'ping' } });
  assert.deepEqual([wrongType.status, wrongType.body.msg], [400, 'payload["sender"]["login"] is not a string']);
  const notObject = await f.post('grafana', [1, 2]);
  assert.equal(notObject.status, 400);
  assert.equal(await lastFromBot(), before);
});

test('unsupported event: Zulip\'s UNSUPPORTED_WEBHOOK_EVENT_TYPE, nothing posted', async () => {
  const before = await lastFromBot();
  const res = await f.post('github', { ...GH_PING, action: 'created' }, { headers: { 'X-GitHub-Event': 'sponsorship_nonsense' } });
  assert.equal(res.status, 200);
  assert.deepEqual(res.body, {
    result: 'error',
    msg: "The 'sponsorship_nonsense:created' event isn't currently supported by the GitHub webhook; ignoring",
    code: 'UNSUPPORTED_WEBHOOK_EVENT_TYPE',
    webhook_name: 'GitHub',
    event_type: 'sponsorship_nonsense:created',
  });
  const noHeader = await f.post('github', GH_PING);
  assert.deepEqual([noHeader.status, noHeader.body.code, noHeader.body.msg, noHeader.body.header], [400, 'MISSING_HTTP_EVENT_HEADER', "Missing the HTTP event header 'X-GitHub-Event'", 'X-GitHub-Event']);
  const unknown = await f.post('no_such_service', {});
  assert.equal(unknown.status, 404);
  assert.equal(await lastFromBot(), before);
});

test('only_events and exclude_events filter by event type, with wildcards', async () => {
  const before = (await f.latest())[0]!.id;
  const skipped = await f.post('github', GH_PING, { headers: { 'X-GitHub-Event': 'ping' }, query: { only_events: '["push*","issues"]' } });
  assert.equal(skipped.status, 200);
  const excluded = await f.post('github', GH_PING, { headers: { 'X-GitHub-Event': 'ping' }, query: { exclude_events: '["p?ng"]' } });
  assert.equal(excluded.status, 200);
  assert.equal((await f.latest())[0]!.id, before, 'filtered events post nothing');
  const kept = await f.post('github', GH_PING, { headers: { 'X-GitHub-Event': 'ping' }, query: { only_events: '["pi*"]', exclude_events: '["push"]' } });
  assert.equal(kept.status, 200);
  const [m] = await f.latest();
  assert.deepEqual([m!.topic, m!.content], ['confab', 'GitHub webhook has been successfully configured by octocat.']);
  const invalid = await f.post('github', GH_PING, { headers: { 'X-GitHub-Event': 'ping' }, query: { only_events: 'push' } });
  assert.deepEqual([invalid.status, invalid.body.msg], [400, 'only_events is not valid JSON']);
});

test('form-encoded bodies: JSON sent as form data, and a payload field', async () => {
  const res = await f.post('json', null, { raw: '{"form": 1}', contentType: 'application/x-www-form-urlencoded' });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal((await f.latest())[0]!.content, '```json\n{\n  "form": 1\n}\n```');
  const slack = await f.post('slack_incoming', null, { raw: 'payload=' + encodeURIComponent('{"text":"from a form"}'), contentType: 'application/x-www-form-urlencoded' });
  assert.equal(slack.status, 200, JSON.stringify(slack.body));
  assert.equal((await f.latest())[0]!.content, 'from a form');
});

test('no payload shape makes any integration answer 500', async () => {
  const names = ['json', 'slack_incoming', 'github', 'githubsponsors', 'gitlab', 'gitea', 'forgejo', 'gogs', 'bitbucket2', 'sentry', 'grafana', 'alertmanager', 'jira', 'pagerduty', 'opsgenie', 'uptimerobot', 'circleci', 'jenkins', 'zapier', 'ifttt'];
  const headers = {
    'X-GitHub-Event': 'pull_request',
    'X-Gitlab-Event': 'Merge Request Hook',
    'X-Gitea-Event': 'push',
    'X-Forgejo-Event': 'issues',
    'X-Gogs-Event': 'release',
    'X-Event-Key': 'pullrequest:created',
  };
  const bodies = ['[]', '"text"', '42', 'null', '{}', '{"action": 5, "pull_request": [], "object_attributes": "x", "alerts": {}, "data": {"event": 3}}', '{"messages": [{"type": 1}], "event": {"event_type": "incident.triggered", "data": null}, "push": {"changes": [null]}}', '{"alerts": [{"status": "firing", "labels": 3}], "payload": {"reponame": 1}, "build": {"phase": null}}'];
  for (const name of names) {
    for (const raw of bodies) {
      const res = await f.post(name, null, { raw, headers });
      assert.notEqual(res.status, 500, `${name} ${raw}: ${JSON.stringify(res.body)}`);
      assert.ok(res.status === 200 || res.status === 400, `${name} ${raw}: ${res.status} ${JSON.stringify(res.body)}`);
    }
  }
});

test("the bot's owner hears of a body that is not JSON and of a missing event header, at most once a minute", async () => {
  const newBot = async (short: string) => {
    const created = await f.owner.post('/bots', { full_name: `Notice ${short}`, short_name: short, bot_type: 2 });
    assert.equal(created.status, 200);
    return { id: created.body.user_id as number, key: created.body.api_key as string };
  };
  const post = (key: string, raw: string, headers: Record<string, string> = {}) =>
    rawRequest(f.t.url, 'POST', `/api/v1/external/github?api_key=${key}&stream=${f.streamName}`, { headers: { 'Content-Type': 'application/json', ...headers }, body: raw });

  const a = await newBot('noticea');
  const before = (await f.latest())[0]!.id;
  assert.equal((await post(a.key, 'not json', { 'X-GitHub-Event': 'push' })).status, 400);
  assert.equal((await post(a.key, 'still not json', { 'X-GitHub-Event': 'push' })).status, 400);
  const notices = (await f.latest(5)).filter((m) => m.id > before);
  assert.equal(notices.length, 1, 'one notice however many bad requests arrive within a minute');
  assert.equal(notices[0]!.type, 'private');
  assert.equal(notices[0]!.content, `Your bot @_**Notice noticea|${a.id}** received a request for the GitHub integration whose body is not the JSON that integration expects. Check the content type the service is set to send.`);

  const b = await newBot('noticeb');
  assert.equal((await post(b.key, '{"sender": {"login": "x"}}')).status, 400);
  const [m] = await f.latest();
  assert.equal(
    m!.content,
    `Your bot @_**Notice noticeb|${b.id}** received a request at \`/api/v1/external/github\` without the HTTP header \`X-GitHub-Event\`, which is how GitHub says what happened. The service may be set up with the URL of another integration, or be a version that does not send that header.`,
  );
});
