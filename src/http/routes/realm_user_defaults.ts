// PATCH /realm/user_settings_defaults: the organization's defaults for new users' settings.
import type { Router } from '../router.js';
import { BadRequest } from '../../errors.js';
import { USER_SETTING_SPECS } from '../../lib/user_settings.js';
import { NOT_REALM_DEFAULTS, updateRealmUserDefaults } from '../../actions/realm_user_defaults.js';
import { requireRealmAdmin } from '../../actions/users.js';

export function registerRealmUserDefaultRoutes(r: Router): void {
  r.patch('/realm/user_settings_defaults', async ({ params, services, user, realm }) => {
    requireRealmAdmin(user);
    const settings: Record<string, unknown> = {};
    for (const [name, spec] of Object.entries(USER_SETTING_SPECS)) {
      // The rest are personal (time zone, language, …): left unread, so reported as ignored.
      if (NOT_REALM_DEFAULTS.has(name)) continue;
      if (spec.kind === 'bool') {
        const v = params.optBool(name);
        if (v !== undefined) settings[name] = v;
      } else if (spec.kind === 'int') {
        const v = params.optInt(name);
        if (v === undefined) continue;
        const ok = spec.values ? spec.values.includes(v) : (spec.min === undefined || v >= spec.min) && (spec.max === undefined || v <= spec.max);
        if (!ok) throw new BadRequest(`Invalid ${name}`);
        settings[name] = v;
      } else {
        const v = params.optStr(name);
        if (v === undefined) continue;
        if ((spec.values && !spec.values.includes(v)) || (spec.check && !spec.check(v))) throw new BadRequest(`Invalid ${name}`);
        settings[name] = spec.normalize ? spec.normalize(v) : v;
      }
    }
    await updateRealmUserDefaults(services, user, realm, settings);
    return {};
  });
}
