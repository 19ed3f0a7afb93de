// Every incoming-webhook integration by the name in its URL (/api/v1/external/{name}).
import type { Integration } from './core.js';
import { json } from './json.js';
import { slackIncoming } from './slack_incoming.js';
import { github } from './github.js';
import { grafana } from './grafana.js';
import { alertmanager } from './alertmanager.js';
import { gitlab } from './gitlab.js';
import { sentry } from './sentry.js';
import { forgejo, gitea, gogs } from './gogs.js';
import { bitbucket2 } from './bitbucket2.js';
import { jira } from './jira.js';
import { pagerduty } from './pagerduty.js';
import { opsgenie } from './opsgenie.js';
import { uptimerobot } from './uptimerobot.js';
import { circleci } from './circleci.js';
import { jenkins } from './jenkins.js';
import { ifttt, zapier } from './zapier.js';

const ALL: Integration[] = [json, slackIncoming, github, gitlab, grafana, alertmanager, sentry, gitea, forgejo, gogs, bitbucket2, jira, pagerduty, opsgenie, uptimerobot, circleci, jenkins, zapier, ifttt];

/** Other names Zulip's URLs accept for the same integration. */
const ALIASES: Record<string, string> = { githubsponsors: 'github' };

const byName = new Map<string, Integration>(ALL.map((i) => [i.name, i]));

export function findIntegration(name: string): Integration | undefined {
  return byName.get(ALIASES[name] ?? name);
}

export function integrationNames(): string[] {
  return [...byName.keys(), ...Object.keys(ALIASES)].sort();
}
