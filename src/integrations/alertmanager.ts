// Prometheus Alertmanager: one message per instance (topic) and status, listing its alerts.
// `name` and `desc` query parameters choose the label that names the topic and the line.
import { Wild, type Integration, type WebhookMessage } from './core.js';

export const alertmanager: Integration = {
  name: 'alertmanager',
  displayName: 'Alertmanager',
  handle(req) {
    const p = new Wild(req.body);
    const nameField = req.query.name ?? 'instance';
    const descField = req.query.desc ?? 'alertname';
    const topics = new Map<string, { firing: string[]; resolved: string[] }>();
    for (const alert of p.at('alerts').list()) {
      const labels = alert.opt('labels');
      const annotations = alert.opt('annotations');
      const pick = (field: string, fallback: string) => (labels?.has(field) ? labels.at(field) : annotations?.has(field) ? annotations.at(field) : new Wild(fallback)).str();
      const name = pick(nameField, '(unknown)');
      const desc = pick(descField, `<missing field: ${descField}>`);
      const url = alert.s('generatorURL').replaceAll('tab=1', 'tab=0');
      const status = alert.s('status');
      if (!topics.has(name)) topics.set(name, { firing: [], resolved: [] });
      const entry = topics.get(name)!;
      (status === 'firing' ? entry.firing : entry.resolved).push(`${desc} ([graph](${url}))`);
    }
    const out: WebhookMessage[] = [];
    for (const [topic, statuses] of topics) {
      for (const [status, lines] of [['firing', statuses.firing], ['resolved', statuses.resolved]] as const) {
        if (lines.length === 0) continue;
        const head = status === 'firing' ? ':alert: **FIRING**' : ':squared_ok: **Resolved**';
        const content = lines.length === 1 ? `${head} ${lines[0]}` : `${head}\n${lines.map((l) => `* ${l}`).join('\n')}`;
        out.push({ topic, content });
      }
    }
    return out;
  },
};
