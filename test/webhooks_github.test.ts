// GitHub: payloads shaped as GitHub's webhook documentation shows them, with the topic and content
// Zulip's GitHub integration writes for each.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { webhookFixture, type WebhookFixture } from './webhook_helpers.js';

let f: WebhookFixture;
before(async () => {
  f = await webhookFixture('github');
});
after(() => f.close());

const repository = { id: 1296269, name: 'public-repo', full_name: 'baxterthehacker/public-repo', private: false, html_url: 'https://github.com/baxterthehacker/public-repo' };
const sender = { login: 'baxterthehacker', id: 6752317, html_url: 'https://github.com/baxterthehacker', type: 'User' };
const SHA = '0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c';
const commit = (author: { name: string; username?: string }, message = 'Update README.md') => ({
  id: SHA,
  distinct: true,
  message,
  timestamp: '2015-05-05T19:40:15-04:00',
  url: `https://github.com/baxterthehacker/public-repo/commit/${SHA}`,
  author: { name: author.name, email: 'x@example.com', ...(author.username ? { username: author.username } : {}) },
  committer: { name: author.name, email: 'x@example.com' },
});
const push = (commits: unknown[], extra: Record<string, unknown> = {}) => ({
  ref: 'refs/heads/changes',
  before: '9049f1265b7d61be4a8904a9a27120d2064dab3b',
  after: SHA,
  created: false,
  deleted: false,
  forced: false,
  compare: 'https://github.com/baxterthehacker/public-repo/compare/9049f1265b7d...0d1a26e67d8f',
  commits,
  head_commit: commits[0] ?? null,
  repository,
  pusher: { name: 'baxterthehacker', email: 'x@example.com' },
  sender,
  ...extra,
});
const pullRequest = {
  url: 'https://api.github.com/repos/baxterthehacker/public-repo/pulls/1',
  html_url: 'https://github.com/baxterthehacker/public-repo/pull/1',
  number: 1,
  state: 'open',
  title: 'Update the README with new information',
  body: 'This is a pretty simple change that we need to pull into master.',
  user: sender,
  assignee: null,
  merged: false,
  head: { label: 'baxterthehacker:changes', ref: 'changes', sha: SHA },
  base: { label: 'baxterthehacker:master', ref: 'master', sha: '9049f1265b7d61be4a8904a9a27120d2064dab3b' },
};
const issue = {
  url: 'https://api.github.com/repos/baxterthehacker/public-repo/issues/2',
  html_url: 'https://github.com/baxterthehacker/public-repo/issues/2',
  number: 2,
  title: 'Spelling error in the README file',
  user: sender,
  state: 'open',
  body: "It looks like you accidentally spelled 'commit' with two 't's.",
};

async function expectMessage(event: string, payload: unknown, topic: string, content: string, query: Record<string, string> = {}) {
  const res = await f.post('github', payload, { headers: { 'X-GitHub-Event': event }, query });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.result, 'success', JSON.stringify(res.body));
  const [m] = await f.latest();
  assert.equal(m!.topic, topic);
  assert.equal(m!.content, content);
}

