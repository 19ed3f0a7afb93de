// Organization settings (PATCH /realm) and user groups (GET /user_groups).
import type { Router } from '../router.js';
import { pathInt } from '../router.js';
import { BadRequest } from '../../errors.js';
import { addPlayground, removePlayground } from '../../actions/playgrounds.js';
import { parseRealmUpdate, updateRealmSettings } from '../../actions/realm_settings.js';
import { userGroupsForClient } from '../shapes/groups.js';

export function registerRealmRoutes(r: Router): void {
  r.patch('/realm', async ({ params, services, user, realm }) => {
    await updateRealmSettings(services, user, realm, parseRealmUpdate(params));
    return {};
  });

  r.post('/realm/playgrounds', async ({ params, services, user, realm }) =>
    addPlayground(services, user, realm, params.str('name'), params.str('pygments_language'), params.str('url_template')),
  );

  r.delete('/realm/playgrounds/{playground_id}', async (ctx) => {
    await removePlayground(ctx.services, ctx.user, ctx.realm, pathInt(ctx, 'playground_id', () => new BadRequest('Invalid playground')));
    return {};
  });

  r.get('/user_groups', async ({ params, services, realm }) => {
    const includeDeactivated = params.bool('include_deactivated_groups', false);
    return { user_groups: await userGroupsForClient(services, realm.id, undefined, { includeDeactivated }) };
  });
}
