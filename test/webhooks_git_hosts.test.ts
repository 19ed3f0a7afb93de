// Gitea, Forgejo, Gogs and Bitbucket Cloud: payloads as those services document them, with the
// topic and content Zulip's integrations write.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { webhookFixture, type WebhookFixture } from './webhook_helpers.js';

let f: WebhookFixture;
before(async () => {
  f = await webhookFixture('code');
});
after(() => f.close());

async function expectMessages(name: string, headers: Record<string, string>, payload: unknown, expected: Array<[string, string]>, query: Record<string, string> = {}) {
  const res = await f.post(name, payload, { headers, query });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.result, 'success', JSON.stringify(res.body));
  const got = await f.latest(expected.length);
  assert.deepEqual(got.map((m) => [m.topic, m.content]), expected);
}

const repository = { id: 1, name: 'webhooks', full_name: 'gitea/webhooks', html_url: 'http://localhost:3000/gitea/webhooks', private: false };
const giteaUser = { id: 1, login: 'gitea', full_name: 'Gitea', username: 'gitea' };
const SHA = 'd5522fc5e5d5ad3b06f4b4eb6e3d1bd9bd5fb88d';

test('gitea: push, pull request opened and merged, issue comment', async () => {
  const push = {
    ref: 'refs/heads/master',
    before: '28e1879d029cb852e4844d9c718537df08844e03',
    after: SHA,
    compare_url: 'http://localhost:3000/gitea/webhooks/compare/28e1879d029cb852e4844d9c718537df08844e03...bffeb74224043ba2feb48d137756c8a9331c449a',
    commits: [{ id: SHA, message: 'Webhooks Yay!', url: `http://localhost:3000/gitea/webhooks/commit/${SHA}`, author: { name: 'Gitea', email: 'someone@gitea.io', username: 'gitea' } }],
    repository,
    pusher: giteaUser,
    sender: giteaUser,
  };
  await expectMessages('gitea', { 'X-Gitea-Event': 'push' }, push, [
    ['webhooks / master', `gitea [pushed](${push.compare_url}) 1 commit to branch master.\n\n* Webhooks Yay! ([d5522fc5e5d](http://localhost:3000/gitea/webhooks/commit/${SHA}))`],
  ]);
  const pr = { id: 12, number: 1, user: giteaUser, title: 'Title', body: 'Body', html_url: 'http://localhost:3000/gitea/webhooks/pulls/1', assignee: null, merged: false, merged_by: null, head: { ref: 'feature', label: 'feature' }, base: { ref: 'master', label: 'master' } };
  await expectMessages('gitea', { 'X-Gitea-Event': 'pull_request' }, { action: 'opened', number: 1, pull_request: pr, repository, sender: giteaUser }, [
    ['webhooks / PR #12 Title', 'gitea opened [PR #1](http://localhost:3000/gitea/webhooks/pulls/1) from `feature` to `master`.'],
  ]);
  await expectMessages('gitea', { 'X-Gitea-Event': 'pull_request' }, { action: 'closed', number: 1, pull_request: { ...pr, merged: true, merged_by: { username: 'kostekIV' } }, repository, sender: giteaUser }, [
    ['webhooks / PR #12 Title', 'kostekIV merged [PR #1](http://localhost:3000/gitea/webhooks/pulls/1) from `feature` to `master`.'],
  ]);
  await expectMessages(
    'gitea',
    { 'X-Gitea-Event': 'issue_comment' },
    { action: 'created', issue: { id: 3, number: 2, title: 'Bug', body: 'It breaks' }, comment: { id: 9, html_url: 'http://localhost:3000/gitea/webhooks/issues/2#issuecomment-9', body: 'Fixed in master' }, repository, sender: giteaUser },
    [['webhooks / issue #2 Bug', 'gitea [commented](http://localhost:3000/gitea/webhooks/issues/2#issuecomment-9) on [issue #2](http://localhost:3000/gitea/webhooks/issues/2):\n\n~~~ quote\nFixed in master\n~~~']],
  );
});

