// GitLab: payloads as GitLab's webhook documentation shows them (push, tag push, issue, merge
// request, note, pipeline, release), with Zulip's topic and content.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { webhookFixture, type WebhookFixture } from './webhook_helpers.js';

let f: WebhookFixture;
before(async () => {
  f = await webhookFixture('gitlab');
});
after(() => f.close());

const project = { id: 15, name: 'Diaspora', web_url: 'http://example.com/mike/diaspora', path_with_namespace: 'mike/diaspora' };
const user = { id: 1, name: 'Administrator', username: 'root', avatar_url: 'x' };
const SHA = 'da1560886d4f094c3e6c9ef40349f7d38b5d27d7';

async function expectMessage(event: string, payload: unknown, topic: string, content: string, query: Record<string, string> = {}) {
  const res = await f.post('gitlab', payload, { headers: { 'X-Gitlab-Event': event }, query });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.result, 'success', JSON.stringify(res.body));
  const [m] = await f.latest();
  assert.deepEqual([m!.topic, m!.content], [topic, content]);
}

test('push: commits by others, a removed branch, a tag', async () => {
  const push = {
    object_kind: 'push',
    before: '95790bf891e76fee5e1747ab589903a6a1f80f22',
    after: SHA,
    ref: 'refs/heads/master',
    user_name: 'John Smith',
    user_username: 'jsmith',
    project,
    commits: [
      { id: 'b6568db1bc1dcd7f8b4d5a946b0b91f9dacd7327', message: 'Update Catalan translation to e38cb41.\n\nSee https://gitlab.com/gitlab-org/gitlab for more information', url: 'http://example.com/mike/diaspora/commit/b6568db1bc1dcd7f8b4d5a946b0b91f9dacd7327', author: { name: 'Jordi Mallach', email: 'jordi@softcatala.org' } },
      { id: SHA, message: 'fixed readme', url: `http://example.com/mike/diaspora/commit/${SHA}`, author: { name: 'GitLab dev user', email: 'gitlabdev@dv6700.(none)' } },
    ],
    total_commits_count: 2,
  };
  await expectMessage(
    'Push Hook',
    push,
    'Diaspora / master',
    `John Smith [pushed](http://example.com/mike/diaspora/-/compare/95790bf891e76fee5e1747ab589903a6a1f80f22...${SHA}) 2 commits to branch master. Commits by GitLab dev user (1) and Jordi Mallach (1).\n\n* Update Catalan translation to e38cb41. ([b6568db1bc1](http://example.com/mike/diaspora/commit/b6568db1bc1dcd7f8b4d5a946b0b91f9dacd7327))\n* fixed readme ([da1560886d4](http://example.com/mike/diaspora/commit/${SHA}))`,
  );
  await expectMessage('Push Hook', { ...push, ref: 'refs/heads/old', after: '0000000000000000000000000000000000000000', commits: [] }, 'Diaspora / old', 'John Smith deleted branch old.');
  await expectMessage('Tag Push Hook', { object_kind: 'tag_push', ref: 'refs/tags/v1.0.0', checkout_sha: SHA, user_name: 'John Smith', project }, 'Diaspora', 'John Smith pushed tag v1.0.0.');
  const before = (await f.latest())[0]!.id;
  await f.post('gitlab', push, { headers: { 'X-Gitlab-Event': 'Push Hook' }, query: { branches: 'develop' } });
  assert.equal((await f.latest())[0]!.id, before, 'other branches are filtered out');
});

test('issues: opened with a description and assignee, closed; with a custom topic', async () => {
  const issue = {
    object_kind: 'issue',
    user,
    project,
    object_attributes: { id: 301, iid: 23, title: 'New API: create/update/delete file', description: 'Create new API for manipulations with repository<!-- hidden -->\n', url: 'http://example.com/diaspora/issues/23', action: 'open', state: 'opened' },
    assignees: [{ name: 'User1', username: 'user1' }],
  };
  await expectMessage(
    'Issue Hook',
    issue,
    'Diaspora / issue #23 New API: create/update/delete file',
    'Administrator created [issue #23](http://example.com/diaspora/issues/23) (assigned to User1):\n\n~~~ quote\nCreate new API for manipulations with repository\n~~~',
  );
  await expectMessage(
    'Issue Hook',
    { ...issue, object_attributes: { ...issue.object_attributes, action: 'close' } },
    'Diaspora / issue #23 New API: create/update/delete file',
    'Administrator closed [issue #23](http://example.com/diaspora/issues/23).',
  );
  await expectMessage(
    'Issue Hook',
    { ...issue, object_attributes: { ...issue.object_attributes, action: 'reopen' } },
    'team',
    '[[Diaspora](http://example.com/mike/diaspora)] Administrator reopened [issue #23 New API: create/update/delete file](http://example.com/diaspora/issues/23).',
    { topic: 'team' },
  );
});

