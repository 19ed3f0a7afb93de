// GitHub: the event is the X-GitHub-Event header, refined by the payload's action. Topics are
// "repo / branch" for pushes and "repo / PR #1 title" (or "issue") for PRs and issues.
import { eventHeader, MalformedPayload, UnsupportedEvent, Wild, type Integration, type WebhookMessage, type WebhookRequest } from './core.js';
import {
  branchNotifiable,
  commitCommentMessage,
  CONTENT_QUOTE,
  issueLabeledMessage,
  issueMessage,
  issueMilestonedMessage,
  pullRequestMessage,
  pushCommitsMessage,
  pushTagMessage,
  releaseMessage,
  setupMessage,
  shortSha,
  topicWithBranch,
  topicWithPrOrIssue,
} from './git.js';

type Body = (p: Wild, includeTitle: boolean) => string;

/** Per payload: the one user whose GitHub account is the sender's, named with a silent mention as Zulip does. */
const matchedSenders = new WeakMap<Wild, string>();
const sender = (p: Wild) => {
  const name = matchedSenders.get(p);
  return name !== undefined ? `@_**${name}**` : p.at('sender').s('login');
};
const senderUrl = (p: Wild) => p.at('sender').s('html_url');
const repoName = (p: Wild) => p.at('repository').s('name');
const repoFullName = (p: Wild) => p.at('repository').s('full_name');
const branchOf = (ref: string) => ref.replace(/^refs\/heads\//, '');
const tagOf = (ref: string) => ref.replace(/^refs\/tags\//, '');
const isPrComment = (p: Wild) => p.at('issue').has('pull_request');

function commentAction(p: Wild): string {
  const action = p.s('action');
  const base = action === 'created' ? '[commented]' : `${action} a [comment]`;
  return `${base}(${p.at('comment').s('html_url')}) on`;
}

const BODIES: Record<string, Body> = {
  opened_pull_request: prOpenedOrUpdated,
  updated_pull_request: prOpenedOrUpdated,
  assigned_or_unassigned_pull_request: (p, t) => {
    const pr = p.at('pull_request');
    return pullRequestMessage({
      userName: sender(p),
      action: p.s('action'),
      url: pr.s('html_url'),
      number: pr.i('number'),
      title: t ? pr.s('title') : undefined,
      assigneeUpdated: p.at('assignee').s('login'),
    });
  },
  closed_pull_request: (p, t) => {
    const pr = p.at('pull_request');
    return pullRequestMessage({
      userName: sender(p),
      action: pr.at('merged').bool() ? 'merged' : 'closed without merge',
      url: pr.s('html_url'),
      number: pr.i('number'),
      title: t ? pr.s('title') : undefined,
    });
  },
  pull_request_review_requested: (p, t) => {
    const pr = p.at('pull_request');
    let reviewers: string;
    if (p.has('requested_reviewer')) {
      const r = p.at('requested_reviewer');
      reviewers = `[${r.s('login')}](${r.s('html_url')})`;
    } else {
      const team = p.at('requested_team');
      reviewers = `[${team.s('name')}](${team.s('html_url')})`;
    }
    const what = t ? `PR #${pr.i('number')} ${pr.s('title')}` : `PR #${pr.i('number')}`;
    return `**${sender(p)}** requested ${reviewers} for a review on [${what}](${pr.s('html_url')}).`;
  },
  pull_request_ready_for_review: (p) => {
    const pr = p.at('pull_request');
    return `**${sender(p)}** has marked [PR #${pr.i('number')}](${pr.s('html_url')}) as ready for review.`;
  },
  locked_or_unlocked_pull_request: (p) => {
    const pr = p.at('pull_request');
    if (p.s('action') === 'unlocked') return `${sender(p)} has unlocked [PR #${pr.i('number')}](${pr.s('html_url')}).`;
    const reason = pr.opt('active_lock_reason')?.str() || 'None';
    return `${sender(p)} has locked [PR #${pr.i('number')}](${pr.s('html_url')}) as ${reason} and limited conversation to collaborators.`;
  },
  pull_request_auto_merge: (p) => {
    const pr = p.at('pull_request');
    const verb = p.s('action') === 'auto_merge_disabled' ? 'disabled' : 'enabled';
    return `${sender(p)} has ${verb} auto merge for [PR #${pr.i('number')}](${pr.s('html_url')}).`;
  },
  pull_request_review: (p, t) => {
    const pr = p.at('pull_request');
    return pullRequestMessage({
      userName: sender(p),
      action: 'submitted',
      url: p.at('review').s('html_url'),
      type: 'PR review',
      title: t ? `for #${pr.i('number')} ${pr.s('title')}` : undefined,
      message: p.at('review').at('body').strOrNull(),
    });
  },
  pull_request_review_comment: (p, t) => {
    const pr = p.at('pull_request');
    const action = p.s('action');
    return pullRequestMessage({
      userName: sender(p),
      action,
      url: p.at('comment').s('html_url'),
      message: action === 'created' ? p.at('comment').s('body') : undefined,
      type: 'PR review comment',
      title: t ? `on #${pr.i('number')} ${pr.s('title')}` : undefined,
    });
  },
  issues: (p, t) => {
    const action = p.s('action');
    const issue = p.at('issue');
    return issueMessage({
      userName: sender(p),
      action,
      url: issue.s('html_url'),
      number: issue.i('number'),
      message: action === 'assigned' || action === 'unassigned' ? undefined : issue.at('body').strOrNull(),
      title: t ? issue.s('title') : undefined,
      assigneeUpdated: p.has('assignee') ? p.at('assignee').s('login') : undefined,
    });
  },
  issue_labeled_or_unlabeled: (p, t) => {
    const issue = p.at('issue');
    return issueLabeledMessage({
      userName: sender(p),
      action: p.s('action') === 'labeled' ? 'added' : 'removed',
      url: issue.s('html_url'),
      number: issue.i('number'),
      label: p.at('label').s('name'),
      userUrl: senderUrl(p),
      title: t ? issue.s('title') : undefined,
    });
  },
  issue_milestoned_or_demilestoned: (p, t) => {
    const issue = p.at('issue');
    return issueMilestonedMessage({
      userName: sender(p),
      action: p.s('action') === 'milestoned' ? 'added' : 'removed',
      url: issue.s('html_url'),
      number: issue.i('number'),
      milestone: p.at('milestone').s('title'),
      milestoneUrl: p.at('milestone').s('html_url'),
      userUrl: senderUrl(p),
      title: t ? issue.s('title') : undefined,
    });
  },
  issues_transferred: (p) => {
    const issue = p.at('issue');
    const changes = p.at('changes');
    const newIssue = changes.at('new_issue');
    return `${sender(p)} transferred [issue #${issue.i('number')} ${issue.s('title')}](${issue.s('html_url')}) to [${changes.at('new_repository').s('full_name')}/#${newIssue.i('number')}](${newIssue.s('html_url')}).`;
  },
  issues_opened_via_transfer: (p) => {
    const issue = p.at('issue');
    const changes = p.at('changes');
    const old = changes.at('old_issue');
    return `[Issue #${issue.i('number')} ${issue.s('title')}](${issue.s('html_url')}) was transferred from [${changes.at('old_repository').s('full_name')}#${old.i('number')}](${old.s('html_url')}).`;
  },
  issue_comment: (p, t) => {
    const issue = p.at('issue');
    return pullRequestMessage({
      userName: sender(p),
      action: commentAction(p),
      url: issue.s('html_url'),
      number: issue.i('number'),
      message: p.at('comment').s('body'),
      title: t ? issue.s('title') : undefined,
      type: isPrComment(p) ? 'PR' : 'issue',
    });
  },
  commit_comment: (p) => {
    const comment = p.at('comment');
    const commentUrl = comment.s('html_url');
    return commitCommentMessage(sender(p), `[commented](${commentUrl})`, commentUrl.split('#')[0]!, comment.s('commit_id'), comment.s('body'));
  },
  push_commits: (p) => {
    const commits = p.at('commits').list().map((c) => {
      const author = c.at('author');
      return { name: author.os('username') ?? author.s('name'), sha: c.s('id'), url: c.s('url'), message: c.s('message') };
    });
    return pushCommitsMessage({
      userName: sender(p),
      compareUrl: p.s('compare'),
      branch: branchOf(p.s('ref')),
      commits,
      deleted: p.at('deleted').bool(),
      forcePush: p.at('forced').bool(),
    });
  },
  push_tags: (p) => pushTagMessage(sender(p), tagOf(p.s('ref')), undefined, p.at('created').bool() ? 'pushed' : 'removed'),
  create: (p) => `${sender(p)} created ${p.s('ref_type')} ${p.s('ref')}.`.trimEnd(),
  delete: (p) => `${sender(p)} deleted ${p.s('ref_type')} ${p.s('ref')}.`.trimEnd(),
  release: (p) => {
    const r = p.at('release');
    const name = r.os('name') ?? r.s('tag_name');
    return releaseMessage(sender(p), p.s('action'), r.s('tag_name'), name, r.s('html_url'));
  },
  fork: (p) => `${sender(p)} forked [${p.at('forkee').s('name')}](${p.at('forkee').s('html_url')}).`,
  watch: (p) => `${sender(p)} starred the repository [${repoFullName(p)}](${p.at('repository').s('html_url')}).`,
  star: (p) =>
    `[${sender(p)}](${senderUrl(p)}) ${p.s('action') === 'created' ? 'starred' : 'unstarred'} the repository [${repoFullName(p)}](${p.at('repository').s('html_url')}).`,
  public: (p) => `${sender(p)} made the repository [${repoFullName(p)}](${p.at('repository').s('html_url')}) public.`,
  repository: (p) => `${sender(p)} ${p.s('action')} the repository [${repoFullName(p)}](${p.at('repository').s('html_url')}).`,
  member: (p) =>
    `${sender(p)} ${p.s('action')} [${p.at('member').s('login')}](${p.at('member').s('html_url')}) to [${repoName(p)}](${p.at('repository').s('html_url')}).`,
  membership: (p) => {
    const action = p.s('action');
    return `${sender(p)} ${action} [${p.at('member').s('login')}](${p.at('member').s('html_url')}) ${action === 'removed' ? 'from' : 'to'} the ${p.at('team').s('name')} team.`;
  },
  team_add: (p) => `The repository [${repoFullName(p)}](${p.at('repository').s('html_url')}) was added to team ${p.at('team').s('name')}.`,
  team: (p) => {
    const changes = p.at('changes');
    if (changes.has('description')) return `**${sender(p)}** changed the team description to:\n\n~~~ quote\n${p.at('team').s('description')}\n~~~`;
    if (changes.has('name')) return `Team \`${changes.at('name').s('from')}\` was renamed to \`${p.at('team').s('name')}\`.`;
    if (changes.has('privacy')) return `Team visibility changed to \`${p.at('team').s('privacy')}\``;
    return `Team has changes to \`${changes.keys().sort().join('/')}\` data.`;
  },
  deployment: (p) => `${sender(p)} created new deployment.`,
  deployment_status: (p) => `Deployment changed status to ${p.at('deployment_status').s('state')}.`,
  status: (p) => {
    const state = p.s('state');
    const target = p.os('target_url');
    const status = target ? `[${state}](${target})` : state;
    return `[${shortSha(p.s('sha'))}](${p.at('commit').s('html_url')}) changed its status to ${status}.`;
  },
  page_build: (p) => {
    const build = p.at('build');
    const status = build.s('status');
    const actions: Record<string, string> = { null: 'has yet to be built', building: 'is being built', errored: 'has failed: {}', built: 'has finished building' };
    let action = actions[status] ?? `is ${status}`;
    const error = build.at('error').opt('message');
    if (error && error.truthy) action = action.replace('{}', CONTENT_QUOTE(error.str()));
    return `GitHub Pages build, triggered by ${build.at('pusher').s('login')}, ${action}.`;
  },
  gollum: (p) => {
    let info = '';
    for (const page of p.at('pages').list()) info += `* ${page.s('action')} [${page.s('title')}](${page.s('html_url')})\n`;
    return `${sender(p)}:\n${info.trimEnd()}`;
  },
  ping: (p) => setupMessage('GitHub', sender(p)),
  check_run: (p) => {
    const run = p.at('check_run');
    const sha = run.s('head_sha');
    return `Check [${run.s('name')}](${run.s('html_url')}) ${run.s('status')} (${run.s('conclusion')}). ([${shortSha(sha)}](${p.at('repository').s('html_url')}/commit/${sha}))`;
  },
  workflow_run: (p) => {
    // Not in Zulip's GitHub integration: a sentence in the style of check_run.
    const run = p.at('workflow_run');
    const conclusion = run.opt('conclusion')?.str();
    const state = p.s('action') === 'completed' && conclusion ? `completed (${conclusion})` : p.s('action');
    return `Workflow [${run.s('name')}](${run.s('html_url')}) run #${run.i('run_number')} on branch ${run.s('head_branch')} ${state}. ([${shortSha(run.s('head_sha'))}](${p.at('repository').s('html_url')}/commit/${run.s('head_sha')}))`;
  },
  // GitHub Sponsors (the githubsponsors URL): the sponsorship event, by its action.
  cancelled: (p) => `${sender(p)} cancelled their ${tier(p)} subscription.`,
  created: (p) => `${sender(p)} subscribed for ${tier(p)}.`,
  edited: (p) => `${sender(p)} changed who can see their sponsorship from ${p.at('changes').at('privacy_level').s('from')} to ${p.at('sponsorship').s('privacy_level')}.`,
  pending_cancellation: (p) => `${sender(p)}'s ${tier(p)} subscription will be cancelled on ${effectiveDate(p)}.`,
  pending_tier_change: (p) => `${sender(p)}'s subscription will change from ${p.at('changes').at('tier').at('from').s('name')} to ${tier(p)} on ${effectiveDate(p)}.`,
  tier_changed: (p) => `${sender(p)} changed their subscription from ${p.at('changes').at('tier').at('from').s('name')} to ${tier(p)}.`,
  discussion: (p) => {
    const d = p.at('discussion');
    return `${sender(p)} created [discussion #${d.i('number')}](${d.s('html_url')}) in ${d.at('category').s('name')}:\n\n~~~ quote\n### ${d.s('title')}\n${d.s('body')}\n~~~`;
  },
  discussion_comment: (p, t) => {
    const d = p.at('discussion');
    return pullRequestMessage({
      userName: sender(p),
      action: commentAction(p),
      url: d.s('html_url'),
      number: d.i('number'),
      message: p.at('comment').s('body'),
      title: t ? d.s('title') : undefined,
      type: 'discussion',
    });
  },
};

const SPONSORS_EVENTS = new Set(['cancelled', 'created', 'edited', 'pending_cancellation', 'pending_tier_change', 'tier_changed']);
const tier = (p: Wild) => p.at('sponsorship').at('tier').s('name');
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** "2021-10-26…" → "October 26, 2021", as Python's strftime("%B %d, %Y") writes it. */
function effectiveDate(p: Wild): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(p.s('effective_date'));
  if (!m || Number(m[2]) < 1 || Number(m[2]) > 12) throw new MalformedPayload('payload["effective_date"] is not a valid date');
  return `${MONTHS[Number(m[2]) - 1]} ${m[3]}, ${m[1]}`;
}

function prOpenedOrUpdated(p: Wild, includeTitle: boolean): string {
  const pr = p.at('pull_request');
  let action = p.s('action');
  if (action === 'synchronize') action = 'updated';
  const changes = p.opt('changes');
  const description = (changes && changes.has('body')) || action === 'opened' ? pr.at('body').strOrNull() : undefined;
  const opened = action === 'opened' || action === 'merged';
  return pullRequestMessage({
    userName: sender(p),
    action,
    url: pr.s('html_url'),
    targetBranch: opened ? pr.at('head').s('label') : undefined,
    baseBranch: opened ? pr.at('base').s('label') : undefined,
    message: description,
    assignee: pr.opt('assignee')?.s('login'),
    number: pr.i('number'),
    title: includeTitle ? pr.s('title') : undefined,
  });
}

const IGNORED_EVENTS = new Set(['check_suite', 'label', 'meta', 'milestone', 'organization', 'project_card', 'repository_vulnerability_alert']);
const IGNORED_PR_ACTIONS = new Set(['approved', 'converted_to_draft', 'labeled', 'review_request_removed', 'unlabeled']);
const IGNORED_TEAM_ACTIONS = new Set(['added_to_repository', 'created', 'deleted', 'removed_from_repository']);

/** Zulip's event name for a header and payload; undefined for an event it knowingly ignores. */
function zulipEvent(header: string, p: Wild, branches: string | undefined): string | undefined {
  const action = () => p.s('action');
  switch (header) {
    case 'pull_request': {
      const a = action();
      if (a === 'opened' || a === 'reopened') return 'opened_pull_request';
      if (a === 'synchronize' || a === 'edited') return 'updated_pull_request';
      if (a === 'assigned' || a === 'unassigned') return 'assigned_or_unassigned_pull_request';
      if (a === 'closed') return 'closed_pull_request';
      if (a === 'review_requested') return 'pull_request_review_requested';
      if (a === 'ready_for_review') return 'pull_request_ready_for_review';
      if (a === 'locked' || a === 'unlocked') return 'locked_or_unlocked_pull_request';
      if (a === 'auto_merge_enabled' || a === 'auto_merge_disabled') return 'pull_request_auto_merge';
      if (IGNORED_PR_ACTIONS.has(a)) return undefined;
      break;
    }
    case 'pull_request_review':
      // GitHub sends a duplicate empty "edited" event after a review is submitted.
      if (action() === 'edited' && (p.opt('changes')?.keys().length ?? 0) === 0) return undefined;
      return 'pull_request_review';
    case 'push': {
      const ref = p.s('ref');
      if (ref.startsWith('refs/heads/gh-readonly-queue/')) return undefined;
      if (!ref.startsWith('refs/heads/')) return 'push_tags';
      return branchNotifiable(branchOf(ref), branches) ? 'push_commits' : undefined;
    }
    case 'check_run':
      return p.at('check_run').s('status') === 'completed' ? 'check_run' : undefined;
    case 'workflow_run':
      // Only the start and the end of a run are worth a message.
      return action() === 'requested' || action() === 'completed' ? 'workflow_run' : undefined;
    case 'team': {
      const a = action();
      if (a === 'edited') return 'team';
      if (IGNORED_TEAM_ACTIONS.has(a)) return undefined;
      throw new UnsupportedEvent('GitHub', `unsupported team action ${a}`);
    }
    case 'sponsorship':
      if (SPONSORS_EVENTS.has(action())) return action();
      break;
    case 'issues': {
      const a = action();
      if (a === 'labeled' || a === 'unlabeled') return 'issue_labeled_or_unlabeled';
      if (a === 'milestoned' || a === 'demilestoned') return 'issue_milestoned_or_demilestoned';
      if (a === 'transferred') return 'issues_transferred';
      if (a === 'opened' && p.opt('changes')?.opt('old_issue')) return 'issues_opened_via_transfer';
      return 'issues';
    }
    default:
      if (header in BODIES && !['opened_pull_request', 'push_commits', 'push_tags'].includes(header) && !SPONSORS_EVENTS.has(header)) return header;
      if (IGNORED_EVENTS.has(header)) return undefined;
  }
  const a = p.opt('action');
  throw new UnsupportedEvent('GitHub', `${header}:${a ? a.str() : '???'}`);
}

function topicFor(p: Wild, event: string): string {
  if (event.includes('pull_request')) {
    const pr = p.at('pull_request');
    return topicWithPrOrIssue(repoName(p), 'PR', pr.i('number'), pr.s('title'));
  }
  if (event.startsWith('issue')) {
    const issue = p.at('issue');
    return topicWithPrOrIssue(repoName(p), isPrComment(p) ? 'PR' : 'issue', issue.i('number'), issue.s('title'));
  }
  if (event.startsWith('deployment')) return `${repoName(p)} / Deployment on ${p.at('deployment').s('environment')}`;
  if (event === 'membership') return `${p.at('organization').s('login')} organization`;
  if (event === 'team') return `team ${p.at('team').s('name')}`;
  if (event === 'push_commits') return topicWithBranch(repoName(p), branchOf(p.s('ref')));
  if (event === 'gollum') return topicWithBranch(repoName(p), 'wiki pages');
  if (event === 'ping' && !p.opt('repository')) return p.at('organization').s('login');
  if (event === 'check_run') return `${repoName(p)} / checks`;
  if (event === 'workflow_run') return `${repoName(p)} / workflows`;
  if (SPONSORS_EVENTS.has(event)) return 'sponsors';
  if (event.startsWith('discussion')) {
    const d = p.at('discussion');
    return `${repoName(p)} discussion #${d.i('number')}: ${d.s('title')}`;
  }
  return repoName(p);
}

export const github: Integration = {
  name: 'github',
  displayName: 'GitHub',
  externalAccount(req) {
    const login = new Wild(req.body).opt('sender')?.opt('login')?.value;
    return typeof login === 'string' ? { subtype: 'github', username: login } : undefined;
  },
  handle(req: WebhookRequest): WebhookMessage[] {
    const header = eventHeader(req, 'X-GitHub-Event');
    const p = new Wild(req.body);
    p.at('sender').s('login'); // Zulip reads the sender first: a payload without one is not from GitHub.
    if (req.externalUsers.length === 1) matchedSenders.set(p, req.externalUsers[0]!);
    return handleEvent(req, p, header);
  },
};

function handleEvent(req: WebhookRequest, p: Wild, header: string): WebhookMessage[] {
  const repo = p.opt('repository');
  if (repo?.opt('private')?.value === true && req.query.ignore_private_repositories === 'true') return [];
  // An edited comment whose text did not change (GitHub sends these) is not news.
  if (header.includes('comment') && !header.includes('discussion') && p.opt('action')?.value === 'edited') {
    const from = p.opt('changes')?.opt('body')?.opt('from')?.value;
    if (from !== undefined && from === p.opt('comment')?.opt('body')?.value) return [];
  }
  const event = zulipEvent(header, p, req.query.branches);
  if (event === undefined) return [];
  const content = BODIES[event]!(p, req.userTopic);
  return [{ topic: topicFor(p, event), content, eventType: event }];
}
