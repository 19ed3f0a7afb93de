// PagerDuty, Opsgenie and Uptime Robot: payloads as those services document them, with Zulip's
// topic and content.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { webhookFixture, type WebhookFixture } from './webhook_helpers.js';

let f: WebhookFixture;
before(async () => {
  f = await webhookFixture('oncall');
});
after(() => f.close());

async function expectMessages(name: string, payload: unknown, expected: Array<[string, string]>) {
  const res = await f.post(name, payload);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.result, 'success', JSON.stringify(res.body));
  const got = await f.latest(expected.length);
  assert.deepEqual(got.map((m) => [m.topic, m.content]), expected);
}

test('pagerduty V3: triggered, acknowledged, resolved by an agent', async () => {
  const data = {
    id: 'PGR0VU2',
    type: 'incident',
    self: 'https://api.pagerduty.com/incidents/PGR0VU2',
    html_url: 'https://acme.pagerduty.com/incidents/PGR0VU2',
    number: 2,
    status: 'triggered',
    title: 'A little bump in the road',
    service: { html_url: 'https://acme.pagerduty.com/services/PF9KMXH', id: 'PF9KMXH', summary: 'API Service', type: 'service_reference' },
    assignees: [{ html_url: 'https://acme.pagerduty.com/users/PTUXL6G', id: 'PTUXL6G', summary: 'User 123', type: 'user_reference' }],
  };
  const agent = { html_url: 'https://acme.pagerduty.com/users/PLH1HKV', id: 'PLH1HKV', summary: 'Tenex Engineer', type: 'user_reference' };
  const event = (event_type: string, extra: Record<string, unknown> = {}) => ({ event: { id: '01BZ', event_type, resource_type: 'incident', occurred_at: '2020-10-02T18:45:22.169Z', agent, data, ...extra } });
  const topic = 'Incident A little bump in the road (#2)';
  const link = '[A little bump in the road (#2)](https://acme.pagerduty.com/incidents/PGR0VU2)';
  await expectMessages('pagerduty', event('incident.triggered'), [[topic, `Incident ${link} triggered by [API Service](https://acme.pagerduty.com/services/PF9KMXH) (assigned to [User 123](https://acme.pagerduty.com/users/PTUXL6G)).`]]);
  await expectMessages('pagerduty', event('incident.acknowledged'), [[topic, `Incident ${link} acknowledged by [User 123](https://acme.pagerduty.com/users/PTUXL6G).`]]);
  await expectMessages('pagerduty', event('incident.resolved'), [[topic, `Incident ${link} resolved by [Tenex Engineer](https://acme.pagerduty.com/users/PLH1HKV).`]]);
  const unsupported = await f.post('pagerduty', event('incident.priority_updated'));
  assert.deepEqual([unsupported.body.code, unsupported.body.event_type], ['UNSUPPORTED_WEBHOOK_EVENT_TYPE', 'incident.priority_updated']);
});

test('pagerduty V2 and V1 messages', async () => {
  await expectMessages(
    'pagerduty',
    {
      messages: [
        {
          event: 'incident.trigger',
          incident: {
            incident_number: 33,
            html_url: 'https://webdemo.pagerduty.com/incidents/PRORDTY',
            description: 'My new incident',
            service: { name: 'Production XDB Cluster', html_url: 'https://webdemo.pagerduty.com/services/PN3RP26' },
            assignments: [{ assignee: { summary: 'Laura Haley', html_url: 'https://webdemo.pagerduty.com/users/P553OPV' } }],
            last_status_change_by: null,
          },
        },
      ],
    },
    [['Incident 33', 'Incident [33](https://webdemo.pagerduty.com/incidents/PRORDTY) triggered by [Production XDB Cluster](https://webdemo.pagerduty.com/services/PN3RP26) (assigned to [Laura Haley](https://webdemo.pagerduty.com/users/P553OPV)).\n\n``` quote\nMy new incident\n```']],
  );
  await expectMessages(
    'pagerduty',
    {
      messages: [
        {
          type: 'incident.resolve',
          data: {
            incident: {
              id: 'PO1XIJ5',
              incident_number: 5,
              html_url: 'https://zulip-test.pagerduty.com/incidents/PO1XIJ5',
              service: { name: 'Test service', html_url: 'https://zulip-test.pagerduty.com/services/PIL5CUQ' },
              assigned_to_user: null,
              resolved_by_user: { email: 'armooo@example.com', html_url: 'https://zulip-test.pagerduty.com/users/POBCFRJ' },
              trigger_summary_data: { subject: 'It is on fire' },
            },
          },
        },
      ],
    },
    [['Incident 5', 'Incident [5](https://zulip-test.pagerduty.com/incidents/PO1XIJ5) resolved by [armooo](https://zulip-test.pagerduty.com/users/POBCFRJ).\n\n``` quote\nIt is on fire\n```']],
  );
});

