// The message texts Zulip's Git integrations (GitHub, GitLab, Gitea, Gogs, Bitbucket) share:
// pushes with their commit lists, pull requests and issues, tags, releases, commit comments.
import { PUNCTUATION } from './core.js';

export const CONTENT_QUOTE = (message: string) => `\n~~~ quote\n${message}\n~~~`;
export const topicWithBranch = (repo: string, branch: string) => `${repo} / ${branch}`;
export const topicWithPrOrIssue = (repo: string, type: string, id: number | string, title: string) => `${repo} / ${type} #${id} ${title}`;

const COMMITS_LIMIT = 20;
const COMMITTERS_LIMIT = 3;
export const EMPTY_SHA = '0000000000000000000000000000000000000000';

export interface CommitData {
  name: string;
  sha: string;
  url: string | undefined;
  message: string;
}

export function shortSha(sha: string): string {
  return sha.slice(0, 11);
}

const endsWithPunctuation = (s: string) => s.length > 0 && PUNCTUATION.includes(s[s.length - 1]!);

function allCommitters(commits: CommitData[]): Array<[string, number]> {
  const counts = new Map<string, number>();
  for (const c of commits) counts.set(c.name, (counts.get(c.name) ?? 0) + 1);
  // By commit count, ties alphabetically (Python sorts by code point).
  let items = [...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  if (items.length > COMMITTERS_LIMIT) {
    const others = items.slice(COMMITTERS_LIMIT).reduce((n, [, c]) => n + c, 0);
    items = [...items.slice(0, COMMITTERS_LIMIT), ['others', others]];
  }
  return items;
}

export function commitsContent(commits: CommitData[], isTruncated = false): string {
  let out = '';
  for (const c of commits.slice(0, COMMITS_LIMIT)) {
    out += `* ${c.message.split('\n')[0]} ([${shortSha(c.sha)}](${c.url ?? 'None'}))\n`;
  }
  if (commits.length > COMMITS_LIMIT) out += `[and ${commits.length - COMMITS_LIMIT} more commit(s)]`;
  else if (isTruncated) out += '[and more commit(s)]';
  return out.trimEnd();
}

export function pushCommitsMessage(o: {
  userName: string;
  compareUrl: string | undefined;
  branch: string;
  commits: CommitData[];
  isTruncated?: boolean;
  deleted?: boolean;
  forcePush?: boolean;
  repositoryName?: string;
  repositoryUrl?: string;
}): string {
  const { userName, compareUrl, branch, commits } = o;
  if (commits.length === 0 && o.deleted) return `${userName} [deleted](${compareUrl ?? 'None'}) the branch ${branch}.`;
  const pushType = o.forcePush ? 'force pushed' : 'pushed';
  if (commits.length === 0) {
    return compareUrl ? `${userName} [${pushType}](${compareUrl}) the branch ${branch}.` : `${userName} ${pushType} the branch ${branch}.`;
  }
  const count = `${commits.length} commit${commits.length > 1 ? 's' : ''}`;
  const pushed = compareUrl ? `[${pushType}](${compareUrl}) ${count}` : `${pushType} ${count}`;
  const base =
    o.repositoryName && o.repositoryUrl
      ? `${userName} ${pushed} to branch ${branch} of [${o.repositoryName}](${o.repositoryUrl}).`
      : `${userName} ${pushed} to branch ${branch}.`;
  const committers = allCommitters(commits);
  const list = commitsContent(commits, o.isTruncated);
  if (committers.length === 1 && committers[0]![0] === userName) return `${base}\n\n${list}`.trimEnd();
  let details = `${committers[0]![0]} (${committers[0]![1]})`;
  for (const [name, n] of committers.slice(1, -1)) details += `, ${name} (${n})`;
  if (committers.length > 1) {
    const [name, n] = committers[committers.length - 1]!;
    details += ` and ${name} (${n})`;
  }
  return `${base} Commits by ${details}.\n\n${list}`.trimEnd();
}

export function forcePushMessage(userName: string, url: string, branch: string, head: string): string {
  return `${userName} [force pushed](${url}) to branch ${branch}. Head is now ${head}.`;
}

export function createBranchMessage(userName: string, url: string | undefined, branch: string): string {
  return url === undefined ? `${userName} created ${branch} branch.` : `${userName} created [${branch}](${url}) branch.`;
}

export function removeBranchMessage(userName: string, branch: string): string {
  return `${userName} deleted branch ${branch}.`;
}

export interface PrMessage {
  userName: string;
  action: string;
  url: string;
  number?: number;
  targetBranch?: string;
  baseBranch?: string;
  message?: string | null;
  assignee?: string;
  assignees?: string[];
  assigneeUpdated?: string;
  reviewer?: string;
  type?: string;
  title?: string;
}

/** Zulip's get_pull_request_event_message, the sentence every PR, MR and issue event uses. */
export function pullRequestMessage(p: PrMessage): string {
  const actions: Record<string, string> = { approval: 'added their approval for', unapproval: 'removed their approval for' };
  const action = actions[p.action] ?? p.action;
  const assigneePart = p.action === 'assigned' ? ` ${p.assigneeUpdated} to` : p.action === 'unassigned' ? ` ${p.assigneeUpdated} from` : '';
  const id = p.number !== undefined ? ` #${p.number}` : '';
  const title = p.title !== undefined ? ` ${p.title}` : '';
  let main = `${p.userName} ${action}${assigneePart} [${p.type ?? 'PR'}${id}${title}](${p.url})`;
  if (p.targetBranch && p.baseBranch) main += ` from \`${p.targetBranch}\` to \`${p.baseBranch}\``;
  const hasAssignees = !!p.assignees && p.assignees.length > 0;
  if (hasAssignees) main += ` (assigned to ${assigneeString(p.assignees!)})`;
  else if (p.assignee) main += ` (assigned to ${p.assignee})`;
  else if (p.reviewer) main += ` (assigned reviewers: ${p.reviewer})`;
  const punctuation = p.message ? ':' : '.';
  if (hasAssignees || p.assignee || (p.targetBranch && p.baseBranch) || p.title === undefined || !endsWithPunctuation(p.title)) main += punctuation;
  if (p.message) main += '\n' + CONTENT_QUOTE(p.message);
  return main.trimEnd();
}

export function assigneeString(names: string[]): string {
  if (names.length === 1) return names[0]!;
  return names.slice(0, -1).join(', ') + ' and ' + names[names.length - 1];
}

export function issueMessage(p: Omit<PrMessage, 'type'>): string {
  return pullRequestMessage({ ...p, type: 'issue' });
}

export function issueLabeledMessage(o: { userName: string; action: 'added' | 'removed'; url: string; number: number; label: string; userUrl: string; title?: string }): string {
  const prep = o.action === 'added' ? 'to' : 'from';
  const issue = o.title !== undefined ? `Issue #${o.number} ${o.title}` : `Issue #${o.number}`;
  return `[${o.userName}](${o.userUrl}) ${o.action} the ${o.label} label ${prep} [${issue}](${o.url}).`;
}

export function issueMilestonedMessage(o: { userName: string; action: 'added' | 'removed'; url: string; number: number; milestone: string; milestoneUrl: string; userUrl: string; title?: string }): string {
  const prep = o.action === 'added' ? 'to' : 'from';
  const issue = o.title !== undefined ? `issue #${o.number} ${o.title}` : `issue #${o.number}`;
  return `[${o.userName}](${o.userUrl}) ${o.action} milestone [${o.milestone}](${o.milestoneUrl}) ${prep} [${issue}](${o.url}).`;
}

export function pushTagMessage(userName: string, tagName: string, tagUrl?: string, action = 'pushed'): string {
  const tag = tagUrl ? `[${tagName}](${tagUrl})` : tagName;
  const message = `${userName} ${action} tag ${tag}`;
  return endsWithPunctuation(tagName) ? message : `${message}.`;
}

export function commitCommentMessage(userName: string, action: string, commitUrl: string, sha: string, message?: string): string {
  let content = `${userName} ${action} on [${shortSha(sha)}](${commitUrl})${message ? ':' : '.'}`;
  if (message) content += CONTENT_QUOTE(message);
  return content;
}

export function releaseMessage(userName: string, action: string, tagName: string, releaseName: string, url: string): string {
  return `${userName} ${action} release [${releaseName}](${url}) for tag ${tagName}.`;
}

export function setupMessage(integration: string, userName?: string): string {
  return `${integration} webhook has been successfully configured${userName ? ` by ${userName}` : ''}.`;
}

/** The `branches` parameter: a comma-separated list of the branches to notify about (all when absent). */
export function branchNotifiable(branch: string, branches: string | undefined): boolean {
  return branches === undefined || branches.split(',').some((b) => b.trim() === branch);
}
