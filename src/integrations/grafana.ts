// Grafana: unified alerting (8.0 and later: `alerts`, one message per alert, topic "[alertname]")
// and legacy alerts (7.x: topic is the alert's title).
import { globalTime, MalformedPayload, pyStr, Wild, type Integration, type WebhookMessage } from './core.js';

const status = (icon: string, state: string) => `${icon} **${state}**\n\n`;

function oneOf(w: Wild, allowed: string[]): string {
  const v = w.str();
  if (!allowed.includes(v)) throw new MalformedPayload(`Invalid ${w.path}`);
  return v;
}

function unifiedAlert(alert: Wild): WebhookMessage {
  const state = oneOf(alert.at('status'), ['firing', 'resolved']);
  let body = status(state === 'firing' ? ':alert:' : ':checkbox:', state.toUpperCase());
  const labels = alert.at('labels');
  const alertname = labels.opt('alertname');
  let topic: string;
  if (alertname?.truthy) {
    topic = `[${alertname.str()}]`;
    body += `**${alertname.str()}**\n\n`;
  } else {
    topic = `[${alert.s('fingerprint')}]`;
  }
  body += `This alert was fired at ${globalTime(alert.s('startsAt'), alert.at('startsAt').path)}.`;
  const end = alert.s('endsAt');
  if (end !== '0001-01-01T00:00:00Z') body += `\n\nThis alert was resolved at ${globalTime(end, alert.at('endsAt').path)}.`;
  if (labels.truthy) body += `\n\nLabels:\n${labels.entries().map(([k, v]) => `- ${k}: ${v.str()}\n`).join('')}\n`;
  const values = alert.opt('values');
  if (values?.truthy) body += `Values:\n${values.entries().map(([k, v]) => `- ${k}: ${pyStr(v.value)}\n`).join('')}\n`;
  else if (alert.opt('valueString')?.truthy) body += `Values:\n${alert.s('valueString')}\n\n`;
  const annotations = alert.opt('annotations');
  if (annotations?.truthy) body += `Annotations:\n${annotations.entries().map(([k, v]) => `- ${k}: ${v.str()}\n`).join('')}`;
  for (const [key, label] of [['generatorURL', 'Generator'], ['silenceURL', 'Silence'], ['imageURL', 'Image']]) {
    const v = alert.opt(key!);
    if (v?.truthy) body += `\n[${label}](${v.str()})`;
  }
  return { topic, content: body + '\n', eventType: state };
}

function legacyAlert(p: Wild): WebhookMessage {
  const topic = p.s('title');
  let matches = '';
  const evalMatches = p.opt('evalMatches');
  if (evalMatches) {
    for (const m of evalMatches.list()) {
      const v = m.at('value');
      if (v.value !== null) v.num();
      matches += `**${m.s('metric')}:** ${pyStr(v.value)}\n`;
    }
  }
  const message = p.has('message') ? p.s('message') + '\n\n' : '';
  const state = oneOf(p.at('state'), ['no_data', 'paused', 'alerting', 'ok', 'pending', 'unknown']);
  const icon = state === 'alerting' ? ':alert:' : state === 'ok' ? ':squared_ok:' : ':info:';
  let body = `${status(icon, state.toUpperCase())}[${p.s('ruleName')}](${p.s('ruleUrl')})\n\n${message}${matches}`;
  if (p.has('imageUrl')) body += `\n[Click to view visualization](${p.s('imageUrl')})`;
  return { topic, content: body.trim(), eventType: state };
}

export const grafana: Integration = {
  name: 'grafana',
  displayName: 'Grafana',
  handle(req) {
    const p = new Wild(req.body);
    if (p.has('alerts')) return p.at('alerts').list().map(unifiedAlert);
    return [legacyAlert(p)];
  },
};
