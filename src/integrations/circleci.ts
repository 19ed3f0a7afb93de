// CircleCI: webhooks (`workflow-completed`, `job-completed`, `ping`), and the build notifications
// of CircleCI's older format (a `payload` object).
import { MalformedPayload, UnsupportedEvent, Wild, type Integration } from './core.js';
import { shortSha } from './git.js';

const STATUS: Record<string, string> = { success: 'has succeeded', failed: 'has failed', canceled: 'was canceled' };

function commitRange(p: Wild): string {
  const commits = p.at('all_commit_details').list();
  if (commits.length === 1) return `- **Commit:** [${commits[0]!.s('commit').slice(0, 10)}](${commits[0]!.s('commit_url')})`;
  const first = commits[0]!.s('commit');
  const last = commits[commits.length - 1]!.s('commit');
  if (p.at('user').s('vcs_type') === 'github') {
    return `- **Commits (${commits.length}):** [${first.slice(0, 10)} ... ${last.slice(0, 10)}](${p.s('vcs_url')}/compare/${first}...${last})`;
  }
  return `- **Commits (${commits.length}):** [${first.slice(0, 10)}](${commits[0]!.s('commit_url')}) ... [${last.slice(0, 10)}](${commits[commits.length - 1]!.s('commit_url')})`;
}

function people(p: Wild): string {
  const authors = new Set<string>();
  const committers = new Set<string>();
  for (const c of p.at('all_commit_details').list()) {
    const login = c.at('author_login').strOrNull();
    authors.add(login !== null ? `${c.s('author_name')} (${login})` : c.s('author_name'));
    if (c.at('committer_email').strOrNull() !== null) {
      const clogin = c.at('committer_login').strOrNull();
      committers.add(clogin !== null ? `${c.s('committer_name')} (${clogin})` : c.s('committer_name'));
    }
  }
  const sort = (s: Set<string>) => [...s].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).join(', ');
  let body = authors.size > 1 ? `- **Authors:** ${sort(authors)}` : `- **Author:** ${sort(authors)}`;
  if (committers.size > 0) body += committers.size > 1 ? `\n- **Committers:** ${sort(committers)}` : `\n- **Committer:** ${sort(committers)}`;
  return body;
}

function classic(p: Wild): { topic: string; content: string; eventType: string } {
  const topic = p.s('reponame');
  if (!p.has('build_num')) {
    const status = p.s('status');
    return { topic, content: `[Build](${p.s('build_url')}) triggered by ${p.s('username')} on branch \`${p.s('branch')}\` ${STATUS[status] ?? status}.`, eventType: status };
  }
  const outcome = p.s('outcome');
  const prs = p.at('pull_requests').list();
  const prInfo = prs.length ? `- **Pull request:** ${prs[0]!.s('url')}` : '';
  const content = `Build [#${p.i('build_num')}](${p.s('build_url')}) of \`${p.at('workflows').s('job_name')}\`/\`${p.at('workflows').s('workflow_name')}\` on branch \`${p.s('branch')}\` ${STATUS[outcome] ?? outcome}.\n${commitRange(p)}\n${prInfo}\n${people(p)}`.trim();
  return { topic, content, eventType: outcome };
}

const V2_STATUS: Record<string, string> = { ...STATUS, unauthorized: 'was unauthorized', error: 'had an error' };

/** What triggered the pipeline: a commit (GitHub, Bitbucket, GitLab), a branch's head, or a tag. */
function commitDetails(p: Wild): string {
  const pipeline = p.at('pipeline');
  let details: string;
  let link: string;
  let author: string;
  let branch: string | null;
  if (pipeline.has('vcs')) {
    const vcs = pipeline.at('vcs');
    const revision = vcs.s('revision');
    const id = shortSha(revision);
    const base = vcs.s('target_repository_url');
    link = vcs.s('provider_name') === 'github' ? `${base}/commit/${revision}` : `${base}/commits/${revision}`;
    branch = vcs.at('branch').strOrNull();
    const subject = vcs.at('commit').at('subject').strOrNull();
    // A pipeline started by hand has no commit subject: it runs a branch's head, or the latest tag.
    if (!subject) return branch ? `Triggered on \`${branch}\`'s HEAD on [${id}](${link}).` : `Triggered on the latest tag on [${id}](${link}).`;
    details = `${id}: ${subject}`;
    author = vcs.at('commit').at('author').s('name');
  } else {
    const gitlab = pipeline.at('trigger_parameters').at('gitlab');
    const sha = gitlab.s('checkout_sha');
    details = `${shortSha(sha)}: ${gitlab.s('commit_title')}`;
    author = gitlab.s('commit_author_name');
    link = `${gitlab.s('web_url')}/-/commit/${sha}`;
    branch = gitlab.s('branch');
  }
  return `Triggered on [\`${details}\`](${link}) on branch \`${branch ?? 'None'}\` by ${author}.`;
}

/** Webhooks v2: workflow-completed and job-completed, as Zulip's current integration writes them. */
function v2(p: Wild, type: string): { topic: string; content: string; eventType: string } {
  const pipeline = p.at('pipeline');
  const trigger = pipeline.opt('trigger')?.opt('type')?.value;
  if (pipeline.has('trigger_parameters') && trigger !== 'gitlab') throw new MalformedPayload("Projects using this version control system provider aren't supported");
  const number = pipeline.i('number');
  const details = commitDetails(p);
  if (type === 'job-completed') {
    const job = p.at('job');
    return { topic: p.at('project').s('name'), content: `Job \`${job.s('name')}\` within Pipeline #${number} ${V2_STATUS[job.s('status')] ?? 'None'}.\n\n${details}`, eventType: type };
  }
  const w = p.at('workflow');
  return { topic: p.at('project').s('name'), content: `Workflow [\`${w.s('name')}\`](${w.s('url')}) within Pipeline #${number} ${V2_STATUS[w.s('status')] ?? 'None'}.\n\n${details}`, eventType: type };
}

export const circleci: Integration = {
  name: 'circleci',
  displayName: 'CircleCI',
  handle(req) {
    const p = new Wild(req.body);
    if (p.has('payload')) return [classic(p.at('payload'))];
    const type = p.s('type');
    if (type === 'workflow-completed' || type === 'job-completed') return [v2(p, type)];
    if (type === 'ping') return [{ topic: 'Test event', content: `Webhook '${p.at('webhook').s('name')}' test event successful.`, eventType: type }];
    throw new UnsupportedEvent('CircleCI', type);
  },
};
