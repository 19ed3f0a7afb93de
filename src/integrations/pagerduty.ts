// PagerDuty: webhooks V1 and V2 (`messages`) and V3 (`event`), one message per incident change.
import { UnsupportedEvent, Wild, type Integration, type WebhookMessage } from './core.js';

const V1: Record<string, string> = {
  'incident.trigger': 'triggered',
  'incident.acknowledge': 'acknowledged',
  'incident.unacknowledge': 'unacknowledged',
  'incident.resolve': 'resolved',
  'incident.assign': 'assigned',
  'incident.escalate': 'escalated',
  'incident.delegate': 'delineated',
};
const V2: Record<string, string> = { 'incident.trigger': 'triggered', 'incident.acknowledge': 'acknowledged', 'incident.resolve': 'resolved', 'incident.assign': 'assigned' };
const V3: Record<string, string> = {
  'incident.triggered': 'triggered',
  'incident.acknowledged': 'acknowledged',
  'incident.unacknowledged': 'unacknowledged',
  'incident.resolved': 'resolved',
  'incident.reassigned': 'reassigned',
};

interface Info {
  action: string;
  numTitle: string;
  url: string;
  serviceName: string;
  serviceUrl: string;
  assignee: string;
  agent?: string;
  trigger: string;
}

const agent = (name: string, url: string) => `[${name}](${url})`;
const quote = (m: string) => '``` quote\n' + m + '\n```';
const emailUser = (email: string) => email.split('@')[0]!;

function v1(m: Wild): Info {
  const inc = m.at('data').at('incident');
  const assigned = inc.opt('assigned_to_user');
  const resolved = inc.opt('resolved_by_user');
  const trigger: string[] = [];
  const summary = inc.opt('trigger_summary_data');
  if (summary?.truthy) {
    for (const k of ['subject', 'description']) {
      const v = summary.opt(k)?.str();
      if (v) trigger.push(v);
    }
  }
  return {
    action: V1[m.s('type')]!,
    numTitle: String(inc.i('incident_number')),
    url: inc.s('html_url'),
    serviceName: inc.at('service').s('name'),
    serviceUrl: inc.at('service').s('html_url'),
    assignee: assigned?.truthy ? agent(emailUser(assigned.s('email')), assigned.s('html_url')) : 'nobody',
    agent: resolved?.truthy ? agent(emailUser(resolved.s('email')), resolved.s('html_url')) : undefined,
    trigger: quote(trigger.join('\n')),
  };
}

function v2(m: Wild): Info {
  const inc = m.at('incident');
  const assignments = inc.at('assignments').list();
  const changer = inc.opt('last_status_change_by');
  const description = inc.opt('description')?.str();
  return {
    action: V2[m.s('event')]!,
    numTitle: String(inc.i('incident_number')),
    url: inc.s('html_url'),
    serviceName: inc.at('service').s('name'),
    serviceUrl: inc.at('service').s('html_url'),
    assignee: assignments.length ? agent(assignments[0]!.at('assignee').s('summary'), assignments[0]!.at('assignee').s('html_url')) : 'nobody',
    agent: changer ? agent(changer.s('summary'), changer.s('html_url')) : undefined,
    trigger: description !== undefined ? quote(description) : '',
  };
}

function v3(e: Wild): Info {
  const d = e.at('data');
  const assignees = d.at('assignees').list();
  const who = e.opt('agent');
  return {
    action: V3[e.s('event_type')]!,
    numTitle: `${d.s('title')} (#${d.i('number')})`,
    url: d.s('html_url'),
    serviceName: d.at('service').s('summary'),
    serviceUrl: d.at('service').s('html_url'),
    assignee: assignees.length ? agent(assignees[0]!.s('summary'), assignees[0]!.s('html_url')) : 'nobody',
    agent: who ? agent(who.s('summary'), who.s('html_url')) : undefined,
    trigger: '',
  };
}

function format(type: string, i: Info): WebhookMessage {
  const incident = `Incident [${i.numTitle}](${i.url})`;
  let content: string;
  if (['incident.trigger', 'incident.triggered', 'incident.unacknowledge', 'incident.unacknowledged'].includes(type)) {
    content = `${incident} ${i.action} by [${i.serviceName}](${i.serviceUrl}) (assigned to ${i.assignee}).\n\n${i.trigger}`;
  } else if (type === 'incident.resolve' || type === 'incident.resolved') {
    content = i.agent !== undefined ? `${incident} resolved by ${i.agent}.\n\n${i.trigger}`.trim() : `${incident} resolved.\n\n${i.trigger}`.trim();
  } else if (type === 'incident.assign' || type === 'incident.reassigned') {
    content = `${incident} ${i.action} to ${i.assignee}.\n\n${i.trigger}`.trim();
  } else {
    content = `${incident} ${i.action} by ${i.assignee}.\n\n${i.trigger}`.trim();
  }
  return { topic: `Incident ${i.numTitle}`, content, eventType: i.action };
}

export const pagerduty: Integration = {
  name: 'pagerduty',
  displayName: 'PagerDuty',
  handle(req) {
    const p = new Wild(req.body);
    const out: WebhookMessage[] = [];
    const messages = p.opt('messages');
    if (messages?.truthy) {
      const list = messages.list();
      for (const m of list) {
        const type = m.opt('type')?.str();
        if (type === undefined) break; // a V2 payload
        if (!(type in V1)) throw new UnsupportedEvent('PagerDuty', type);
        out.push(format(type, v1(m)));
      }
      for (const m of list) {
        const event = m.opt('event')?.str();
        if (event === undefined) break; // a V1 payload
        if (!(event in V2)) throw new UnsupportedEvent('PagerDuty', event);
        out.push(format(event, v2(m)));
      }
    } else if (p.has('event')) {
      const type = p.at('event').opt('event_type')?.str();
      if (type === undefined || !(type in V3)) throw new UnsupportedEvent('PagerDuty', type ?? 'None');
      out.push(format(type, v3(p.at('event'))));
    }
    return out;
  },
};
