// Gogs, and Gitea and Forgejo (forks of Gogs that send the same events): push, branch creation,
// pull requests, issues and their comments, releases. The header names the event.
import { MissingEventHeader, UnsupportedEvent, Wild, type Integration, type WebhookRequest, type WebhookMessage } from './core.js';
import { createBranchMessage, issueMessage, pullRequestMessage, pushCommitsMessage, releaseMessage, topicWithBranch, topicWithPrOrIssue } from './git.js';

type PrFormatter = (p: Wild, includeTitle: boolean) => string;

const issueUrl = (p: Wild, n: number) => `${p.at('repository').s('html_url')}/issues/${n}`;

function gogsPullRequest(p: Wild, includeTitle: boolean): string {
  const pr = p.at('pull_request');
  const merged = pr.at('merged').bool();
  const action = merged ? 'merged' : p.s('action');
  const edited = action === 'edited';
  return pullRequestMessage({
    userName: merged ? pr.at('merged_by').s('username') : pr.at('user').s('username'),
    action,
    url: pr.s('html_url'),
    number: pr.i('number'),
    targetBranch: edited ? undefined : pr.s('head_branch'),
    baseBranch: edited ? undefined : pr.s('base_branch'),
    title: includeTitle ? pr.s('title') : undefined,
  });
}

function giteaPullRequest(p: Wild, includeTitle: boolean): string {
  const pr = p.at('pull_request');
  const assignee = pr.opt('assignee')?.truthy ? pr.at('assignee').s('login') : undefined;
  const merged = pr.at('merged').bool();
  const action = merged ? 'merged' : p.s('action');
  const edited = action === 'edited';
  return pullRequestMessage({
    userName: merged ? pr.at('merged_by').s('username') : pr.at('user').s('username'),
    action,
    url: pr.s('html_url'),
    number: pr.i('number'),
    targetBranch: !edited && pr.has('head') ? pr.at('head').s('ref') : undefined,
    baseBranch: !edited && pr.has('base') ? pr.at('base').s('ref') : undefined,
    title: includeTitle ? pr.s('title') : undefined,
    assignee,
    assigneeUpdated: action === 'assigned' ? assignee : undefined,
  });
}

function handle(displayName: string, headers: string[], formatPr: PrFormatter, req: WebhookRequest): WebhookMessage[] {
  const p = new Wild(req.body);
  const repo = p.at('repository').s('name');
  const event = headers.map((h) => req.headers[h.toLowerCase()]).find((v) => v);
  if (!event) throw new MissingEventHeader(headers[0]!);
  const t = req.userTopic;
  let topic: string;
  let content: string;
  switch (event) {
    case 'push': {
      const branch = p.s('ref').replace('refs/heads/', '');
      if (req.query.branches !== undefined && !req.query.branches.split(',').includes(branch)) return [];
      const commits = p.at('commits').list().map((c) => {
        const author = c.at('author');
        return { name: author.s('username') || author.s('name').split(/\s+/)[0]!, sha: c.s('id'), url: c.s('url'), message: c.s('message') };
      });
      content = pushCommitsMessage({ userName: p.at('sender').s('username'), compareUrl: p.s('compare_url'), branch, commits });
      topic = topicWithBranch(repo, branch);
      break;
    }
    case 'create': {
      const branch = p.s('ref');
      content = createBranchMessage(p.at('sender').s('username'), `${p.at('repository').s('html_url')}/src/${branch}`, branch);
      topic = topicWithBranch(repo, branch);
      break;
    }
    case 'pull_request':
      content = formatPr(p, t);
      // Zulip names the topic after the pull request's database id, not its number.
      topic = topicWithPrOrIssue(repo, 'PR', p.at('pull_request').i('id'), p.at('pull_request').s('title'));
      break;
    case 'issues': {
      const issue = p.at('issue');
      const n = issue.i('number');
      content = issueMessage({
        userName: p.at('sender').s('login'),
        action: p.s('action'),
        url: issueUrl(p, n),
        number: n,
        message: issue.s('body'),
        assignee: issue.opt('assignee')?.truthy ? issue.at('assignee').s('login') : undefined,
        title: t ? issue.s('title') : undefined,
      });
      topic = topicWithPrOrIssue(repo, 'issue', n, issue.s('title'));
      break;
    }
    case 'issue_comment': {
      const issue = p.at('issue');
      const comment = p.at('comment');
      const n = issue.i('number');
      const a = p.s('action');
      const action = `${a === 'created' ? '[commented]' : `${a} a [comment]`}(${comment.s('html_url')}) on`;
      content = issueMessage({ userName: p.at('sender').s('login'), action, url: issueUrl(p, n), number: n, message: comment.s('body'), title: t ? issue.s('title') : undefined });
      topic = topicWithPrOrIssue(repo, 'issue', n, issue.s('title'));
      break;
    }
    case 'release': {
      const r = p.at('release');
      content = releaseMessage(r.at('author').s('username'), p.s('action'), r.s('tag_name'), r.s('name'), p.at('repository').s('html_url'));
      topic = `${repo} / ${r.s('tag_name')} ${r.s('name')}`;
      break;
    }
    default:
      throw new UnsupportedEvent(displayName, event);
  }
  return [{ topic, content, eventType: event }];
}

export const gogs: Integration = { name: 'gogs', displayName: 'Gogs', handle: (req) => handle('Gogs', ['X-Gogs-Event'], gogsPullRequest, req) };
export const gitea: Integration = { name: 'gitea', displayName: 'Gitea', handle: (req) => handle('Gitea', ['X-Gitea-Event'], giteaPullRequest, req) };
/** Forgejo sends X-Forgejo-Event, and X-Gitea-Event too for Gitea's integrations. */
export const forgejo: Integration = { name: 'forgejo', displayName: 'Forgejo', handle: (req) => handle('Forgejo', ['X-Forgejo-Event', 'X-Gitea-Event'], giteaPullRequest, req) };
