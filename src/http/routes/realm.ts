// Organization settings (PATCH /realm) and user groups (GET /user_groups).
import type { Router } from '../router.js';
import { parseRealmUpdate, updateRealmSettings } from '../../actions/realm_settings.js';
import { userGroupsForClient } from '../shapes/groups.js';

export function registerRealmRoutes(r: Router): void {
  r.patch('/realm', async ({ params, services, user, realm }) => {
    await updateRealmSettings(services, user, realm, parseRealmUpdate(params));
    return {};
  });

  r.get('/user_groups', async ({ params, services, realm }) => {
    const includeDeactivated = params.bool('include_deactivated_groups', false);
    return { user_groups: await userGroupsForClient(services, realm.id, undefined, { includeDeactivated }) };
  });
}
