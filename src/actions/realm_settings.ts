// PATCH /realm: organization administrators change organization settings, each validated.
import type { Services } from '../services.js';
import { nowSeconds } from '../services.js';
import type { Realm, RealmGroupSettingName, RealmSettings } from '../store/realms.js';
import { REALM_GROUP_SETTING_DEFAULTS, updateRealm } from '../store/realms.js';
import type { User } from '../store/users.js';
import { ROLE } from '../store/users.js';
import { BadRequest, NotAllowed } from '../errors.js';
import type { Params } from '../http/params.js';
import { groupSettingValue, parseGroupSettingUpdate, sameGroupSettingValue, storeGroupSettingValue, type GroupSettingValue } from './group_settings.js';
import { isRealmAdmin } from './channel_access.js';
import { publishAfterCommit } from '../events/publish.js';

type Parsed = { kind: 'value'; key: string; value: unknown } | { kind: 'group'; key: RealmGroupSettingName; new: GroupSettingValue; old?: GroupSettingValue };

/** Plain settings: how to read each from the request, and whether its event is update_dict. */
const PLAIN: Record<string, { read: (p: Params, name: string) => unknown; dict?: boolean }> = {
  name: { read: (p, n) => p.optStr(n) },
  description: { read: (p, n) => p.optStr(n), dict: true },
  topics_policy: { read: (p, n) => p.optStr(n) },
  enable_spectator_access: { read: (p, n) => p.optBool(n), dict: true },
  waiting_period_threshold: { read: (p, n) => p.optInt(n), dict: true },
  mandatory_topics: { read: (p, n) => p.optBool(n) },
  invite_required: { read: (p, n) => p.optBool(n) },
  allow_message_editing: { read: (p, n) => p.optBool(n), dict: true },
  message_content_edit_limit_seconds: { read: (p, n) => limitSeconds(p, n), dict: true },
  message_content_delete_limit_seconds: { read: (p, n) => limitSeconds(p, n), dict: true },
  send_welcome_emails: { read: (p, n) => p.optBool(n) },
  inline_image_preview: { read: (p, n) => p.optBool(n) },
  inline_url_embed_preview: { read: (p, n) => p.optBool(n) },
  require_unique_names: { read: (p, n) => p.optBool(n) },
  name_changes_disabled: { read: (p, n) => p.optBool(n) },
  email_changes_disabled: { read: (p, n) => p.optBool(n) },
  avatar_changes_disabled: { read: (p, n) => p.optBool(n) },
  enable_read_receipts: { read: (p, n) => p.optBool(n) },
  default_language: { read: (p, n) => p.optStr(n) },
  video_chat_provider: { read: (p, n) => p.optInt(n) },
};

/** "unlimited" or a positive number of seconds (Zulip's edit/delete limits). */
function limitSeconds(p: Params, name: string): number | null | undefined {
  const raw = p.optStr(name);
  if (raw === undefined) return undefined;
  if (raw === 'unlimited' || raw === '"unlimited"') return null;
  if (!/^\d+$/.test(raw) || Number(raw) <= 0) throw new BadRequest(`Invalid ${name}`);
  return Number(raw);
}

function validate(key: string, value: unknown): unknown {
  switch (key) {
    case 'name': {
      const v = String(value).trim();
      if (!v) throw new BadRequest("Organization name can't be empty.");
      if (v.length > 40) throw new BadRequest('Organization name is too long.');
      return v;
    }
    case 'description':
      if (String(value).length > 1000) throw new BadRequest('Organization description is too long.');
      return value;
    case 'topics_policy':
      if (value !== 'allow_empty_topic' && value !== 'disable_empty_topic') throw new BadRequest('Invalid topics_policy');
      return value;
    case 'waiting_period_threshold':
      if (typeof value !== 'number' || value < 0 || value > 1_000_000) throw new BadRequest('Invalid waiting_period_threshold');
      return value;
    case 'video_chat_provider':
      if (![0, 1, 4].includes(value as number)) throw new BadRequest('Invalid video_chat_provider');
      return value;
    case 'default_language':
      if (!/^[a-zA-Z]{2,3}([-_][a-zA-Z0-9]{2,8})?$/.test(String(value))) throw new BadRequest(`Invalid language '${String(value)}'`);
      return value;
    default:
      return value;
  }
}


/** Settings only organization owners may change (Zulip's owner-only permissions). */
const OWNER_ONLY = new Set<string>(['can_create_web_public_channel_group', 'can_manage_all_groups', 'can_manage_billing_group', 'create_multiuse_invite_group']);

export function parseRealmUpdate(params: Params): Parsed[] {
  const out: Parsed[] = [];
  for (const [key, spec] of Object.entries(PLAIN)) {
    const value = spec.read(params, key);
    if (value !== undefined) out.push({ kind: 'value', key, value: validate(key, value) });
  }
  for (const key of Object.keys(REALM_GROUP_SETTING_DEFAULTS) as RealmGroupSettingName[]) {
    const update = params.optJson(key, parseGroupSettingUpdate);
    if (update) out.push({ kind: 'group', key, ...update });
  }
  return out;
}

export async function updateRealmSettings(services: Services, caller: User, realm: Realm, changes: Parsed[]): Promise<void> {
  if (!isRealmAdmin(caller)) throw new NotAllowed('Must be an organization administrator');
  for (const c of changes) if (OWNER_ONLY.has(c.key) && caller.role !== ROLE.owner) throw new NotAllowed('Must be an organization owner');
  if (changes.length === 0) return;
  const graph = await services.cache.groupGraph(realm.id);
  const users = await services.cache.users(realm.id);
  const audience = [...users.values()].filter((u) => u.is_active).map((u) => u.id);
  for (const c of changes) {
    if (c.kind === 'group' && c.old !== undefined && !sameGroupSettingValue(c.old, groupSettingValue(graph, realm.settings[c.key]))) {
      throw new BadRequest("'old' value does not match the expected value.");
    }
  }
  await services.database.transaction(async (tx, onCommit) => {
    const settings = { ...realm.settings } as Record<string, unknown>;
    let name: string | undefined;
    let description: string | undefined;
    const now = nowSeconds();
    for (const c of changes) {
      let eventValue: unknown;
      if (c.kind === 'value') {
        if (c.key === 'name') name = String(c.value);
        else if (c.key === 'description') description = String(c.value);
        else settings[c.key] = c.value;
        eventValue = c.value;
      } else {
        const id = await storeGroupSettingValue(tx, graph, new Set(users.keys()), realm.id, c.new, c.key, now, { allowInternet: false });
        settings[c.key] = id;
        eventValue = c.new;
      }
      const dict = c.kind === 'group' || PLAIN[c.key]?.dict;
      const event = dict
        ? { type: 'realm', op: 'update_dict', property: 'default', data: { [c.key]: eventValue } }
        : { type: 'realm', op: 'update', property: c.key, value: eventValue };
      publishAfterCommit(services, onCommit, { realmId: realm.id, userIds: audience, event });
    }
    await updateRealm(tx, realm.id, { name, description, settings: settings as RealmSettings });
    onCommit(() => {
      services.cache.invalidateRealm(realm.id);
      services.cache.invalidateGroups(realm.id);
    });
  });
}