test('forgejo (X-Forgejo-Event) and gogs: issues, branch creation, release', async () => {
  await expectMessages(
    'forgejo',
    { 'X-Forgejo-Event': 'issues' },
    { action: 'opened', issue: { id: 7, number: 5, title: 'Crash on start', body: 'Steps to reproduce', assignee: { login: 'alice' } }, repository, sender: giteaUser },
    [['webhooks / issue #5 Crash on start', 'gitea opened [issue #5](http://localhost:3000/gitea/webhooks/issues/5) (assigned to alice):\n\n~~~ quote\nSteps to reproduce\n~~~']],
  );
  await expectMessages('gogs', { 'X-Gogs-Event': 'create' }, { ref: 'feature', ref_type: 'branch', repository, sender: { username: 'john' } }, [
    ['webhooks / feature', 'john created [feature](http://localhost:3000/gitea/webhooks/src/feature) branch.'],
  ]);
  await expectMessages('gogs', { 'X-Gogs-Event': 'release' }, { action: 'published', release: { tag_name: 'v1.4', name: 'Prod', author: { username: 'john' } }, repository, sender: { username: 'john' } }, [
    ['webhooks / v1.4 Prod', 'john published release [Prod](http://localhost:3000/gitea/webhooks) for tag v1.4.'],
  ]);
  const unknown = await f.post('gogs', { repository }, { headers: { 'X-Gogs-Event': 'fork' } });
  assert.deepEqual([unknown.body.code, unknown.body.msg], ['UNSUPPORTED_WEBHOOK_EVENT_TYPE', "The 'fork' event isn't currently supported by the Gogs webhook; ignoring"]);
});

test('forgejo and gogs: push and pull request shapes', async () => {
  const push = {
    ref: 'refs/heads/main',
    before: '1111111111111111111111111111111111111111',
    after: SHA,
    compare_url: 'https://codeberg.org/ann/webhooks/compare/1111111111...d5522fc5e5',
    commits: [
      { id: SHA, message: 'Add docs\n\nLonger body', url: `https://codeberg.org/ann/webhooks/commit/${SHA}`, author: { name: 'Ann Lee', email: 'ann@example.com', username: 'ann' } },
      { id: SHA, message: 'Fix typo', url: `https://codeberg.org/ann/webhooks/commit/${SHA}`, author: { name: 'Bob Stone', email: 'bob@example.com', username: '' } },
    ],
    repository,
    sender: { login: 'ann', username: 'ann' },
  };
  const row = `([d5522fc5e5d](https://codeberg.org/ann/webhooks/commit/${SHA}))`;
  await expectMessages('forgejo', { 'X-Forgejo-Event': 'push', 'X-Gitea-Event': 'push' }, push, [
    ['webhooks / main', `ann [pushed](${push.compare_url}) 2 commits to branch main. Commits by Bob (1) and ann (1).\n\n* Add docs ${row}\n* Fix typo ${row}`],
  ]);
  await expectMessages('forgejo', { 'X-Gitea-Event': 'pull_request' }, { action: 'edited', number: 4, pull_request: { id: 40, number: 4, user: giteaUser, title: 'Docs', html_url: 'https://codeberg.org/ann/webhooks/pulls/4', assignee: null, merged: false, head: { ref: 'docs' }, base: { ref: 'main' } }, repository, sender: giteaUser }, [
    ['webhooks / PR #40 Docs', 'gitea edited [PR #4](https://codeberg.org/ann/webhooks/pulls/4).'],
  ]);
  await expectMessages('gogs', { 'X-Gogs-Event': 'push' }, { ...push, sender: { login: 'ann', username: 'ann' } }, [
    ['webhooks / main', `ann [pushed](${push.compare_url}) 2 commits to branch main. Commits by Bob (1) and ann (1).\n\n* Add docs ${row}\n* Fix typo ${row}`],
  ]);
  await expectMessages('gogs', { 'X-Gogs-Event': 'pull_request' }, { action: 'opened', pull_request: { id: 9, number: 2, title: 'Speed up', user: { username: 'ann' }, html_url: 'http://gogs.example.com/ann/webhooks/pulls/2', merged: false, head_branch: 'fast', base_branch: 'main' }, repository, sender: { username: 'ann' } }, [
    ['webhooks / PR #9 Speed up', 'ann opened [PR #2](http://gogs.example.com/ann/webhooks/pulls/2) from `fast` to `main`.'],
  ]);
});

const bbRepo = { type: 'repository', name: 'Repository name', full_name: 'team/repo', links: { html: { href: 'https://bitbucket.org/team/repo' } } };
const bbActor = { type: 'user', display_name: 'Tomasz', nickname: 'kolaszek' };
const link = (href: string) => ({ html: { href } });

