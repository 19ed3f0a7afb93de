// Jira: issue created, updated (comments, transitions, field changes from the changelog), deleted,
// and comment events. Jira markup becomes Markdown; people are named as their Zulip accounts
// when they can be found.
import { AnomalousPayload, PUNCTUATION, UnsupportedEvent, Wild, type Integration, type WebhookRequest } from './core.js';

type Users = WebhookRequest['users'];

const IGNORED = new Set(['attachment_created', 'issuelink_created', 'issuelink_deleted', 'jira:version_released', 'jira:worklog_updated', 'sprint_closed', 'sprint_started', 'worklog_created', 'worklog_updated']);

/** A string at a path, or the default when any step is missing (Zulip's get_in). */
function getIn(p: Wild, keys: string[], fallback = ''): string {
  let w: Wild | undefined = p;
  for (const k of keys) {
    if (!w || !w.has(k)) return fallback;
    w = w.at(k);
  }
  return w.value === null || w.value === undefined ? fallback : w.str();
}

function guessUser(name: string, users: Users): string | undefined {
  const lower = name.toLowerCase();
  return users.find((u) => u.full_name.toLowerCase() === lower || u.email.toLowerCase().startsWith(lower))?.full_name;
}

export function convertJiraMarkup(content: string, users: Users): string {
  content = content.replace(/\*([^*]+)\*/g, '**$1**');
  content = content.replace(/{{([^*]+?)}}/g, '`$1`');
  content = content.replace(/bq\. (.*)/g, '> $1');
  content = content.replace(/{quote}([\s\S]*?){quote}/g, '~~~ quote\n$1\n~~~');
  content = content.replace(/{noformat}([\s\S]*?){noformat}/g, '~~~\n$1\n~~~');
  content = content.replace(/{code[^\n]*}([\s\S]*?){code}/g, '~~~\n$1\n~~~');
  content = content.replace(/\[([^|~]+?)\]/g, '[$1]($1)');
  content = content.replace(/\[(?:([^|~]+)\|)([^\]]*)\]/g, '[$1]($2)');
  for (const m of [...content.matchAll(/\[~(.*?)\]/g)]) {
    const username = m[1]!;
    content = content.split(`[~${username}]`).join(`**${guessUser(username, users) ?? username}**`);
  }
  return content;
}

function issueId(p: Wild): string {
  // Some old Jira versions send comment events without the issue: its id is in the comment's URL.
  if (!p.has('issue')) return p.at('comment').s('self').split('/').slice(-3)[0]!;
  return getIn(p, ['issue', 'key']);
}

function issueTitle(p: Wild): string {
  if (!p.has('issue')) return 'Upgrade Jira to get the issue title here.';
  return getIn(p, ['issue', 'fields', 'summary']);
}

function issueString(p: Wild, id?: string, withTitle = false): string {
  const key = id ?? issueId(p);
  const text = withTitle ? `${key}: ${issueTitle(p)}` : key;
  // The browse URL is not in the payload; it sits beside the REST URL of the issue.
  const base = /(.*)\/rest\/api\/.*/.exec(getIn(p, ['issue', 'self']));
  return base ? `[${text}](${base[1]}/browse/${key})` : text;
}

const author = (p: Wild) => getIn(p, ['user', 'displayName']);

function assigneeMention(email: string, users: Users): string {
  if (email === '') return '';
  const u = users.find((x) => x.email.toLowerCase() === email.toLowerCase());
  return `**${u ? u.full_name : email}**`;
}

function subEvent(p: Wild): string {
  const sub = p.opt('issue_event_type_name')?.str() ?? '';
  if (sub === '') {
    if (p.opt('comment')?.truthy) return 'issue_commented';
    if (p.opt('transition')?.truthy) return 'issue_transited';
  }
  return sub;
}

function changeInfo(content: string, field: string | null, from: string | null, to: string | null): string {
  content += `* Changed ${field ?? 'None'}`;
  if (from) content += ` from **${from}**`;
  if (to) content += ` to ${to}\n`;
  return content;
}

