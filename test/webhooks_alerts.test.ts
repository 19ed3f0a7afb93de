// Grafana, Prometheus Alertmanager and Slack-compatible incoming webhooks: payloads as each
// service documents them, with Zulip's topic and content.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { webhookFixture, type WebhookFixture } from './webhook_helpers.js';

let f: WebhookFixture;
before(async () => {
  f = await webhookFixture('ops');
});
after(() => f.close());

/** Posts a service's payload to its webhook; fails the test unless it was accepted. */
async function postWebhook(name: string, payload: unknown, opts: { query?: Record<string, string>; contentType?: string } = {}) {
  const res = await f.post(name, payload, opts);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.result, 'success', JSON.stringify(res.body));
  return res;
}
async function expectLatest(expected: Array<[string, string]>) {
  const got = await f.latest(expected.length);
  assert.deepEqual(
    got.map((m) => [m.topic, m.content]),
    expected,
  );
}

test('grafana 7: alerting with matches and image, ok, no data', async () => {
  const base = { dashboardId: 1, ruleId: 1, ruleName: 'Test rule', ruleUrl: 'http://localhost:3000/', orgId: 1, panelId: 1, tags: {} };
  await postWebhook('grafana', {
    ...base,
    title: '[Alerting] Test notification',
    state: 'alerting',
    message: 'Someone is testing the alert notification within grafana.',
    evalMatches: [
      { value: 100, metric: 'High value', tags: null },
      { value: 200, metric: 'Higher Value', tags: null },
    ],
    imageUrl: 'https://grafana.com/assets/img/blog/mixed_styles.png',
  }, { contentType: 'application/x-www-form-urlencoded' });
  await expectLatest([
    [
      '[Alerting] Test notification',
      ':alert: **ALERTING**\n\n[Test rule](http://localhost:3000/)\n\nSomeone is testing the alert notification within grafana.\n\n**High value:** 100\n**Higher Value:** 200\n\n[Click to view visualization](https://grafana.com/assets/img/blog/mixed_styles.png)',
    ],
  ]);
  await postWebhook('grafana', { ...base, title: '[OK] Test notification', state: 'ok', message: 'Back to normal.', evalMatches: [] });
  await expectLatest([['[OK] Test notification', ':squared_ok: **OK**\n\n[Test rule](http://localhost:3000/)\n\nBack to normal.']]);
  await postWebhook('grafana', { ...base, title: '[No Data] Test', state: 'no_data', evalMatches: null });
  await expectLatest([['[No Data] Test', ':info: **NO_DATA**\n\n[Test rule](http://localhost:3000/)']]);
});