test('bitbucket2: a push with commits, a tag and a deleted branch (three messages)', async () => {
  const commitHash = '84b96adc644a30fd6465b3d196369d880762afed';
  await expectMessages(
    'bitbucket2',
    { 'X-Event-Key': 'repo:push' },
    {
      actor: bbActor,
      repository: bbRepo,
      push: {
        changes: [
          {
            new: { type: 'branch', name: 'master', target: { hash: commitHash } },
            old: { type: 'branch', name: 'master' },
            forced: false,
            truncated: false,
            links: link('https://bitbucket.org/team/repo/branches/compare/84b96adc644a...a0a1ba15e8b5'),
            commits: [{ hash: commitHash, message: 'first commit\n', author: { raw: 'Tomasz <t@example.com>', user: bbActor }, links: link(`https://bitbucket.org/team/repo/commits/${commitHash}`) }],
          },
          { new: { type: 'tag', name: 'a', links: link('https://bitbucket.org/team/repo/commits/tag/a') }, old: null, forced: false, truncated: false, links: link('x'), commits: [] },
          { new: null, old: { type: 'branch', name: 'old-feature' }, forced: false, truncated: false, links: link('x'), commits: [] },
        ],
      },
    },
    [
      ['Repository name / master', `Tomasz [pushed](https://bitbucket.org/team/repo/branches/compare/84b96adc644a...a0a1ba15e8b5) 1 commit to branch master.\n\n* first commit ([84b96adc644](https://bitbucket.org/team/repo/commits/${commitHash}))`],
      ['Repository name', 'Tomasz pushed tag [a](https://bitbucket.org/team/repo/commits/tag/a).'],
      ['Repository name / old-feature', 'Tomasz deleted branch old-feature.'],
    ],
  );
});

test('bitbucket2: pull request created and merged, a comment on it, an issue, a fork', async () => {
  const pr = { id: 1, title: 'new commit', description: 'Please merge', links: link('https://bitbucket.org/team/repo/pull-requests/1'), reviewers: [{ display_name: 'Reviewer' }], source: { branch: { name: 'feature' } }, destination: { branch: { name: 'master' } } };
  await expectMessages('bitbucket2', { 'X-Event-Key': 'pullrequest:created' }, { actor: bbActor, repository: bbRepo, pullrequest: pr }, [
    ['Repository name / PR #1 new commit', 'Tomasz created [PR #1](https://bitbucket.org/team/repo/pull-requests/1) from `feature` to `master` (assigned to Reviewer):\n\n~~~ quote\nPlease merge\n~~~'],
  ]);
  await expectMessages('bitbucket2', { 'X-Event-Key': 'pullrequest:fulfilled' }, { actor: bbActor, repository: bbRepo, pullrequest: pr }, [
    ['Repository name / PR #1 new commit', 'Tomasz merged [PR #1](https://bitbucket.org/team/repo/pull-requests/1) from `feature` to `master`.'],
  ]);
  await expectMessages(
    'bitbucket2',
    { 'X-Event-Key': 'pullrequest:comment_created' },
    { actor: bbActor, repository: bbRepo, pullrequest: pr, comment: { content: { raw: 'Looks good' }, links: link('https://bitbucket.org/team/repo/pull-requests/1/_/diff#comment-3') } },
    [['Repository name / PR #1 new commit', 'Tomasz [commented](https://bitbucket.org/team/repo/pull-requests/1/_/diff#comment-3) on [PR #1](https://bitbucket.org/team/repo/pull-requests/1):\n\n~~~ quote\nLooks good\n~~~']],
  );
  await expectMessages(
    'bitbucket2',
    { 'X-Event-Key': 'issue:created' },
    { actor: bbActor, repository: bbRepo, issue: { id: 1, title: 'Bug', content: { raw: 'Suspicious' }, assignee: { display_name: 'Ann' }, links: link('https://bitbucket.org/team/repo/issues/2/bug') } },
    [['Repository name / issue #1 Bug', 'Tomasz created [issue #1](https://bitbucket.org/team/repo/issues/2/bug) (assigned to Ann):\n\n~~~ quote\nSuspicious\n~~~']],
  );
  await expectMessages('bitbucket2', { 'X-Event-Key': 'repo:fork' }, { actor: bbActor, repository: bbRepo, fork: { full_name: 'Tomasz/repo', links: link('https://bitbucket.org/Tomasz/repo') } }, [
    ['Repository name', 'Tomasz forked the repository into [Tomasz/repo](https://bitbucket.org/Tomasz/repo).'],
  ]);
  const unknown = await f.post('bitbucket2', { actor: bbActor, repository: bbRepo, pullrequest: pr }, { headers: { 'X-Event-Key': 'pullrequest:changes_request_created' } });
  assert.deepEqual([unknown.body.code, unknown.body.event_type], ['UNSUPPORTED_WEBHOOK_EVENT_TYPE', 'pullrequest:changes_request_created']);
});

test('bitbucket2: stream and topic are decoded twice, as Jira and Bitbucket need', async () => {
  const res = await f.post('bitbucket2', { actor: bbActor, repository: bbRepo, fork: { full_name: 'a/b', links: link('https://bitbucket.org/a/b') } }, { headers: { 'X-Event-Key': 'repo:fork' }, query: { topic: 'two%20words' } });
  assert.equal(res.status, 200);
  assert.equal((await f.latest())[0]!.topic, 'two words');
});