test('push: one commit by the pusher, several committers, a deleted branch, a tag', async () => {
  await expectMessage(
    'push',
    push([commit({ name: 'baxterthehacker', username: 'baxterthehacker' })]),
    'public-repo / changes',
    `baxterthehacker [pushed](https://github.com/baxterthehacker/public-repo/compare/9049f1265b7d...0d1a26e67d8f) 1 commit to branch changes.\n\n* Update README.md ([0d1a26e67d8](https://github.com/baxterthehacker/public-repo/commit/${SHA}))`,
  );
  const many = [commit({ name: 'Tomasz' }), commit({ name: 'Ben' }), commit({ name: 'Tomasz' }), commit({ name: 'baxterthehacker', username: 'baxterthehacker' }), commit({ name: 'Ben' }), commit({ name: 'Tomasz' }, 'Second line\n\nbody')];
  const row = `([0d1a26e67d8](https://github.com/baxterthehacker/public-repo/commit/${SHA}))`;
  await expectMessage(
    'push',
    push(many),
    'public-repo / changes',
    `baxterthehacker [pushed](https://github.com/baxterthehacker/public-repo/compare/9049f1265b7d...0d1a26e67d8f) 6 commits to branch changes. Commits by Tomasz (3), Ben (2) and baxterthehacker (1).\n\n${'* Update README.md ' + row + '\n'}`.repeat(1) +
      `* Update README.md ${row}\n* Update README.md ${row}\n* Update README.md ${row}\n* Update README.md ${row}\n* Second line ${row}`,
  );
  await expectMessage(
    'push',
    push([], { ref: 'refs/heads/feature', deleted: true, compare: 'https://github.com/baxterthehacker/public-repo/compare/2e8cf535fb38...000000000000' }),
    'public-repo / feature',
    'baxterthehacker [deleted](https://github.com/baxterthehacker/public-repo/compare/2e8cf535fb38...000000000000) the branch feature.',
  );
  await expectMessage('push', push([], { ref: 'refs/tags/v1.0', created: true }), 'public-repo', 'baxterthehacker pushed tag v1.0.');
});

test('push: the branches parameter keeps other branches quiet', async () => {
  const before = (await f.latest())[0]!.id;
  const res = await f.post('github', push([commit({ name: 'baxterthehacker', username: 'baxterthehacker' })]), { headers: { 'X-GitHub-Event': 'push' }, query: { branches: 'master, release' } });
  assert.deepEqual(res.body, { result: 'success', msg: '' });
  assert.equal((await f.latest())[0]!.id, before);
});

test('pull_request: opened, opened with a custom topic (title in content), closed and merged', async () => {
  const opened = { action: 'opened', number: 1, pull_request: pullRequest, repository, sender };
  await expectMessage(
    'pull_request',
    opened,
    'public-repo / PR #1 Update the README with new information',
    'baxterthehacker opened [PR #1](https://github.com/baxterthehacker/public-repo/pull/1) from `baxterthehacker:changes` to `baxterthehacker:master`:\n\n~~~ quote\nThis is a pretty simple change that we need to pull into master.\n~~~',
  );
  await expectMessage(
    'pull_request',
    opened,
    'notifications',
    'baxterthehacker opened [PR #1 Update the README with new information](https://github.com/baxterthehacker/public-repo/pull/1) from `baxterthehacker:changes` to `baxterthehacker:master`:\n\n~~~ quote\nThis is a pretty simple change that we need to pull into master.\n~~~',
    { topic: 'notifications' },
  );
  await expectMessage(
    'pull_request',
    { action: 'closed', number: 1, pull_request: { ...pullRequest, merged: true }, repository, sender },
    'public-repo / PR #1 Update the README with new information',
    'baxterthehacker merged [PR #1](https://github.com/baxterthehacker/public-repo/pull/1).',
  );
  await expectMessage(
    'pull_request',
    { action: 'synchronize', number: 1, pull_request: pullRequest, repository, sender },
    'public-repo / PR #1 Update the README with new information',
    'baxterthehacker updated [PR #1](https://github.com/baxterthehacker/public-repo/pull/1).',
  );
});

test('pull_request_review and review requests', async () => {
  await expectMessage(
    'pull_request_review',
    { action: 'submitted', review: { id: 1, user: sender, body: 'Looks great!', state: 'approved', html_url: 'https://github.com/baxterthehacker/public-repo/pull/1#pullrequestreview-2626884' }, pull_request: pullRequest, repository, sender },
    'public-repo / PR #1 Update the README with new information',
    'baxterthehacker submitted [PR review](https://github.com/baxterthehacker/public-repo/pull/1#pullrequestreview-2626884):\n\n~~~ quote\nLooks great!\n~~~',
  );
  await expectMessage(
    'pull_request',
    { action: 'review_requested', number: 1, pull_request: pullRequest, requested_reviewer: { login: 'octocat', html_url: 'https://github.com/octocat' }, repository, sender },
    'public-repo / PR #1 Update the README with new information',
    '**baxterthehacker** requested [octocat](https://github.com/octocat) for a review on [PR #1](https://github.com/baxterthehacker/public-repo/pull/1).',
  );
});

