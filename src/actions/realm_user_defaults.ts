// The organization's defaults for new users' personal settings (PATCH /realm/user_settings_defaults):
// stored as the values that differ from Confab's own defaults, copied into each new account.
import type { Services } from '../services.js';
import type { Realm } from '../store/realms.js';
import type { User } from '../store/users.js';
import type { Executor } from '../store/db.js';
import { USER_SETTING_DEFAULTS, type UserSettings } from '../lib/user_settings.js';
import { publishAfterCommit } from '../events/publish.js';
import { requireRealmAdmin } from '../access/roles.js';
import { realmUserDefaultOverrides, storeRealmUserDefaultOverrides } from '../store/realm_user_defaults.js';

/** Settings a realm default may not hold: they are each person's own. */
export const NOT_REALM_DEFAULTS: ReadonlySet<string> = new Set(['timezone', 'default_language', 'enable_marketing_emails', 'enable_login_emails', 'allow_private_data_export']);

/** The organization's effective defaults for new users. */
export async function realmUserDefaults(db: Executor, realmId: number): Promise<UserSettings> {
  return { ...USER_SETTING_DEFAULTS, ...(await realmUserDefaultOverrides(db, realmId)) } as UserSettings;
}

/** PATCH /realm/user_settings_defaults: administrators; one event per changed setting, to everyone. */
export async function updateRealmUserDefaults(services: Services, caller: User, realm: Realm, settings: Record<string, unknown>): Promise<void> {
  requireRealmAdmin(caller);
  const audience = [...(await services.cache.users(realm.id)).values()].filter((u) => u.is_active).map((u) => u.id);
  await services.database.transaction(async (tx, onCommit) => {
    const overrides = await realmUserDefaultOverrides(tx, realm.id);
    const current = { ...USER_SETTING_DEFAULTS, ...overrides } as Record<string, unknown>;
    const changed = Object.entries(settings).filter(([k, v]) => !NOT_REALM_DEFAULTS.has(k) && current[k] !== v);
    if (!changed.length) return;
    for (const [k, v] of changed) {
      if ((USER_SETTING_DEFAULTS as Record<string, unknown>)[k] === v) delete overrides[k];
      else overrides[k] = v;
    }
    await storeRealmUserDefaultOverrides(tx, realm.id, overrides);
    for (const [property, value] of changed) {
      publishAfterCommit(services, onCommit, { realmId: realm.id, userIds: audience, event: { type: 'realm_user_settings_defaults', op: 'update', property, value } });
    }
  });
}
