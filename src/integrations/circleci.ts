// CircleCI: build notifications (the `payload` object of CircleCI's classic webhooks), and the
// newer `workflow-completed` / `job-completed` webhooks.
import { UnsupportedEvent, Wild, type Integration } from './core.js';

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

/** Webhooks v2 (not in Zulip's integration): a sentence in the classic style. */
function v2(p: Wild, type: string): { topic: string; content: string; eventType: string } {
  const project = p.at('project');
  const pipeline = p.at('pipeline');
  const branch = pipeline.opt('vcs')?.opt('branch')?.str();
  const on = branch ? ` on branch \`${branch}\`` : '';
  if (type === 'workflow-completed') {
    const w = p.at('workflow');
    const status = w.s('status');
    return { topic: project.s('name'), content: `Workflow [\`${w.s('name')}\`](${w.s('url')}) of pipeline #${pipeline.i('number')}${on} ${STATUS[status] ?? status}.`, eventType: status };
  }
  const job = p.at('job');
  const w = p.at('workflow');
  const status = job.s('status');
  return { topic: project.s('name'), content: `Job \`${job.s('name')}\` (#${job.i('number')}) of workflow [\`${w.s('name')}\`](${w.s('url')})${on} ${STATUS[status] ?? status}.`, eventType: status };
}

export const circleci: Integration = {
  name: 'circleci',
  displayName: 'CircleCI',
  handle(req) {
    const p = new Wild(req.body);
    if (p.has('payload')) return [classic(p.at('payload'))];
    const type = p.s('type');
    if (type === 'workflow-completed' || type === 'job-completed') return [v2(p, type)];
    if (type === 'ping') return [];
    throw new UnsupportedEvent('CircleCI', type);
  },
};