test('merge requests: opened, merged, approval; notes on an MR and a commit', async () => {
  const mr = {
    object_kind: 'merge_request',
    user,
    project,
    object_attributes: { id: 99, iid: 1, title: 'MS-Viewport', description: 'Adds a viewport', source_branch: 'ms-viewport', target_branch: 'master', url: 'http://example.com/diaspora/merge_requests/1', action: 'open', state: 'opened' },
  };
  await expectMessage('Merge Request Hook', mr, 'Diaspora / MR #1 MS-Viewport', 'Administrator created [MR #1](http://example.com/diaspora/merge_requests/1) from `ms-viewport` to `master`:\n\n~~~ quote\nAdds a viewport\n~~~');
  await expectMessage('Merge Request Hook', { ...mr, object_attributes: { ...mr.object_attributes, action: 'merge' } }, 'Diaspora / MR #1 MS-Viewport', 'Administrator merged [MR #1](http://example.com/diaspora/merge_requests/1) from `ms-viewport` to `master`.');
  await expectMessage('Merge Request Hook', { ...mr, object_attributes: { ...mr.object_attributes, action: 'approval' } }, 'Diaspora / MR #1 MS-Viewport', 'Administrator added their approval for [MR #1](http://example.com/diaspora/merge_requests/1).');
  await expectMessage(
    'Note Hook',
    { object_kind: 'note', user, project, object_attributes: { id: 1244, note: 'This MR needs work.', noteable_type: 'MergeRequest', url: 'http://example.com/diaspora/merge_requests/1#note_1244' }, merge_request: { iid: 1, title: 'MS-Viewport', url: 'http://example.com/diaspora/merge_requests/1' } },
    'Diaspora / MR #1 MS-Viewport',
    'Administrator [commented](http://example.com/diaspora/merge_requests/1#note_1244) on [MR #1](http://example.com/diaspora/merge_requests/1):\n\n~~~ quote\nThis MR needs work.\n~~~',
  );
  await expectMessage(
    'Note Hook',
    { object_kind: 'note', user, project, object_attributes: { id: 1243, note: 'This is a commit comment.', noteable_type: 'Commit', url: `http://example.com/mike/diaspora/commit/${SHA}#note_1243` }, commit: { id: SHA, url: `http://example.com/mike/diaspora/commit/${SHA}` } },
    'Diaspora',
    `Administrator [commented](http://example.com/mike/diaspora/commit/${SHA}#note_1243) on [da1560886d4](http://example.com/mike/diaspora/commit/${SHA}):\n~~~ quote\nThis is a commit comment.\n~~~`,
  );
});

test('pipeline, release; an unknown event is unsupported; a missing header is refused', async () => {
  await expectMessage(
    'Pipeline Hook',
    { object_kind: 'pipeline', object_attributes: { id: 31, ref: 'master', status: 'success' }, user, project, builds: [{ id: 380, name: 'test', status: 'success', artifacts_file: { filename: null } }, { id: 377, name: 'build', status: 'success', artifacts_file: { filename: 'artifacts.zip' } }] },
    'Diaspora / master',
    '[Pipeline (31)](http://example.com/mike/diaspora/-/pipelines/31) changed status to success with build(s):\n* [test](http://example.com/mike/diaspora/-/jobs/380) - success\n* [build](http://example.com/mike/diaspora/-/jobs/377) - success\n  * built artifact: *artifacts.zip* [[Browse](http://example.com/mike/diaspora/-/jobs/377/artifacts/browse)|[Download](http://example.com/mike/diaspora/-/jobs/377/artifacts/download)].',
  );
  await expectMessage(
    'Release Hook',
    { object_kind: 'release', action: 'create', name: 'v1.1', tag: 'v1.1', url: 'http://example.com/mike/diaspora/-/releases/v1.1', description: 'Fixes', project },
    'Diaspora',
    'Release [v1.1](http://example.com/mike/diaspora/-/releases/v1.1) for tag v1.1 was created.\n~~~ quote\nFixes\n~~~',
  );
  const unknown = await f.post('gitlab', { project }, { headers: { 'X-Gitlab-Event': 'Emoji Hook' } });
  assert.deepEqual([unknown.status, unknown.body.code, unknown.body.msg], [200, 'UNSUPPORTED_WEBHOOK_EVENT_TYPE', "The 'Emoji Hook' event isn't currently supported by the GitLab webhook; ignoring"]);
  const noHeader = await f.post('gitlab', { project });
  assert.deepEqual([noHeader.status, noHeader.body.code], [400, 'MISSING_HTTP_EVENT_HEADER']);
});

test('a comment on a design, and an access token about to expire', async () => {
  await expectMessage(
    'Note Hook',
    { object_kind: 'note', user, project, repository: { name: 'Diaspora', homepage: 'http://example.com/mike/diaspora' }, object_attributes: { id: 2001, note: 'Nice mockup', noteable_type: 'DesignManagement::Design', position: { new_path: 'designs/issue-3/login.png' } } },
    'Diaspora / design login.png',
    'Administrator [commented](http://example.com/mike/diaspora/-/issues/3/designs/login.png#note_2001) on design [login.png](http://example.com/mike/diaspora/-/issues/3/designs/login.png):\n\n~~~ quote\nNice mockup\n~~~',
  );
  await expectMessage(
    'Resource Access Token Hook',
    { object_kind: 'access_token', project, object_attributes: { name: 'deploy-token', expires_at: '2026-03-04' } },
    'Diaspora',
    'The access token [deploy-token](http://example.com/mike/diaspora/-/settings/access_tokens) will expire on Mar 04, 2026.',
  );
});