test('issues and issue comments (on an issue and on a PR)', async () => {
  await expectMessage(
    'issues',
    { action: 'opened', issue, repository, sender },
    'public-repo / issue #2 Spelling error in the README file',
    "baxterthehacker opened [issue #2](https://github.com/baxterthehacker/public-repo/issues/2):\n\n~~~ quote\nIt looks like you accidentally spelled 'commit' with two 't's.\n~~~",
  );
  await expectMessage(
    'issues',
    { action: 'labeled', issue, label: { name: 'bug' }, repository, sender },
    'public-repo / issue #2 Spelling error in the README file',
    '[baxterthehacker](https://github.com/baxterthehacker) added the bug label to [Issue #2](https://github.com/baxterthehacker/public-repo/issues/2).',
  );
  const comment = { id: 99262140, html_url: 'https://github.com/baxterthehacker/public-repo/issues/2#issuecomment-99262140', user: sender, body: "You are totally right! I'll get this fixed right away." };
  await expectMessage(
    'issue_comment',
    { action: 'created', issue, comment, repository, sender },
    'public-repo / issue #2 Spelling error in the README file',
    "baxterthehacker [commented](https://github.com/baxterthehacker/public-repo/issues/2#issuecomment-99262140) on [issue #2](https://github.com/baxterthehacker/public-repo/issues/2):\n\n~~~ quote\nYou are totally right! I'll get this fixed right away.\n~~~",
  );
  await expectMessage(
    'issue_comment',
    { action: 'created', issue: { ...issue, pull_request: { url: 'x' } }, comment, repository, sender },
    'public-repo / PR #2 Spelling error in the README file',
    "baxterthehacker [commented](https://github.com/baxterthehacker/public-repo/issues/2#issuecomment-99262140) on [PR #2](https://github.com/baxterthehacker/public-repo/issues/2):\n\n~~~ quote\nYou are totally right! I'll get this fixed right away.\n~~~",
  );
});

test('release, workflow_run, star, ping; ignored events post nothing', async () => {
  await expectMessage(
    'release',
    { action: 'published', release: { tag_name: '0.0.1', name: null, html_url: 'https://github.com/baxterthehacker/public-repo/releases/tag/0.0.1' }, repository, sender },
    'public-repo',
    'baxterthehacker published release [0.0.1](https://github.com/baxterthehacker/public-repo/releases/tag/0.0.1) for tag 0.0.1.',
  );
  await expectMessage(
    'workflow_run',
    {
      action: 'completed',
      workflow_run: { name: 'CI', run_number: 42, head_branch: 'main', head_sha: SHA, status: 'completed', conclusion: 'failure', html_url: 'https://github.com/baxterthehacker/public-repo/actions/runs/30433642' },
      repository,
      sender,
    },
    'public-repo / workflows',
    `Workflow [CI](https://github.com/baxterthehacker/public-repo/actions/runs/30433642) run #42 on branch main completed (failure). ([0d1a26e67d8](https://github.com/baxterthehacker/public-repo/commit/${SHA}))`,
  );
  await expectMessage('star', { action: 'created', starred_at: '2019-05-15T15:20:40Z', repository, sender }, 'public-repo', '[baxterthehacker](https://github.com/baxterthehacker) starred the repository [baxterthehacker/public-repo](https://github.com/baxterthehacker/public-repo).');
  await expectMessage('ping', { zen: 'Design for failure.', hook_id: 1, repository, sender }, 'public-repo', 'GitHub webhook has been successfully configured by baxterthehacker.');
  const before = (await f.latest())[0]!.id;
  for (const [event, payload] of [
    ['check_suite', { action: 'completed', repository, sender }],
    ['pull_request', { action: 'labeled', number: 1, pull_request: pullRequest, repository, sender }],
    ['workflow_run', { action: 'in_progress', workflow_run: {}, repository, sender }],
  ] as const) {
    const res = await f.post('github', payload, { headers: { 'X-GitHub-Event': event } });
    assert.deepEqual(res.body, { result: 'success', msg: '' }, event);
  }
  assert.equal((await f.latest())[0]!.id, before);
});

