// Jira, CircleCI, Jenkins, Zapier and IFTTT: payloads as those services document them, with
// Zulip's topic and content.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { webhookFixture, type WebhookFixture } from './webhook_helpers.js';

let f: WebhookFixture;
before(async () => {
  f = await webhookFixture('tools');
});
after(() => f.close());

async function expectMessages(name: string, payload: unknown, expected: Array<[string, string]>, query: Record<string, string> = {}) {
  const res = await f.post(name, payload, { query });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.result, 'success', JSON.stringify(res.body));
  const got = await f.latest(expected.length);
  assert.deepEqual(got.map((m) => [m.topic, m.content]), expected);
}

const issue = {
  id: '10009',
  self: 'https://zulipp.atlassian.net/rest/api/2/issue/10009',
  key: 'BUG-15',
  fields: { summary: 'New bug with hook', priority: { name: 'Medium' }, assignee: null },
};
const user = { displayName: 'Leo Franchi', emailAddress: 'leo@example.com' };

test('jira: issue created, commented (markup converted, people found), updated with a changelog', async () => {
  await expectMessages('jira', { webhookEvent: 'jira:issue_created', user, issue }, [
    ['BUG-15: New bug with hook', 'Leo Franchi created [BUG-15: New bug with hook](https://zulipp.atlassian.net/browse/BUG-15):\n\n* **Priority**: Medium\n* **Assignee**: no one'],
  ]);
  await expectMessages(
    'jira',
    {
      webhookEvent: 'jira:issue_updated',
      issue_event_type_name: 'issue_commented',
      user,
      issue: { ...issue, fields: { ...issue.fields, assignee: { displayName: 'Olivia', emailAddress: 'owner@example.com' } } },
      comment: { body: 'Thanks [~Olivia Owner], see *this* and {{code}} at [docs|https://example.com/docs]', author: user },
    },
    [
      [
        'BUG-15: New bug with hook',
        'Leo Franchi commented on [BUG-15: New bug with hook](https://zulipp.atlassian.net/browse/BUG-15) (assigned to **Olivia Owner**):\n\n``` quote\nThanks **Olivia Owner**, see **this** and `code` at [docs](https://example.com/docs)\n```',
      ],
    ],
  );
  await expectMessages(
    'jira',
    { webhookEvent: 'jira:issue_updated', issue_event_type_name: 'issue_generic', user, issue, changelog: { items: [{ field: 'status', fromString: 'To Do', toString: 'In Progress' }] } },
    [['BUG-15: New bug with hook', 'Leo Franchi updated [BUG-15: New bug with hook](https://zulipp.atlassian.net/browse/BUG-15):\n\n* Changed status from **To Do** to **In Progress**']],
  );
  const before = (await f.latest())[0]!.id;
  assert.deepEqual((await f.post('jira', { webhookEvent: 'sprint_started' })).body, { result: 'success', msg: '' });
  assert.equal((await f.latest())[0]!.id, before);
  const anomalous = await f.post('jira', { hello: 1 });
  assert.deepEqual([anomalous.status, anomalous.body.code, anomalous.body.msg], [400, 'ANOMALOUS_WEBHOOK_PAYLOAD', 'Unable to parse request: Did Jira generate this event?']);
});

