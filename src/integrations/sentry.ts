// Sentry: events (exceptions with the frame that raised them, and messages) from an internal
// integration's alert rule or the plain webhook plugin, issue changes, and the deprecated format.
import { globalTime, globalTimeFromSeconds, UnsupportedEvent, Wild, type Integration } from './core.js';

const HIGHLIGHT: Record<string, string> = { go: 'go', java: 'java', javascript: 'javascript', node: 'javascript', python: 'python3', ruby: 'ruby' };

function tracebackLines(lines: Wild | undefined): string {
  if (!lines) return '';
  return lines
    .list()
    .map((l) => (l.str() === '' ? '\n' : `     ${l.str()}\n`))
    .join('');
}

function eventMessage(event: Wild): [string, string] {
  const title = event.s('title');
  const platform = event.s('platform');
  const version = event.opt('version');
  if (platform === 'python' && version && parseInt(String(version.value), 10) < 7 && title !== 'This is an example Python exception') {
    throw new UnsupportedEvent('Sentry', 'Raven SDK');
  }
  const head = (kind: string) => `**${kind}:** [${title}](${event.s('web_url')})\n\`\`\`quote\n**level:** ${event.s('level')}\n**timestamp:** ${globalTime(event.s('datetime'), event.at('datetime').path)}\n`;
  if (event.has('exception')) {
    const filename = event.at('metadata').opt('filename')?.str();
    let stacktrace: Wild | undefined;
    for (const value of event.at('exception').at('values').list().reverse()) {
      if (value.has('stacktrace')) {
        stacktrace = value.at('stacktrace');
        break;
      }
    }
    let body = head('New exception') + `**filename:** ${filename ?? 'None'}\n\`\`\``;
    if (stacktrace?.truthy && filename) {
      const frame = stacktrace.at('frames').list().reverse().find((f) => f.opt('filename')?.value === filename);
      const line = frame?.opt('context_line');
      if (frame && line) {
        body += `\n\nTraceback:\n\`\`\`${HIGHLIGHT[platform] ?? ''}\n${tracebackLines(frame.opt('pre_context'))}---> ${line.str()}\n${tracebackLines(frame.opt('post_context'))}\`\`\``;
      }
    }
    return [title, body];
  }
  if (event.has('logentry')) return [title, head('New message event') + '```'];
  throw new UnsupportedEvent('Sentry', 'unknown-event type');
}

function issueMessage(action: string, issue: Wild, actor: Wild): [string, string] {
  const title = issue.s('title');
  const to = issue.opt('assignedTo');
  const assignee = to?.truthy ? (to.s('type') === 'team' ? `team ${to.s('name')}` : to.s('name')) : 'No one';
  switch (action) {
    case 'created':
      return [title, `**New issue created:** ${title}\n\`\`\`quote\n**level:** ${issue.s('level')}\n**timestamp:** ${globalTime(issue.s('lastSeen'), issue.at('lastSeen').path)}\n**assignee:** ${assignee}\n\`\`\``];
    case 'resolved':
      return [title, `Issue **${title}** was marked as resolved by **${actor.s('name')}**.`];
    case 'assigned':
      return [title, `Issue **${title}** has now been assigned to **${assignee}** by **${actor.s('name')}**.`];
    case 'ignored':
      return [title, `Issue **${title}** was ignored by **${actor.s('name')}**.`];
    default:
      throw new UnsupportedEvent('Sentry', `${action} action`);
  }
}

export const sentry: Integration = {
  name: 'sentry',
  displayName: 'Sentry',
  handle(req) {
    const p = new Wild(req.body);
    let data = p.opt('data');
    if (!data) {
      // The plain webhook plugin: the event sits at the top, without its link or date spelled out.
      const event = p.opt('event');
      const eventId = event?.opt('event_id')?.value;
      if (event && typeof eventId === 'string' && eventId) {
        const raw = { ...(event.value as Record<string, unknown>) };
        raw.web_url = new URL(`events/${eventId}/`, p.s('url')).toString();
        const ts = event.opt('timestamp') ?? event.at('received');
        raw.datetime = globalTimeFromSeconds(ts.num()).slice(6, -1);
        data = new Wild({ event: raw }, 'payload');
      }
    }
    let result: [string, string];
    if (data?.truthy) {
      if (data.has('event')) result = eventMessage(data.at('event'));
      else if (data.has('issue')) result = issueMessage(p.s('action'), data.at('issue'), p.at('actor'));
      else throw new UnsupportedEvent('Sentry', `[${data.keys().map((k) => `'${k}'`).join(', ')}]`);
    } else {
      const message = p.opt('message')?.value;
      result = [String(p.opt('project_name')?.value ?? 'None'), `New [issue](${p.opt('url')?.str() ?? 'None'}) (level: ${p.s('level').toUpperCase()}):\n\n\`\`\` quote\n${message ?? 'None'}\n\`\`\``];
    }
    return [{ topic: result[0], content: result[1] }];
  },
};
