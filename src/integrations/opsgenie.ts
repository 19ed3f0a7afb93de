// Opsgenie: every alert action, under the integration's name as the topic.
import { Wild, type Integration } from './core.js';

export const opsgenie: Integration = {
  name: 'opsgenie',
  displayName: 'Opsgenie',
  handle(req) {
    const p = new Wild(req.body);
    const alert = p.at('alert');
    const type = p.s('action');
    const alertId = alert.s('alertId');
    const integrationName = p.s('integrationName');
    const tags = (alert.opt('tags')?.list() ?? []).map((t) => '`' + t.str() + '`').join(', ');
    let info = '';
    const bullet = (key: string, value: string) => (info += `* **${key}**: ${value}\n`);
    if (alert.has('note')) bullet('Note', alert.s('note'));
    if (alert.has('recipient')) bullet('Recipient', alert.s('recipient'));
    if (alert.has('addedTags')) bullet('Tags added', alert.s('addedTags'));
    if (alert.has('team')) bullet('Team added', alert.s('team'));
    if (alert.has('owner')) bullet('Assigned owner', alert.s('owner'));
    if (p.has('escalationName')) bullet('Escalation', p.s('escalationName'));
    if (alert.has('removedTags')) bullet('Tags removed', alert.s('removedTags'));
    if (alert.has('message')) bullet('Message', alert.s('message'));
    if (tags) bullet('Tags', tags);
    const content = `[Opsgenie alert for ${integrationName}](https://app.opsgenie.com/alert/V2#/show/${alertId}):\n* **Type**: ${type}\n${info}`.trim();
    return [{ topic: integrationName, content, eventType: type }];
  },
};