test('circleci: a minimal build, a build with commits and a pull request, a v2 workflow', async () => {
  await expectMessages('circleci', { payload: { reponame: 'zulip', status: 'failed', build_url: 'https://circleci.com/gh/zulip/zulip/1', username: 'alice', branch: 'main' } }, [
    ['zulip', '[Build](https://circleci.com/gh/zulip/zulip/1) triggered by alice on branch `main` has failed.'],
  ]);
  const commit = (sha: string, author: string, login: string | null) => ({ commit: sha, commit_url: `https://github.com/zulip/zulip/commit/${sha}`, author_name: author, author_login: login, committer_email: null, committer_name: null, committer_login: null });
  await expectMessages(
    'circleci',
    {
      payload: {
        reponame: 'zulip',
        build_num: 42,
        build_url: 'https://circleci.com/gh/zulip/zulip/42',
        outcome: 'success',
        branch: 'main',
        workflows: { workflow_name: 'build', job_name: 'test' },
        user: { vcs_type: 'github' },
        vcs_url: 'https://github.com/zulip/zulip',
        all_commit_details: [commit('aaaaaaaaaaaaaaaa', 'Bob', 'bob'), commit('bbbbbbbbbbbbbbbb', 'Ann', null)],
        pull_requests: [{ url: 'https://github.com/zulip/zulip/pull/7' }],
      },
    },
    [
      [
        'zulip',
        'Build [#42](https://circleci.com/gh/zulip/zulip/42) of `test`/`build` on branch `main` has succeeded.\n- **Commits (2):** [aaaaaaaaaa ... bbbbbbbbbb](https://github.com/zulip/zulip/compare/aaaaaaaaaaaaaaaa...bbbbbbbbbbbbbbbb)\n- **Pull request:** https://github.com/zulip/zulip/pull/7\n- **Authors:** Ann, Bob (bob)',
      ],
    ],
  );
  const vcs = {
    provider_name: 'github',
    origin_repository_url: 'https://github.com/acme/confab',
    target_repository_url: 'https://github.com/acme/confab',
    revision: '2c6207b4b9d1f6b2b2b4d56e1a9ffe9d2d4f3c1e',
    branch: 'main',
    commit: { subject: 'Speed up sends', body: '', author: { name: 'Ann Lee', email: 'ann@example.com' } },
  };
  await expectMessages(
    'circleci',
    { type: 'workflow-completed', project: { name: 'confab', slug: 'gh/acme/confab' }, pipeline: { number: 130, vcs }, workflow: { name: 'ci', status: 'success', url: 'https://app.circleci.com/pipelines/gh/acme/confab/130/workflows/1' } },
    [['confab', 'Workflow [`ci`](https://app.circleci.com/pipelines/gh/acme/confab/130/workflows/1) within Pipeline #130 has succeeded.\n\nTriggered on [`2c6207b4b9d: Speed up sends`](https://github.com/acme/confab/commit/2c6207b4b9d1f6b2b2b4d56e1a9ffe9d2d4f3c1e) on branch `main` by Ann Lee.']],
  );
  await expectMessages(
    'circleci',
    { type: 'job-completed', project: { name: 'confab' }, pipeline: { number: 131, vcs: { ...vcs, provider_name: 'bitbucket', target_repository_url: 'https://bitbucket.org/acme/confab', commit: { subject: null } } }, job: { name: 'test', status: 'failed' } },
    [['confab', 'Job `test` within Pipeline #131 has failed.\n\nTriggered on `main`\'s HEAD on [2c6207b4b9d](https://bitbucket.org/acme/confab/commits/2c6207b4b9d1f6b2b2b4d56e1a9ffe9d2d4f3c1e).']],
  );
  await expectMessages('circleci', { type: 'ping', webhook: { id: 'x', name: 'Zulip' } }, [['Test event', "Webhook 'Zulip' test event successful."]]);
});

test('jenkins (Notification plugin): started, finalized with success and failure', async () => {
  const build = (phase: string, status?: string) => ({ name: 'confab-ci', url: 'job/confab-ci/', build: { full_url: 'http://jenkins.example.com/job/confab-ci/7/', number: 7, phase, ...(status ? { status } : {}), url: 'job/confab-ci/7/', scm: { branch: 'origin/main', commit: 'c6a3a1f7e1b2d3e4f5a6' } } });
  await expectMessages('jenkins', build('STARTED'), [['confab-ci', '[Build #7](http://jenkins.example.com/job/confab-ci/7/) has started.\n- **Branch:** origin/main\n- **Commit:** c6a3a1f7e1b']]);
  await expectMessages('jenkins', build('FINALIZED', 'SUCCESS'), [['confab-ci', '[Build #7](http://jenkins.example.com/job/confab-ci/7/) :check: succeeded.\n- **Branch:** origin/main\n- **Commit:** c6a3a1f7e1b']]);
  await expectMessages('jenkins', build('FINALIZED', 'FAILURE'), [['confab-ci', '[Build #7](http://jenkins.example.com/job/confab-ci/7/) :cross_mark: failed.\n- **Branch:** origin/main\n- **Commit:** c6a3a1f7e1b']]);
});

test('zapier: a message, the legacy subject field, the auth probe; errors', async () => {
  await expectMessages('zapier', { topic: 'New signups', content: 'Ann signed up' }, [['New signups', 'Ann signed up']]);
  await expectMessages('zapier', { subject: 'Old zaps', content: 'still work' }, [['Old zaps', 'still work']]);
  const auth = await f.post('zapier', { type: 'auth' });
  assert.deepEqual(auth.body, { result: 'success', msg: '', full_name: 'Hook Bot', email: f.bot.email, id: f.bot.id });
  const noTopic = await f.post('zapier', { content: 'x' });
  assert.deepEqual([noTopic.status, noTopic.body.msg], [400, "Topic can't be empty"]);
});

test('ifttt: topic and content from the applet; errors', async () => {
  await expectMessages('ifttt', { topic: 'Weather', content: 'Rain tomorrow :umbrella:' }, [['Weather', 'Rain tomorrow :umbrella:']]);
  await expectMessages('ifttt', { subject: 'Feed', content: 'New post' }, [['Feed', 'New post']]);
  await expectMessages('ifttt', { subject: 'Feed', content: 'Second post' }, [['override', 'Second post']], { topic: 'override' });
  const noContent = await f.post('ifttt', { topic: 'x' });
  assert.deepEqual([noContent.status, noContent.body.msg], [400, "Content can't be empty"]);
  const wrongType = await f.post('ifttt', { topic: 'x', content: 5 });
  assert.deepEqual([wrongType.status, wrongType.body.msg], [400, 'Malformed payload']);
});
