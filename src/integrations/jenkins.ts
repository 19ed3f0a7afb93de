// Jenkins, through the Notification plugin's JSON (Zulip's own Jenkins integration is a Jenkins
// plugin that calls the API, so it has no webhook format to follow): one message per build phase,
// under the job's name.
import { UnsupportedEvent, Wild, type Integration } from './core.js';

const PHASES: Record<string, string> = { QUEUED: 'is queued', STARTED: 'has started', COMPLETED: 'has completed', FINALIZED: 'has finished' };
const RESULTS: Record<string, string> = { SUCCESS: ':check: succeeded', FAILURE: ':cross_mark: failed', UNSTABLE: ':warning: is unstable', ABORTED: 'was aborted', NOT_BUILT: 'was not built' };

export const jenkins: Integration = {
  name: 'jenkins',
  displayName: 'Jenkins',
  handle(req) {
    const p = new Wild(req.body);
    const name = p.s('name');
    const build = p.at('build');
    const phase = build.s('phase');
    if (!(phase in PHASES)) throw new UnsupportedEvent('Jenkins', phase);
    // COMPLETED and FINALIZED both follow a build's end; one message is enough.
    if (phase === 'COMPLETED') return [];
    const url = build.os('full_url');
    const label = url ? `[Build #${build.i('number')}](${url})` : `Build #${build.i('number')}`;
    const status = build.opt('status')?.str();
    let content = phase === 'FINALIZED' && status ? `${label} ${RESULTS[status] ?? `finished: ${status}`}.` : `${label} ${PHASES[phase]}.`;
    const scm = build.opt('scm');
    const commit = scm?.opt('commit')?.str();
    const branch = scm?.opt('branch')?.str();
    if (commit || branch) content += `\n- **Branch:** ${branch ?? 'unknown'}${commit ? `\n- **Commit:** ${commit.slice(0, 11)}` : ''}`;
    return [{ topic: name, content, eventType: phase === 'FINALIZED' && status ? status : phase }];
  },
};