test('opsgenie: create with tags, acknowledge, add note', async () => {
  const alert = (extra: Record<string, unknown> = {}) => ({ alertId: '052652ac-5d1c-464a-812a-7dd18bbfba8c', message: 'test alert', tags: ['tag1', 'tag2'], ...extra });
  const link = '[Opsgenie alert for Zulip](https://app.opsgenie.com/alert/V2#/show/052652ac-5d1c-464a-812a-7dd18bbfba8c)';
  await expectMessages('opsgenie', { action: 'Create', alert: alert(), integrationName: 'Zulip', integrationType: 'Webhook' }, [['Zulip', `${link}:\n* **Type**: Create\n* **Message**: test alert\n* **Tags**: \`tag1\`, \`tag2\``]]);
  await expectMessages('opsgenie', { action: 'Acknowledge', alert: alert({ tags: [] }), integrationName: 'Zulip' }, [['Zulip', `${link}:\n* **Type**: Acknowledge\n* **Message**: test alert`]]);
  await expectMessages('opsgenie', { action: 'AddNote', alert: { alertId: '052652ac-5d1c-464a-812a-7dd18bbfba8c', note: 'Added a note' }, integrationName: 'Zulip', escalationName: 'Night shift' }, [
    ['Zulip', `${link}:\n* **Type**: AddNote\n* **Note**: Added a note\n* **Escalation**: Night shift`],
  ]);
});

test('uptimerobot: down, up, an SSL expiry (unsupported), a payload missing its fields', async () => {
  const base = { monitor_url: 'https://www.google.com', monitor_friendly_name: 'Google Search', alert_type: 1, alert_details: 'HTTP 500 - Internal Server Error', monitor_id: 788949 };
  await expectMessages('uptimerobot', { ...base, alert_type_friendly_name: 'Down' }, [['Google Search', 'Google Search (https://www.google.com) is DOWN (HTTP 500 - Internal Server Error).']]);
  await expectMessages('uptimerobot', { ...base, alert_type_friendly_name: 'Up', alert_details: 'HTTP 200 - OK', alert_friendly_duration: '3 minutes and 1 second' }, [
    ['Google Search', 'Google Search (https://www.google.com) is back UP (HTTP 200 - OK).\nIt was down for 3 minutes and 1 second.'],
  ]);
  const ssl = await f.post('uptimerobot', { ...base, alert_type_friendly_name: 'SSL Expiry' });
  assert.deepEqual([ssl.status, ssl.body.code, ssl.body.event_type], [200, 'UNSUPPORTED_WEBHOOK_EVENT_TYPE', 'SSL Expiry']);
  const bad = await f.post('uptimerobot', { monitor_friendly_name: 'x' });
  assert.deepEqual([bad.status, bad.body.msg], [400, 'Invalid payload']);
  const [notice] = await f.latest();
  assert.equal(notice!.type, 'private');
  assert.equal(notice!.content, `Your bot @_**Hook Bot|${f.bot.id}** received a payload from Uptime Robot without the data this integration needs: check the fields the webhook is set up to send in Uptime Robot's settings.`);
  // only_events sees Zulip's event names, "up" and "down".
  const before = notice!.id;
  await f.post('uptimerobot', { ...base, alert_type_friendly_name: 'Down' }, { query: { only_events: '["up"]' } });
  assert.equal((await f.latest())[0]!.id, before);
});