test('GitHub Sponsors through the githubsponsors URL: new sponsorship, tier change, cancellation', async () => {
  const sponsorship = { privacy_level: 'public', tier: { name: '$10 a month', monthly_price_in_dollars: 10 } };
  const post = async (payload: unknown) => {
    const res = await f.post('githubsponsors', payload, { headers: { 'X-GitHub-Event': 'sponsorship' } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const [m] = await f.latest();
    return [m!.topic, m!.content];
  };
  assert.deepEqual(await post({ action: 'created', sponsorship, sender }), ['sponsors', 'baxterthehacker subscribed for $10 a month.']);
  assert.deepEqual(await post({ action: 'pending_tier_change', sponsorship, changes: { tier: { from: { name: '$5 a month' } } }, effective_date: '2019-12-30T00:00:00+00:00', sender }), [
    'sponsors',
    "baxterthehacker's subscription will change from $5 a month to $10 a month on December 30, 2019.",
  ]);
  assert.deepEqual(await post({ action: 'cancelled', sponsorship, sender }), ['sponsors', 'baxterthehacker cancelled their $10 a month subscription.']);
});

test("GitHub's default content type (form-encoded payload=…) works as well as JSON", async () => {
  const raw = 'payload=' + encodeURIComponent(JSON.stringify({ zen: 'Speak like a human.', hook_id: 2, repository, sender }));
  const res = await f.post('github', null, { raw, contentType: 'application/x-www-form-urlencoded', headers: { 'X-GitHub-Event': 'ping' } });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const [m] = await f.latest();
  assert.deepEqual([m!.topic, m!.content], ['public-repo', 'GitHub webhook has been successfully configured by baxterthehacker.']);
});

test('ignore_private_repositories, and edited comments whose text did not change, post nothing', async () => {
  const before = (await f.latest())[0]!.id;
  const privateRepo = { ...repository, private: true };
  const res = await f.post('github', { action: 'opened', issue, repository: privateRepo, sender }, { headers: { 'X-GitHub-Event': 'issues' }, query: { ignore_private_repositories: 'true' } });
  assert.deepEqual(res.body, { result: 'success', msg: '' });
  const comment = { id: 1, html_url: 'https://github.com/baxterthehacker/public-repo/issues/2#issuecomment-1', user: sender, body: 'Same text' };
  const edited = await f.post('github', { action: 'edited', changes: { body: { from: 'Same text' } }, issue, comment, repository, sender }, { headers: { 'X-GitHub-Event': 'issue_comment' } });
  assert.deepEqual(edited.body, { result: 'success', msg: '' });
  assert.equal((await f.latest())[0]!.id, before);
  await expectMessage(
    'issue_comment',
    { action: 'edited', changes: { body: { from: 'Old text' } }, issue, comment, repository, sender },
    'public-repo / issue #2 Spelling error in the README file',
    'baxterthehacker edited a [comment](https://github.com/baxterthehacker/public-repo/issues/2#issuecomment-1) on [issue #2](https://github.com/baxterthehacker/public-repo/issues/2):\n\n~~~ quote\nSame text\n~~~',
  );
});

test('a sender whose GitHub account is in exactly one profile is named as that user (silent mention)', async () => {
  const field = await f.owner.post('/realm/profile_fields', { name: 'GitHub', field_type: 7, field_data: JSON.stringify({ subtype: 'github' }) });
  assert.equal(field.status, 200, JSON.stringify(field.body));
  const set = await f.owner.patch('/users/me/profile_data', { data: JSON.stringify([{ id: field.body.id, value: 'baxterthehacker' }]) });
  assert.equal(set.status, 200, JSON.stringify(set.body));
  await expectMessage('star', { action: 'created', repository, sender }, 'public-repo', '[@_**Olivia Owner**](https://github.com/baxterthehacker) starred the repository [baxterthehacker/public-repo](https://github.com/baxterthehacker/public-repo).');
  await expectMessage('push', push([], { ref: 'refs/tags/v2.0', created: true }), 'public-repo', '@_**Olivia Owner** pushed tag v2.0.');
});