function updated(p: Wild, users: Users): string {
  const id = getIn(p, ['issue', 'key']);
  const issue = issueString(p, id, true);
  const mention = assigneeMention(getIn(p, ['issue', 'fields', 'assignee', 'emailAddress']), users);
  const blurb = mention ? ` (assigned to ${mention})` : '';
  const sub = subEvent(p);
  if (sub.includes('comment')) {
    const verb = sub === 'issue_commented' ? 'commented on' : sub === 'issue_comment_edited' ? 'edited a comment on' : 'deleted a comment from';
    const who = p.opt('webhookEvent')?.value === 'comment_created' ? p.at('comment').at('author').s('displayName') : author(p);
    const content = `${who} ${verb} ${issue}${blurb}`;
    const comment = getIn(p, ['comment', 'body']);
    return comment ? `${content}:\n\n\`\`\` quote\n${convertJiraMarkup(comment, users)}\n\`\`\`` : `${content}.`;
  }
  let content = `${author(p)} updated ${issue}${blurb}:\n\n`;
  const changelog = p.opt('changelog');
  if (changelog?.truthy) {
    for (const item of changelog.at('items').list()) {
      const field = item.opt('field')?.str() ?? null;
      const to = field === 'assignee' && mention ? mention : `**${item.opt('toString')?.str() ?? 'None'}**`;
      const from = item.opt('fromString')?.str() ?? null;
      content = changeInfo(content, field, from, to);
    }
  } else if (sub === 'issue_transited') {
    content = changeInfo(content, 'status', getIn(p, ['transition', 'from_status']), `**${getIn(p, ['transition', 'to_status'])}**`);
  }
  return content;
}

const normalizeComment = (c: string) => c.replaceAll('\\!', '!');

const HANDLERS: Record<string, (p: Wild, users: Users) => string> = {
  'jira:issue_created': (p) =>
    `${author(p)} created ${issueString(p, undefined, true)}:\n\n* **Priority**: ${getIn(p, ['issue', 'fields', 'priority', 'name'])}\n* **Assignee**: ${getIn(p, ['issue', 'fields', 'assignee', 'displayName'], 'no one')}`,
  'jira:issue_deleted': (p) => {
    const title = issueTitle(p);
    return `${author(p)} deleted ${issueString(p, undefined, true)}${PUNCTUATION.includes(title[title.length - 1] ?? '') ? '' : '.'}`;
  },
  'jira:issue_updated': updated,
  comment_created: (p) => `${p.at('comment').at('author').s('displayName')} commented on issue: *"${issueTitle(p)}"*\n\`\`\` quote\n${normalizeComment(p.at('comment').s('body'))}\n\`\`\`\n`,
  comment_updated: (p) => `${p.at('comment').at('author').s('displayName')} updated their comment on issue: *"${issueTitle(p)}"*\n\`\`\` quote\n${normalizeComment(p.at('comment').s('body'))}\n\`\`\`\n`,
  comment_deleted: (p) => `${p.at('comment').at('author').s('displayName')} deleted their comment on issue: *"${issueTitle(p)}"*\n\`\`\` quote\n~~${normalizeComment(p.at('comment').s('body'))}~~\n\`\`\`\n`,
};

export const jira: Integration = {
  name: 'jira',
  displayName: 'Jira',
  unquoteParams: true,
  handle(req) {
    const p = new Wild(req.body);
    let event = p.opt('webhookEvent')?.str();
    if (event === undefined && p.opt('transition')?.truthy) event = 'jira:issue_updated';
    if (event !== undefined && IGNORED.has(event)) return [];
    if (event === undefined) throw new AnomalousPayload('Jira');
    const handler = HANDLERS[event];
    if (!handler) throw new UnsupportedEvent('Jira', event);
    return [{ topic: `${issueId(p)}: ${issueTitle(p)}`, content: handler(p, req.users), eventType: event }];
  },
};
