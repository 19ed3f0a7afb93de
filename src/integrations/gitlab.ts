// GitLab: the X-Gitlab-Event header ("Push Hook", "Merge Request Hook", …) refined by the
// payload's action or noteable type; System Hooks name their event in the payload.
import { eventHeader, MalformedPayload, UnsupportedEvent, Wild, type Integration, type WebhookRequest } from './core.js';
import {
  branchNotifiable,
  commitCommentMessage,
  CONTENT_QUOTE,
  EMPTY_SHA,
  issueMessage,
  pullRequestMessage,
  pushCommitsMessage,
  pushTagMessage,
  removeBranchMessage,
  topicWithPrOrIssue,
} from './git.js';

type Body = (p: Wild, includeTitle: boolean) => string;

const repoName = (p: Wild) => (p.has('project') ? p.at('project').s('name') : p.at('repository').s('name'));
const homepage = (p: Wild) => (p.has('project') ? p.at('project').s('web_url') : p.at('repository').s('homepage'));
const userName = (p: Wild) => p.s('user_name');
const issueUser = (p: Wild) => p.at('user').s('name');
const branchOf = (ref: string) => ref.replace('refs/heads/', '');
const attrs = (p: Wild) => p.at('object_attributes');

function assignees(p: Wild): string[] {
  const many = p.opt('assignees');
  if (many?.truthy) return many.list().map((a) => a.s('name'));
  const one = p.opt('assignee');
  return one?.truthy ? [one.s('name')] : [];
}

const push: Body = (p) => {
  const after = p.opt('after');
  if (after?.truthy && after.str() === EMPTY_SHA) return removeBranchMessage(userName(p), branchOf(p.s('ref')));
  const commits = p.at('commits').list().map((c) => ({ name: c.at('author').s('name'), sha: c.s('id'), message: c.s('message'), url: c.s('url') }));
  return pushCommitsMessage({ userName: userName(p), compareUrl: `${homepage(p)}/-/compare/${p.s('before')}...${p.s('after')}`, branch: branchOf(p.s('ref')), commits });
};

const issueCreated: Body = (p, t) => {
  const a = attrs(p);
  const raw = a.opt('description');
  // Hidden HTML comments (issue templates) are not part of the description people read.
  const description = raw?.truthy ? raw.str().replace(/<!--[\s\S]*?-->/g, '').trimEnd() : undefined;
  return issueMessage({ userName: issueUser(p), action: 'created', url: a.s('url'), number: a.i('iid'), message: description, assignees: assignees(p), title: t ? a.s('title') : undefined });
};

const issueEvent =
  (action: string): Body =>
  (p, t) => {
    const a = attrs(p);
    return issueMessage({ userName: issueUser(p), action, url: a.s('url'), number: a.i('iid'), title: t ? a.s('title') : undefined });
  };

const mrEvent =
  (action: string): Body =>
  (p, t) => {
    const a = attrs(p);
    const merged = action === 'merged';
    return pullRequestMessage({
      userName: issueUser(p),
      action,
      url: a.s('url'),
      number: a.i('iid'),
      targetBranch: merged ? a.s('source_branch') : undefined,
      baseBranch: merged ? a.s('target_branch') : undefined,
      type: 'MR',
      title: t ? a.s('title') : undefined,
    });
  };

const mrOpenedOrUpdated =
  (action: string): Body =>
  (p, t) => {
    const a = attrs(p);
    const created = action === 'created';
    return pullRequestMessage({
      userName: issueUser(p),
      action,
      url: a.s('url'),
      number: a.i('iid'),
      targetBranch: created ? a.s('source_branch') : undefined,
      baseBranch: created ? a.s('target_branch') : undefined,
      message: a.at('description').strOrNull(),
      assignees: assignees(p),
      type: 'MR',
      title: t ? a.s('title') : undefined,
    });
  };

const noteOn = (p: Wild, url: string, number: number, type: string, title: string | undefined): string =>
  pullRequestMessage({ userName: issueUser(p), action: `[commented](${attrs(p).s('url')}) on`, url, number, message: attrs(p).s('note'), type, title });

