// Bitbucket Cloud (Zulip's "bitbucket2"): the payload's keys say what happened, the X-Event-Key
// header only refines pull request events. One push may carry several changes: one message each.
import { MissingEventHeader, PUNCTUATION, pyStr, UnsupportedEvent, Wild, type Integration, type WebhookMessage, type WebhookRequest } from './core.js';
import {
  commitCommentMessage,
  forcePushMessage,
  issueMessage,
  pullRequestMessage,
  pushCommitsMessage,
  pushTagMessage,
  removeBranchMessage,
  shortSha,
  topicWithBranch,
  topicWithPrOrIssue,
} from './git.js';

const PR_ACTIONS = ['approved', 'unapproved', 'created', 'updated', 'rejected', 'fulfilled', 'comment_created', 'comment_updated', 'comment_deleted'];

/** Since GDPR Bitbucket sends display names or nicknames, not usernames. */
function userInfo(u: Wild): string {
  if (u.has('display_name')) return u.s('display_name');
  if (u.has('nickname')) return u.s('nickname');
  return 'Unknown user';
}
const actor = (p: Wild) => userInfo(p.at('actor'));
const href = (w: Wild) => w.at('links').at('html').s('href');
const repoName = (p: Wild) => p.at('repository').s('name');

function eventType(req: WebhookRequest, p: Wild): string {
  if (p.has('push')) return 'push';
  if (p.has('fork')) return 'fork';
  if (p.has('comment') && p.has('commit')) return 'commit_comment';
  if (p.has('commit_status')) return 'change_commit_status';
  if (p.has('issue')) return p.has('changes') ? 'issue_updated' : p.has('comment') ? 'issue_commented' : 'issue_created';
  const key = req.headers['x-event-key'];
  if (!key) throw new MissingEventHeader('X-Event-Key');
  if (p.has('pullrequest')) {
    const m = /^pullrequest:(.*)$/.exec(key);
    if (m && PR_ACTIONS.includes(m[1]!)) return `pull_request_${m[1]}`;
  } else if (key === 'repo:updated') return key;
  throw new UnsupportedEvent('Bitbucket2', key);
}

const changeRef = (change: Wild) => (change.opt('new')?.truthy ? change.at('new') : change.at('old'));

function pushMessages(p: Wild, branches: string | undefined): WebhookMessage[] {
  const changes = p.at('push').at('changes').list();
  if (changes.length === 0) return [];
  const last = changeRef(changes[changes.length - 1]!);
  const branch = last.s('type') === 'tag' ? undefined : last.s('name');
  // Zulip tests the branch against the list as a substring of the parameter.
  if (branch && branches && !branches.includes(branch)) return [];
  return changes.map((change) => {
    const ref = changeRef(change);
    if (ref.s('type') === 'tag') {
      const isNew = !!change.opt('new')?.truthy;
      return { topic: repoName(p), content: pushTagMessage(actor(p), ref.s('name'), href(ref), isNew ? 'pushed' : 'removed'), eventType: 'push' };
    }
    const topic = topicWithBranch(repoName(p), ref.s('name'));
    if (!change.opt('new')) return { topic, content: removeBranchMessage(actor(p), change.at('old').s('name')), eventType: 'push' };
    const nw = change.at('new');
    if (change.at('forced').bool()) return { topic, content: forcePushMessage(actor(p), href(change), nw.s('name'), nw.at('target').s('hash')), eventType: 'push' };
    const commits = change.at('commits').list().map((c) => ({
      name: c.at('author').has('user') ? userInfo(c.at('author').at('user')) : c.at('author').s('raw').split(/\s+/)[0]!,
      sha: c.s('hash'),
      url: href(c),
      message: c.s('message'),
    }));
    return { topic, content: pushCommitsMessage({ userName: actor(p), compareUrl: href(change), branch: nw.s('name'), commits, isTruncated: change.at('truncated').bool() }), eventType: 'push' };
  });
}

function issueBody(p: Wild, action: string, t: boolean): string {
  const issue = p.at('issue');
  const created = action === 'created';
  return issueMessage({
    userName: actor(p),
    action,
    url: href(issue),
    number: issue.i('id'),
    message: created ? issue.at('content').s('raw') : undefined,
    assignee: created && issue.opt('assignee')?.truthy ? userInfo(issue.at('assignee')) : undefined,
    title: t ? issue.s('title') : undefined,
  });
}

function prAction(p: Wild, action: string, t: boolean): string {
  const pr = p.at('pullrequest');
  const merged = action === 'merged';
  return pullRequestMessage({
    userName: actor(p),
    action,
    url: href(pr),
    number: pr.i('id'),
    targetBranch: merged ? pr.at('source').at('branch').s('name') : undefined,
    baseBranch: merged ? pr.at('destination').at('branch').s('name') : undefined,
    title: t ? pr.s('title') : undefined,
  });
}

