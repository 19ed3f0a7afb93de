// GET /server_settings: what a client needs before logging in.
import type { Router } from '../router.js';
import { ZULIP_FEATURE_LEVEL, ZULIP_VERSION } from '../../lib/version.js';
import { listRealms } from '../../store/realms.js';

export function registerServerRoutes(r: Router): void {
  r.publicRoute('GET', '/server_settings', async ({ services, request }) => {
    const realms = await listRealms(services.database.db);
    const host = (request.headers.host ?? '').split(':')[0]!;
    const sub = host.split('.')[0]!;
    const realm = realms.find((x) => x.string_id !== '' && x.string_id === sub) ?? realms.find((x) => x.string_id === '') ?? realms[0];
    const base = services.config.externalUrl;
    return {
      authentication_methods: { password: true, dev: false, email: true, ldap: false, remoteuser: false, github: false, azuread: false, gitlab: false, apple: false, google: false, saml: false, 'openid connect': false },
      external_authentication_methods: [],
      zulip_feature_level: ZULIP_FEATURE_LEVEL,
      zulip_version: ZULIP_VERSION,
      zulip_merge_base: ZULIP_VERSION,
      push_notifications_enabled: services.config.pushBouncer !== null,
      is_incompatible: false,
      email_auth_enabled: true,
      require_email_format_usernames: true,
      ...(realm
        ? {
            realm_uri: base,
            realm_url: base,
            realm_name: realm.name,
            realm_icon: `${base}/static/images/logo/zulip-icon-128x128.png`,
            realm_description: realm.description,
            realm_web_public_access_enabled: realm.settings.enable_spectator_access,
          }
        : {}),
    };
  });
}