test('grafana 8+: two alerts, two messages; resolved; no alertname falls back to the fingerprint', async () => {
  const alert = (name: string, zone: string, status = 'firing', extra: Record<string, unknown> = {}) => ({
    status,
    labels: { alertname: name, team: 'blue', zone },
    annotations: { description: `The system has ${name}`, summary: `Triggered for zone ${zone}` },
    startsAt: '2021-10-12T09:51:03.157076+02:00',
    endsAt: status === 'firing' ? '0001-01-01T00:00:00Z' : '2021-10-12T10:51:03Z',
    generatorURL: 'https://play.grafana.org/alerting/1afz29v7z/edit',
    fingerprint: 'c6eadffa33fcdf37',
    silenceURL: 'https://play.grafana.org/alerting/silence/new?alertmanager=grafana',
    dashboardURL: '',
    panelURL: '',
    valueString: "[ metric='' labels={} value=14151.331895396988 ]",
    ...extra,
  });
  await postWebhook('grafana', { receiver: 'test', status: 'firing', orgId: 1, alerts: [alert('High memory usage', 'us-1'), alert('High CPU usage', 'eu-1')], title: '[FIRING:2]', state: 'alerting', message: '' });
  const body = (name: string, zone: string) =>
    `:alert: **FIRING**\n\n**${name}**\n\nThis alert was fired at <time:2021-10-12T07:51:03+00:00>.\n\nLabels:\n- alertname: ${name}\n- team: blue\n- zone: ${zone}\n\nValues:\n[ metric='' labels={} value=14151.331895396988 ]\n\nAnnotations:\n- description: The system has ${name}\n- summary: Triggered for zone ${zone}\n\n[Generator](https://play.grafana.org/alerting/1afz29v7z/edit)\n[Silence](https://play.grafana.org/alerting/silence/new?alertmanager=grafana)`;
  await expectLatest([
    ['[High memory usage]', body('High memory usage', 'us-1')],
    ['[High CPU usage]', body('High CPU usage', 'eu-1')],
  ]);
  await postWebhook('grafana', { alerts: [alert('Disk', 'us-2', 'resolved', { values: { A: 12, B: 0.5 }, valueString: '', generatorURL: '', silenceURL: '' })] });
  await expectLatest([
    [
      '[Disk]',
      ':checkbox: **RESOLVED**\n\n**Disk**\n\nThis alert was fired at <time:2021-10-12T07:51:03+00:00>.\n\nThis alert was resolved at <time:2021-10-12T10:51:03+00:00>.\n\nLabels:\n- alertname: Disk\n- team: blue\n- zone: us-2\n\nValues:\n- A: 12\n- B: 0.5\n\nAnnotations:\n- description: The system has Disk\n- summary: Triggered for zone us-2',
    ],
  ]);
  await postWebhook('grafana', { alerts: [{ ...alert('', 'x'), labels: { zone: 'x' }, annotations: {}, valueString: '', generatorURL: '', silenceURL: '' }] });
  await expectLatest([['[c6eadffa33fcdf37]', ':alert: **FIRING**\n\nThis alert was fired at <time:2021-10-12T07:51:03+00:00>.\n\nLabels:\n- zone: x']]);
});

const amAlert = (status: string, labels: Record<string, string>, annotations: Record<string, string> = {}) => ({
  status,
  labels,
  annotations,
  startsAt: '2017-02-06T05:51:56.553Z',
  endsAt: '0001-01-01T00:00:00Z',
  generatorURL: 'http://prometheus.example.com:9090/graph?g0.expr=up&g0.tab=1',
  fingerprint: 'abc',
});

test('alertmanager: one alert; several alerts of one instance; resolved; name and desc parameters', async () => {
  await postWebhook('alertmanager', { version: '4', status: 'firing', receiver: 'zulip', alerts: [amAlert('firing', { alertname: 'InstanceDown', instance: 'host1:9100' })] });
  await expectLatest([['host1:9100', ':alert: **FIRING** InstanceDown ([graph](http://prometheus.example.com:9090/graph?g0.expr=up&g0.tab=0))']]);
  await postWebhook('alertmanager', {
    version: '4',
    status: 'firing',
    alerts: [
      amAlert('firing', { alertname: 'DiskFull', instance: 'db1' }),
      amAlert('firing', { alertname: 'HighLoad', instance: 'db1' }),
      amAlert('resolved', { alertname: 'InstanceDown', instance: 'web1' }),
    ],
  });
  const graph = '([graph](http://prometheus.example.com:9090/graph?g0.expr=up&g0.tab=0))';
  await expectLatest([
    ['db1', `:alert: **FIRING**\n* DiskFull ${graph}\n* HighLoad ${graph}`],
    ['web1', `:squared_ok: **Resolved** InstanceDown ${graph}`],
  ]);
  await postWebhook('alertmanager', { alerts: [amAlert('firing', { alertname: 'X', job: 'node' }, { summary: 'Node is down' })] }, { query: { name: 'job', desc: 'summary' } });
  await expectLatest([['node', `:alert: **FIRING** Node is down ${graph}`]]);
  await postWebhook('alertmanager', { alerts: [amAlert('firing', { job: 'node' })] });
  await expectLatest([['(unknown)', `:alert: **FIRING** <missing field: alertname> ${graph}`]]);
});