function prCreatedOrUpdated(p: Wild, action: string, t: boolean): string {
  const pr = p.at('pullrequest');
  const reviewers = pr.opt('reviewers');
  const created = action === 'created';
  return pullRequestMessage({
    userName: actor(p),
    action,
    url: href(pr),
    number: pr.i('id'),
    targetBranch: created ? pr.at('source').at('branch').s('name') : undefined,
    baseBranch: created ? pr.at('destination').at('branch').s('name') : undefined,
    message: pr.s('description'),
    assignee: reviewers?.truthy ? userInfo(reviewers.list()[0]!) : undefined,
    title: t ? pr.s('title') : undefined,
  });
}

function prComment(p: Wild, action: string, t: boolean): string {
  const pr = p.at('pullrequest');
  return pullRequestMessage({ userName: actor(p), action: `${action} on`, url: href(pr), number: pr.i('id'), message: p.at('comment').at('content').s('raw'), title: t ? pr.s('title') : undefined });
}

function repoUpdated(p: Wild): string {
  let body = '';
  const name = repoName(p);
  for (const change of ['website', 'name', 'links', 'language', 'full_name', 'description']) {
    const c = p.at('changes').at(change);
    const nw = c.at('new');
    const old = c.at('old');
    const label = change === 'full_name' ? 'full name' : change;
    if (!nw.truthy) continue;
    const newText = pyStr(nw.value);
    let message = old.truthy
      ? `${actor(p)} changed the ${label} of the **${name}** repo from **${pyStr(old.value)}** to **${newText}**`
      : `${actor(p)} changed the ${label} of the **${name}** repo to **${newText}**`;
    if (!PUNCTUATION.includes(newText[newText.length - 1] ?? '')) message += '.';
    body += message + '\n';
  }
  return body;
}

const BODIES: Record<string, (p: Wild, t: boolean) => string> = {
  fork: (p) => `${actor(p)} forked the repository into [${p.at('fork').s('full_name')}](${href(p.at('fork'))}).`,
  commit_comment: (p) => {
    const c = p.at('comment');
    return commitCommentMessage(actor(p), `[commented](${href(c)})`, href(c.at('commit')), c.at('commit').s('hash'), c.at('content').s('raw'));
  },
  change_commit_status: (p) => {
    const s = p.at('commit_status');
    const commitId = s.at('links').at('commit').s('href').split('/').pop()!;
    return `[System ${s.s('key')}](${s.s('url')}) changed status of [${shortSha(commitId)}](${href(p.at('repository'))}/commits/${commitId}) to ${s.s('state')}.`;
  },
  issue_updated: (p, t) => issueBody(p, 'updated', t),
  issue_created: (p, t) => issueBody(p, 'created', t),
  issue_commented: (p, t) => issueBody(p, `[commented](${href(p.at('comment'))}) on`, t),
  pull_request_created: (p, t) => prCreatedOrUpdated(p, 'created', t),
  pull_request_updated: (p, t) => prCreatedOrUpdated(p, 'updated', t),
  pull_request_approved: (p, t) => prAction(p, 'approved', t),
  pull_request_unapproved: (p, t) => prAction(p, 'unapproved', t),
  pull_request_fulfilled: (p, t) => prAction(p, 'merged', t),
  pull_request_rejected: (p, t) => prAction(p, 'rejected', t),
  pull_request_comment_created: (p, t) => prComment(p, `[commented](${href(p.at('comment'))})`, t),
  pull_request_comment_updated: (p, t) => prComment(p, `updated a [comment](${href(p.at('comment'))})`, t),
  pull_request_comment_deleted: (p, t) => prComment(p, `deleted a [comment](${href(p.at('comment'))})`, t),
  'repo:updated': repoUpdated,
};

export const bitbucket2: Integration = {
  name: 'bitbucket2',
  displayName: 'Bitbucket2',
  unquoteParams: true,
  handle(req) {
    const p = new Wild(req.body);
    const type = eventType(req, p);
    if (type === 'push') return pushMessages(p, req.query.branches);
    let topic: string;
    if (type.startsWith('pull_request')) topic = topicWithPrOrIssue(repoName(p), 'PR', p.at('pullrequest').i('id'), p.at('pullrequest').s('title'));
    else if (type.startsWith('issue')) topic = topicWithPrOrIssue(repoName(p), 'issue', p.at('issue').i('id'), p.at('issue').s('title'));
    else topic = repoName(p);
    return [{ topic, content: BODIES[type]!(p, req.userTopic), eventType: type }];
  },
};
