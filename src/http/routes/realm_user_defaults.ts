// PATCH /realm/user_settings_defaults: the organization's defaults for new users' settings.
import type { Router } from '../router.js';
import { readUserSettingParams } from './settings.js';
import { NOT_REALM_DEFAULTS, updateRealmUserDefaults } from '../../actions/realm_user_defaults.js';
import { requireRealmAdmin } from '../../access/roles.js';

export function registerRealmUserDefaultRoutes(r: Router): void {
  r.patch('/realm/user_settings_defaults', async ({ params, services, user, realm }) => {
    requireRealmAdmin(user);
    // Personal settings (time zone, language, …) are left unread, so reported as ignored.
    const settings = readUserSettingParams(params, NOT_REALM_DEFAULTS);
    await updateRealmUserDefaults(services, user, realm, settings);
    return {};
  });
}