const BODIES: Record<string, Body> = {
  'Push Hook': push,
  'Tag Push Hook': (p) => pushTagMessage(userName(p), p.s('ref').replace('refs/tags/', ''), undefined, p.opt('checkout_sha')?.truthy ? 'pushed' : 'removed'),
  'Test Hook': (p) => `Webhook for **${repoName(p)}** has been configured successfully! :tada:`,
  'Issue Hook open': issueCreated,
  'Issue Hook close': issueEvent('closed'),
  'Issue Hook reopen': issueEvent('reopened'),
  'Issue Hook update': issueEvent('updated'),
  'Confidential Issue Hook open': issueCreated,
  'Confidential Issue Hook close': issueEvent('closed'),
  'Confidential Issue Hook reopen': issueEvent('reopened'),
  'Confidential Issue Hook update': issueEvent('updated'),
  'Note Hook Commit': (p) => commitCommentMessage(issueUser(p), `[commented](${attrs(p).s('url')})`, p.at('commit').s('url'), p.at('commit').s('id'), attrs(p).s('note')),
  'Note Hook MergeRequest': (p, t) => noteOn(p, p.at('merge_request').s('url'), p.at('merge_request').i('iid'), 'MR', t ? p.at('merge_request').s('title') : undefined),
  'Note Hook Issue': (p, t) => noteOn(p, p.at('issue').s('url'), p.at('issue').i('iid'), 'issue', t ? p.at('issue').s('title') : undefined),
  'Confidential Note Hook Issue': (p, t) => noteOn(p, p.at('issue').s('url'), p.at('issue').i('iid'), 'issue', t ? p.at('issue').s('title') : undefined),
  'Note Hook Snippet': (p, t) => {
    const s = p.at('snippet');
    const url = s.has('url') ? s.s('url') : `${p.at('project').s('web_url')}/-/snippets/${s.i('id')}`;
    return noteOn(p, url, s.i('id'), 'snippet', t ? s.s('title') : undefined);
  },
  'Note Hook DesignManagement::Design': designNote,
  'Confidential Note Hook DesignManagement::Design': designNote,
  'Merge Request Hook approved': mrEvent('approved'),
  'Merge Request Hook unapproved': mrEvent('unapproved'),
  'Merge Request Hook approval': mrEvent('approval'),
  'Merge Request Hook unapproval': mrEvent('unapproval'),
  'Merge Request Hook open': mrOpenedOrUpdated('created'),
  'Merge Request Hook update': (p, t) => (attrs(p).opt('oldrev')?.truthy ? mrEvent('added commit(s) to')(p, t) : mrOpenedOrUpdated('updated')(p, t)),
  'Merge Request Hook merge': mrEvent('merged'),
  'Merge Request Hook close': mrEvent('closed'),
  'Merge Request Hook reopen': mrEvent('reopened'),
  'Wiki Page Hook create': (p) => `${issueUser(p)} created [wiki page "${attrs(p).s('title')}"](${attrs(p).s('url')}).`,
  'Wiki Page Hook update': (p) => `${issueUser(p)} updated [wiki page "${attrs(p).s('title')}"](${attrs(p).s('url')}).`,
  'Job Hook': build,
  'Build Hook': build,
  'Pipeline Hook': (p) => {
    const a = attrs(p);
    const status = a.s('status');
    const action = status === 'pending' ? 'was created' : status === 'running' ? 'started' : `changed status to ${status}`;
    const home = homepage(p);
    let builds = '';
    for (const b of p.at('builds').list()) {
      const url = `${home}/-/jobs/${b.i('id')}`;
      const artifact = b.opt('artifacts_file')?.opt('filename');
      const artifactLine = artifact?.truthy ? `  * built artifact: *${artifact.str()}* [[Browse](${url}/artifacts/browse)|[Download](${url}/artifacts/download)]\n` : '';
      builds += `* [${b.s('name')}](${url}) - ${b.s('status')}\n${artifactLine}`;
    }
    return `[Pipeline (${a.i('id')})](${home}/-/pipelines/${a.i('id')}) ${action} with build(s):\n${builds.slice(0, -1)}.`;
  },
  'Release Hook': (p) => {
    const action = p.s('action');
    const name = p.s('name');
    const tag = p.s('tag');
    if (action === 'delete') return `Release ${name} for tag ${tag} was ${action}d.`;
    let body = `Release [${name}](${p.s('url')}) for tag ${tag} was ${action}d.`;
    if (p.has('description')) body += CONTENT_QUOTE(p.s('description'));
    return body;
  },
  'Feature Flag Hook': (p) => {
    const flag = attrs(p);
    return `${p.at('user').s('username')} ${flag.opt('active')?.truthy ? 'activated' : 'deactivated'} the feature flag [${flag.s('name')}](${p.at('project').s('web_url')}/-/feature_flags).`;
  },
  'Resource Access Token Hook': (p) => {
    const token = attrs(p);
    const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(token.s('expires_at'));
    if (!m || Number(m[2]) < 1 || Number(m[2]) > 12) throw new MalformedPayload('payload["object_attributes"]["expires_at"] is not a date');
    const url = p.has('group') ? `https://gitlab.com/groups/${p.at('group').s('group_path')}/-/settings/access_tokens` : `${p.at('project').s('web_url')}/-/settings/access_tokens`;
    return `The access token [${token.s('name')}](${url}) will expire on ${MONTHS[Number(m[2]) - 1]} ${m[3]}, ${m[1]}.`;
  },
  'Deployment Hook': (p) => {
    const user = `[${p.at('user').s('name')}](${p.s('user_url')})`;
    const deployable = p.os('deployable_url');
    const deployment = deployable ? `[deployment](${deployable})` : 'deployment';
    const commitUrl = p.s('commit_url');
    const sha = commitUrl.split('/').pop()!.slice(0, 7);
    const status = p.s('status');
    const bodies: Record<string, string> = {
      running: `${user} started a new ${deployment}:\n> [${sha}](${commitUrl}) ${p.s('commit_title')}`,
      success: `The ${deployment} was successful.`,
      failed: `The ${deployment} failed.`,
      canceled: `The ${deployment} was canceled.`,
    };
    if (!(status in bodies)) throw new UnsupportedEvent('GitLab', `Deployment Hook ${status}`);
    return bodies[status]!;
  },
};

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** Design comments carry no issue: its number is in the design's path ("designs/issue-1/name.png"). */
function designNote(p: Wild): string {
  const comment = attrs(p);
  const parts = comment.at('position').s('new_path').split('/');
  if (parts.length !== 3) throw new MalformedPayload('payload["object_attributes"]["position"]["new_path"] is not a design path');
  const designName = parts[2]!;
  const designUrl = `${p.at('repository').s('homepage')}/-/issues/${parts[1]!.split('-').pop()}/designs/${designName}`;
  return `${issueUser(p)} [commented](${designUrl}#note_${comment.i('id')}) on design [${designName}](${designUrl}):\n${CONTENT_QUOTE(comment.s('note'))}`;
}

