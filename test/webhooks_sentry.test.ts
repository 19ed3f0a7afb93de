// Sentry: events from an internal integration's alert rule (exception with traceback, message),
// the webhook plugin's format, issue changes and the deprecated format, as Sentry documents them.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { webhookFixture, type WebhookFixture } from './webhook_helpers.js';

let f: WebhookFixture;
before(async () => {
  f = await webhookFixture('sentry');
});
after(() => f.close());

async function expectMessage(payload: unknown, topic: string, content: string) {
  const res = await f.post('sentry', payload);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.result, 'success', JSON.stringify(res.body));
  const [m] = await f.latest();
  assert.deepEqual([m!.topic, m!.content], [topic, content]);
}

const WEB = 'https://sentry.io/organizations/acme/issues/1635244907/events/599349254a1447a99774b5310711c1a8/';

test('event alert: a Python exception with the raising frame as a traceback', async () => {
  await expectMessage(
    {
      action: 'triggered',
      data: {
        event: {
          title: 'Exception: Custom exception!',
          platform: 'python',
          version: '7',
          level: 'error',
          web_url: WEB,
          datetime: '2020-04-28T13:56:05.012345Z',
          metadata: { type: 'Exception', value: 'Custom exception!', filename: 'trigger-exception.py' },
          exception: {
            values: [
              {
                type: 'Exception',
                value: 'Custom exception!',
                stacktrace: {
                  frames: [
                    { filename: 'other.py', context_line: 'x()', pre_context: [], post_context: [] },
                    {
                      filename: 'trigger-exception.py',
                      pre_context: ['', 'if __name__ == "__main__":', '    sentry_sdk.init(dsn=DSN)', '    try:'],
                      context_line: '        raise Exception("Custom exception!")',
                      post_context: ['    except Exception as e:', '        sentry_sdk.capture_exception(e)'],
                    },
                  ],
                },
              },
            ],
          },
        },
        triggered_rule: 'Send to Zulip',
      },
      actor: { type: 'application', id: 'sentry', name: 'Sentry' },
    },
    'Exception: Custom exception!',
    `**New exception:** [Exception: Custom exception!](${WEB})\n\`\`\`quote\n**level:** error\n**timestamp:** <time:2020-04-28T13:56:05+00:00>\n**filename:** trigger-exception.py\n\`\`\`\n\nTraceback:\n\`\`\`python3\n\n     if __name__ == "__main__":\n         sentry_sdk.init(dsn=DSN)\n         try:\n--->         raise Exception("Custom exception!")\n         except Exception as e:\n             sentry_sdk.capture_exception(e)\n\`\`\``,
  );
});

test('event alert: a message event; the webhook plugin format', async () => {
  await expectMessage(
    { action: 'triggered', data: { event: { title: 'A simple message-based issue.', platform: 'node', level: 'info', web_url: WEB, datetime: '2020-04-28T14:05:04+00:00', logentry: { formatted: 'A simple message-based issue.' } } }, actor: { name: 'Sentry' } },
    'A simple message-based issue.',
    `**New message event:** [A simple message-based issue.](${WEB})\n\`\`\`quote\n**level:** info\n**timestamp:** <time:2020-04-28T14:05:04+00:00>\n\`\`\``,
  );
  await expectMessage(
    {
      id: '1972208801',
      project: 'python',
      project_name: 'python',
      url: 'https://sentry.io/organizations/bar-foundation/issues/1972208801/',
      level: 'error',
      message: '',
      event: { event_id: 'c916dccfd58e41dcabaebef0091f0736', title: 'ValueError: new sentry error.', platform: 'javascript', level: 'error', timestamp: 1603322711.49, metadata: {}, exception: { values: [{ type: 'ValueError' }] } },
    },
    'ValueError: new sentry error.',
    '**New exception:** [ValueError: new sentry error.](https://sentry.io/organizations/bar-foundation/issues/1972208801/events/c916dccfd58e41dcabaebef0091f0736/)\n```quote\n**level:** error\n**timestamp:** <time:2020-10-21T23:25:11+00:00>\n**filename:** None\n```',
  );
});

test('issues: created, assigned to a team, resolved; the deprecated format', async () => {
  const issue = { title: 'Exception: program has entered an invalid state.', level: 'error', lastSeen: '2020-04-28T13:56:05.123Z', assignedTo: null };
  const actor = { type: 'user', id: '1', name: 'Hemanth V. Alluri' };
  await expectMessage(
    { action: 'created', data: { issue }, actor },
    'Exception: program has entered an invalid state.',
    '**New issue created:** Exception: program has entered an invalid state.\n```quote\n**level:** error\n**timestamp:** <time:2020-04-28T13:56:05+00:00>\n**assignee:** No one\n```',
  );
  await expectMessage(
    { action: 'assigned', data: { issue: { ...issue, assignedTo: { type: 'team', name: 'lone-wolf', id: '2' } } }, actor },
    'Exception: program has entered an invalid state.',
    'Issue **Exception: program has entered an invalid state.** has now been assigned to **team lone-wolf** by **Hemanth V. Alluri**.',
  );
  await expectMessage({ action: 'resolved', data: { issue }, actor }, 'Exception: program has entered an invalid state.', 'Issue **Exception: program has entered an invalid state.** was marked as resolved by **Hemanth V. Alluri**.');
  await expectMessage(
    { project: 'zulip', project_name: 'zulip', level: 'error', url: 'https://sentry.io/zulip/zulip/issues/156699934/', message: 'This is an example python exception' },
    'zulip',
    'New [issue](https://sentry.io/zulip/zulip/issues/156699934/) (level: ERROR):\n\n``` quote\nThis is an example python exception\n```',
  );
});

test('unsupported: an issue action Zulip does not handle, the old Raven SDK', async () => {
  const archived = await f.post('sentry', { action: 'archived', data: { issue: { title: 't', assignedTo: null, lastSeen: '2020-01-01T00:00:00Z' } }, actor: { name: 'x' } });
  assert.deepEqual([archived.status, archived.body.code, archived.body.msg], [200, 'UNSUPPORTED_WEBHOOK_EVENT_TYPE', "The 'archived action' event isn't currently supported by the Sentry webhook; ignoring"]);
  const raven = await f.post('sentry', { data: { event: { title: 'old', platform: 'python', version: '5', level: 'error', web_url: WEB, datetime: '2020-01-01T00:00:00Z', logentry: {} } } });
  assert.equal(raven.body.msg, "The 'Raven SDK' event isn't currently supported by the Sentry webhook; ignoring");
});