// Without a channel or topic Zulip posts to "(no topic)", which is the empty topic ("general chat").
test('slack_incoming: text with mrkdwn and links, channel as topic', async () => {
  const res = await postWebhook('slack_incoming', { text: 'Hello, *world*! _Nice_ to see <https://example.com|the site>, <https://x.org/a> and <mailto:ann@example.com|ann@example.com>; ~old~ news, snake_case_name and 2*3*4 stay.' });
  assert.deepEqual(res.body, { result: 'success', msg: '', ok: true }, "Slack's clients read ok: true");
  await expectLatest([['general chat', 'Hello, **world**! *Nice* to see [the site](https://example.com), https://x.org/a and mailto:ann@example.com; ~~old~~ news, snake_case_name and 2*3*4 stay.']]);
  await postWebhook('slack_incoming', { channel: '#deploys', icon_emoji: ':rocket:', text: 'Deployed *v2*' });
  await expectLatest([['deploys', ':rocket: Deployed **v2**']]);
});

test('slack_incoming: blocks (header, section with fields, divider, context, image)', async () => {
  await postWebhook('slack_incoming', {
    text: 'fallback, not shown',
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: 'New request' } },
      { type: 'section', text: { type: 'mrkdwn', text: '*Type:* Paid time off' } },
      { type: 'section', fields: [{ type: 'mrkdwn', text: '*When:*\nAug 10' }, { type: 'mrkdwn', text: '*Hours:* 16' }, { type: 'plain_text', text: 'a|b' }] },
      { type: 'divider' },
      { type: 'context', elements: [{ type: 'mrkdwn', text: 'Submitted by _Fred_' }, { type: 'image', image_url: 'https://example.com/fred.png', alt_text: 'Fred' }] },
      { type: 'image', image_url: 'https://example.com/chart.png', alt_text: 'chart' },
      { type: 'actions', elements: [] },
    ],
  }, { query: { topic: 'requests' } });
  await expectLatest([
    [
      'requests',
      '## New request\n\n**Type:** Paid time off\n\n| | |\n|-|-|\n| **When:** Aug 10 | **Hours:** 16 |\n| a b |  |\n\n----\n\nSubmitted by *Fred*\n\n[Fred](https://example.com/fred.png)\n\n[chart](https://example.com/chart.png)',
    ],
  ]);
});

test('slack_incoming: legacy attachments; an empty payload posts nothing; a bad block type is a 400', async () => {
  await postWebhook('slack_incoming', {
    attachments: [
      {
        fallback: 'Build failed',
        title: 'Build #42',
        title_link: 'https://ci.example.com/42',
        pretext: 'CI report',
        text: 'Tests failed on *main*',
        fields: [{ title: 'Branch', value: 'main', short: true }, { title: 'Author' }, { value: 'no title' }],
        image_url: 'https://ci.example.com/42.png',
        footer: 'CI bot',
        ts: 1700000000,
      },
    ],
  });
  await expectLatest([
    ['general chat', '## [Build #42](https://ci.example.com/42)\n\nCI report\n\nTests failed on **main**\n\n**Branch**: main\n**Author**\nno title\n\n[](https://ci.example.com/42.png)\n\nCI bot\n\n<time:2023-11-14T22:13:20+00:00>'],
  ]);
  const before = (await f.latest())[0]!.id;
  await postWebhook('slack_incoming', { text: '' });
  assert.equal((await f.latest())[0]!.id, before);
  // Errors after authentication come in Slack's shape.
  const bad = await f.post('slack_incoming', { blocks: [{ type: 'carousel' }] });
  assert.deepEqual([bad.status, bad.body], [400, { ok: false, error: 'Invalid payload["blocks"][0]["type"]' }]);
  const malformed = await f.post('slack_incoming', null, { raw: '{"text": ' });
  assert.deepEqual([malformed.status, malformed.body], [400, { ok: false, error: 'Malformed JSON' }]);
  const unauthenticated = await f.post('slack_incoming', { text: 'x' }, { query: { api_key: 'wrong' } });
  assert.deepEqual([unauthenticated.status, unauthenticated.body.code], [401, 'INVALID_API_KEY']);
});