function build(p: Wild): string {
  const status = p.s('build_status');
  const action = status === 'created' ? 'was created' : status === 'running' ? 'started' : `changed status to ${status}`;
  return `Build ${p.s('build_name')} from ${p.s('build_stage')} stage ${action}.`;
}

function topicFor(event: string, p: Wild, useMrTitle: boolean): string {
  if (event === 'Push Hook') return `${repoName(p)} / ${branchOf(p.s('ref'))}`;
  if (event === 'Job Hook' || event === 'Build Hook') return `${p.at('repository').s('name')} / ${branchOf(p.s('ref'))}`;
  if (event === 'Pipeline Hook') return `${repoName(p)} / ${branchOf(attrs(p).s('ref'))}`;
  if (event.startsWith('Merge Request Hook')) return topicWithPrOrIssue(repoName(p), 'MR', attrs(p).i('iid'), useMrTitle ? attrs(p).s('title') : '');
  if (event.startsWith('Issue Hook') || event.startsWith('Confidential Issue Hook')) return topicWithPrOrIssue(repoName(p), 'issue', attrs(p).i('iid'), attrs(p).s('title'));
  if (event === 'Note Hook Issue' || event === 'Confidential Note Hook Issue') return topicWithPrOrIssue(repoName(p), 'issue', p.at('issue').i('iid'), p.at('issue').s('title'));
  if (event === 'Note Hook MergeRequest') {
    const mr = p.at('merge_request');
    return topicWithPrOrIssue(repoName(p), 'MR', mr.i('iid'), useMrTitle ? mr.s('title') : '');
  }
  if (event === 'Note Hook Snippet') return topicWithPrOrIssue(repoName(p), 'snippet', p.at('snippet').i('id'), p.at('snippet').s('title'));
  if (event.endsWith('Note Hook DesignManagement::Design')) return `${repoName(p)} / design ${attrs(p).at('position').s('new_path').split('/').pop()}`;
  if (event === 'Resource Access Token Hook' && p.opt('group')?.truthy) return p.at('group').s('group_name');
  if (event === 'Deployment Hook') return `${repoName(p)} / ${p.s('environment')}`;
  return repoName(p);
}

function titleCase(s: string): string {
  return s.replace(/[A-Za-z]+/g, (w) => w[0]!.toUpperCase() + w.slice(1).toLowerCase());
}

export const gitlab: Integration = {
  name: 'gitlab',
  displayName: 'GitLab',
  handle(req: WebhookRequest) {
    const p = new Wild(req.body);
    let event = eventHeader(req, 'X-Gitlab-Event');
    if (event === 'System Hook') {
      const name = p.has('event_name') ? p.s('event_name') : p.s('object_kind');
      event = `${titleCase(name.split('__')[0]!.replace(/_/g, ' '))} Hook`;
    }
    if (['Confidential Issue Hook', 'Issue Hook', 'Merge Request Hook', 'Wiki Page Hook'].includes(event)) {
      event = `${event} ${attrs(p).opt('action')?.str() ?? 'open'}`;
    } else if (event === 'Confidential Note Hook' || event === 'Note Hook') {
      event = `${event} ${attrs(p).s('noteable_type')}`;
    } else if (event === 'Push Hook' && !branchNotifiable(branchOf(p.s('ref')), req.query.branches)) {
      return [];
    }
    const body = BODIES[event];
    if (!body) throw new UnsupportedEvent('GitLab', event);
    let content = body(p, req.userTopic);
    // With a topic of the caller's choosing, the project is named in the message itself.
    if (req.userTopic) content = `[[${repoName(p)}](${homepage(p)})] ${content}`;
    return [{ topic: topicFor(event, p, req.query.use_merge_request_title !== 'false'), content, eventType: event }];
  },
};
