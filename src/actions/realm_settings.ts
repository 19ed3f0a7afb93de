// PATCH /realm: organization administrators change organization settings (owners only for the
// settings Zulip reserves to them), each validated, all applied in one transaction, with the
// realm events Zulip sends for each.
import type { Services } from '../services.js';
import { nowSeconds } from '../services.js';
import type { Realm, RealmGroupSettingName, RealmSettings } from '../store/realms.js';
import { getRealm, REALM_GROUP_SETTING_DEFAULTS, updateRealm } from '../store/realms.js';
import type { User } from '../store/users.js';
import { ROLE } from '../store/users.js';
import type { GroupGraph } from '../store/cache.js';
import type { SystemGroupName } from '../store/groups.js';
import { syncFullMembers } from '../store/groups.js';
import { getStream } from '../store/channels.js';
import { AVAILABLE_LANGUAGE_CODES } from '../lib/user_settings.js';
import { BadRequest, OwnerRequired } from '../errors.js';
import { checkLength, type Params } from '../lib/params.js';
import { groupSettingValue, idsNamedBy, parseGroupSettingUpdate, sameGroupSettingValue, type GroupSettingValue } from '../access/group_settings.js';
import { storeGroupSettingValue } from './group_settings.js';
import { requireRealmAdmin } from '../access/roles.js';
import { publishAfterCommit, type OnCommit } from '../events/publish.js';
import type { Executor } from '../store/db.js';
import { renderMarkdown } from '../markdown/render.js';
import type { RealmEvent } from '../events/types.js';

export const MAX_REALM_NAME_LENGTH = 40;
export const MAX_REALM_DESCRIPTION_LENGTH = 1000;
const MAX_WELCOME_MESSAGE_LENGTH = 8000;
const MAX_JITSI_URL_LENGTH = 200;
const ORG_TYPE_IDS = [0, 10, 20, 30, 35, 40, 50, 60, 70, 80, 90, 100, 1000];
/**
 * Zulip's maybe_set_moderation_or_announcement_channels_none, in the caller's transaction: a
 * channel being archived stops being the organization's moderation or announcement channel
 * (each such setting becomes -1), told to everyone in one realm/update_dict event.
 */
export async function unsetChannelSettings(services: Services, tx: Executor, onCommit: OnCommit, realmId: number, streamId: number, audience: number[]): Promise<void> {
  const fresh = await getRealm(tx, realmId);
  if (!fresh) return;
  const settings = { ...fresh.settings } as Record<string, unknown>;
  const data: Record<string, number> = {};
  for (const key of CHANNEL_SETTINGS) {
    if (settings[key] !== streamId) continue;
    settings[key] = -1;
    data[key] = -1;
  }
  if (Object.keys(data).length === 0) return;
  await updateRealm(tx, realmId, { settings: settings as RealmSettings });
  publishAfterCommit(services, onCommit, { realmId, userIds: audience, event: { type: 'realm', op: 'update_dict', property: 'default', data } });
  onCommit(() => services.cache.invalidateRealm(realmId));
}

const CHANNEL_SETTINGS = ['moderation_request_channel_id', 'new_stream_announcements_stream_id', 'signup_announcements_stream_id', 'zulip_update_announcements_stream_id'];

type PlainValue = string | number | boolean | null;
export type RealmChange =
  | { kind: 'value'; key: string; value: PlainValue }
  | { kind: 'group'; key: RealmGroupSettingName; new: GroupSettingValue; old?: GroupSettingValue };

const tooLong = (name: string, max: number) => new BadRequest(`${name} is too long (limit: ${max} characters)`);

function oneOf<T extends PlainValue>(name: string, allowed: readonly T[]) {
  return (v: PlainValue): PlainValue => {
    if (!allowed.includes(v as T)) throw new BadRequest(`Invalid ${name}`);
    return v;
  };
}

/**
 * A time limit: a positive number of seconds or "unlimited" (null). Zulip takes it as JSON, so
 * the string may arrive quoted or bare.
 */
function readLimit(p: Params, name: string, unlimited: number | null): PlainValue | undefined {
  const raw = p.optStr(name);
  if (raw === undefined) return undefined;
  if (raw === 'unlimited' || raw === '"unlimited"') return unlimited;
  if (!/^\d{1,10}$/.test(raw) || Number(raw) <= 0) throw new BadRequest(`Bad value for '${name}': ${raw}`);
  return Number(raw);
}

/** How each plain setting is read and checked; `owner` marks Zulip's owner-only settings. */
interface Spec {
  read: (p: Params, name: string) => PlainValue | undefined;
  check?: (v: PlainValue) => PlainValue;
  owner?: boolean;
}
const bool: Spec['read'] = (p, n) => p.optBool(n);
const int: Spec['read'] = (p, n) => p.optInt(n);
const str: Spec['read'] = (p, n) => p.optStr(n);

const PLAIN: Record<string, Spec> = {
  name: {
    read: str,
    // Zulip's update_realm caps the name's length (StringConstraints(max_length=...)) and nothing
    // more: no trimming, and an empty name is a name.
    check: (v) => {
      checkLength(String(v), 'name', MAX_REALM_NAME_LENGTH);
      return v;
    },
  },
  description: {
    read: str,
    check: (v) => {
      checkLength(String(v), 'description', MAX_REALM_DESCRIPTION_LENGTH);
      return v;
    },
  },
  topics_policy: { read: str, check: oneOf('topics_policy', ['allow_empty_topic', 'disable_empty_topic']) },
  // The setting topics_policy replaced (feature level 392); still accepted from older clients.
  mandatory_topics: { read: bool },
  enable_spectator_access: { read: bool },
  waiting_period_threshold: {
    read: int,
    owner: true,
    check: (v) => {
      if ((v as number) < 0) throw new BadRequest('waiting_period_threshold is too small');
      return v;
    },
  },
  invite_required: { read: bool, owner: true },
  emails_restricted_to_domains: { read: bool, owner: true },
  disallow_disposable_email_addresses: { read: bool, owner: true },
  allow_message_editing: { read: bool },
  allow_edit_history: { read: bool },
  message_content_edit_limit_seconds: { read: (p, n) => readLimit(p, n, null) },
  message_content_delete_limit_seconds: { read: (p, n) => readLimit(p, n, null) },
  move_messages_within_stream_limit_seconds: { read: (p, n) => readLimit(p, n, null) },
  move_messages_between_streams_limit_seconds: { read: (p, n) => readLimit(p, n, null) },
  message_retention_days: { read: (p, n) => readLimit(p, n, -1), owner: true },
  message_edit_history_visibility_policy: { read: str, check: oneOf('message_edit_history_visibility_policy', ['all', 'moves', 'none']) },
  send_welcome_emails: { read: bool },
  inline_image_preview: { read: bool },
  inline_url_embed_preview: { read: bool },
  require_unique_names: { read: bool },
  name_changes_disabled: { read: bool },
  email_changes_disabled: { read: bool },
  avatar_changes_disabled: { read: bool },
  enable_read_receipts: { read: bool },
  digest_emails_enabled: { read: bool },
  digest_weekday: { read: int, check: oneOf('digest_weekday', [0, 1, 2, 3, 4, 5, 6]) },
  message_content_allowed_in_email_notifications: { read: bool },
  want_advertise_in_communities_directory: { read: bool },
  enable_guest_user_indicator: { read: bool },
  enable_guest_user_dm_warning: { read: bool },
  require_e2ee_push_notifications: { read: bool },
  default_code_block_language: { read: str },
  default_language: {
    read: str,
    check: (v) => {
      // update_realm checks against the same list as a user's setting, with its own error text.
      if (!AVAILABLE_LANGUAGE_CODES.includes(String(v))) throw new BadRequest(`Invalid language '${String(v)}'`);
      return v;
    },
  },
  video_chat_provider: { read: int },
  // Checked in updateRealmSettings, after video_chat_provider, as update_realm's body does.
  giphy_rating: { read: int },
  jitsi_server_url: {
    read: str,
    check: (v) => {
      const s = String(v).replace(/^"(.*)"$/, '$1');
      if (s === 'default') return null;
      if (s.length > MAX_JITSI_URL_LENGTH || !/^https?:\/\/[^\s/]+/.test(s)) throw new BadRequest('jitsi_server_url is not an allowed_type');
      return s;
    },
  },
  welcome_message_custom_text: {
    read: str,
    check: (v) => {
      if (String(v).length > MAX_WELCOME_MESSAGE_LENGTH) throw tooLong('welcome_message_custom_text', MAX_WELCOME_MESSAGE_LENGTH);
      return v;
    },
  },
  org_type: { read: int, check: oneOf('org_type', ORG_TYPE_IDS) },
  // A channel id, or a negative number for none (stored, and reported by /register, as -1; the
  // event and the answer carry the number given, as Zulip's do_set_realm_stream).
  ...Object.fromEntries(CHANNEL_SETTINGS.map((k) => [k, { read: int }])),
};

/**
 * The order in which Zulip's update_realm applies what one request changes, each change with its
 * own event: time limits and jitsi_server_url going back to their default (None) first, then the
 * properties in its parameters' (alphabetical) order, then message_retention_days and the other
 * time limits and jitsi_server_url (locals of its body), group settings, the channel settings,
 * and org_type last.
 */
const TIME_LIMITS = ['message_content_delete_limit_seconds', 'message_content_edit_limit_seconds', 'move_messages_within_stream_limit_seconds', 'move_messages_between_streams_limit_seconds'];
const BODY_LOCALS = ['message_retention_days', ...TIME_LIMITS, 'jitsi_server_url'];
function updateRank(c: RealmChange): number {
  if (c.kind === 'group') return 300;
  if (BODY_LOCALS.includes(c.key) && c.key !== 'message_retention_days' && c.value === null) return BODY_LOCALS.indexOf(c.key);
  if (BODY_LOCALS.includes(c.key)) return 200 + BODY_LOCALS.indexOf(c.key);
  if (CHANNEL_SETTINGS.includes(c.key)) return 400 + CHANNEL_SETTINGS.indexOf(c.key);
  return c.key === 'org_type' ? 500 : 100;
}
/** Properties sort by name; the sort is stable, so group settings keep their order. */
const inUpdateOrder = (changes: RealmChange[]) =>
  [...changes].sort((a, b) => updateRank(a) - updateRank(b) || (updateRank(a) === 100 && a.key !== b.key ? (a.key < b.key ? -1 : 1) : 0));

/** Which group-setting values each permission may take (Zulip's GroupPermissionSetting). */
interface GroupRule {
  nobody: boolean;
  everyone: boolean;
  /** Only these system groups, never an anonymous group. */
  systemOnly?: SystemGroupName[];
}
const GROUP_RULES: Record<RealmGroupSettingName, GroupRule> = {
  can_access_all_users_group: { nobody: false, everyone: true, systemOnly: ['role:everyone', 'role:members'] },
  can_add_custom_emoji_group: { nobody: true, everyone: false },
  can_add_subscribers_group: { nobody: true, everyone: false },
  can_create_bots_group: { nobody: true, everyone: false },
  can_create_groups: { nobody: true, everyone: false },
  can_create_private_channel_group: { nobody: true, everyone: false },
  can_create_public_channel_group: { nobody: true, everyone: false },
  can_create_web_public_channel_group: { nobody: true, everyone: false, systemOnly: ['role:moderators', 'role:administrators', 'role:owners', 'role:nobody'] },
  can_create_write_only_bots_group: { nobody: true, everyone: false },
  can_delete_any_message_group: { nobody: true, everyone: false },
  can_delete_own_message_group: { nobody: true, everyone: true },
  can_invite_users_group: { nobody: true, everyone: false },
  can_manage_all_groups: { nobody: false, everyone: false },
  can_manage_billing_group: { nobody: false, everyone: false },
  can_mention_many_users_group: { nobody: true, everyone: true },
  can_move_messages_between_channels_group: { nobody: true, everyone: false },
  can_move_messages_between_topics_group: { nobody: true, everyone: true },
  can_resolve_topics_group: { nobody: true, everyone: true },
  can_set_delete_message_policy_group: { nobody: true, everyone: false },
  can_set_topics_policy_group: { nobody: true, everyone: true },
  can_summarize_topics_group: { nobody: true, everyone: true },
  create_multiuse_invite_group: { nobody: true, everyone: false },
  direct_message_initiator_group: { nobody: true, everyone: true },
  direct_message_permission_group: { nobody: true, everyone: true },
};

/** Group settings only organization owners may change. */
const OWNER_ONLY_GROUPS = new Set<string>(['create_multiuse_invite_group', 'can_create_groups', 'can_invite_users_group', 'can_manage_all_groups', 'can_manage_billing_group']);

/** Settings sent as realm/update_dict rather than realm/update (Zulip's historical exceptions). */
const DICT_EVENT = new Set(['allow_message_editing', 'message_content_edit_limit_seconds']);

export function parseRealmUpdate(params: Params): RealmChange[] {
  const out: RealmChange[] = [];
  for (const [key, spec] of Object.entries(PLAIN)) {
    const value = spec.read(params, key);
    if (value !== undefined) out.push({ kind: 'value', key, value: spec.check ? spec.check(value) : value });
  }
  for (const key of Object.keys(REALM_GROUP_SETTING_DEFAULTS) as RealmGroupSettingName[]) {
    const update = params.optJson(key, parseGroupSettingUpdate);
    if (update) out.push({ kind: 'group', key, ...update });
  }
  return out;
}

/** {direct_members: [], direct_subgroups: [g]} is the named group g itself. */
function canonical(v: GroupSettingValue): GroupSettingValue {
  return typeof v !== 'number' && v.direct_members.length === 0 && v.direct_subgroups.length === 1 ? v.direct_subgroups[0]! : v;
}

function checkGroupRule(graph: GroupGraph, key: RealmGroupSettingName, value: GroupSettingValue): void {
  const rule = GROUP_RULES[key];
  const refused = (groupId: number) => {
    const g = graph.groups.get(groupId);
    if (!g?.is_system_group) return false;
    if (rule.systemOnly && !(rule.systemOnly as readonly string[]).includes(g.name)) return true;
    return (g.name === 'role:nobody' && !rule.nobody) || (g.name === 'role:everyone' && !rule.everyone);
  };
  if (typeof value === 'number') {
    const g = graph.groups.get(value);
    if (rule.systemOnly && g?.named && !g.is_system_group) throw new BadRequest(`'${key}' must be a system user group.`);
    if (refused(value)) throw new BadRequest(`'${key}' setting cannot be set to '${g!.name}' group.`);
    return;
  }
  if (rule.systemOnly) throw new BadRequest(`'${key}' must be a system user group.`);
  if (value.direct_members.length === 0 && value.direct_subgroups.length === 0 && !rule.nobody) {
    throw new BadRequest(`'${key}' setting cannot be set to 'role:nobody' group.`);
  }
  for (const sub of value.direct_subgroups) {
    const g = graph.groups.get(sub);
    if (g?.name === 'role:everyone' && !rule.everyone) throw new BadRequest(`'${key}' setting cannot be set to '${g.name}' group.`);
  }
}

type Event = RealmEvent;

/** The event Zulip sends when this plain setting changes. */
function eventFor(key: string, value: PlainValue, description?: string): Event {
  if (key === 'description') return { type: 'realm', op: 'update_dict', property: 'default', data: { description: value, rendered_description: description } };
  if (key === 'topics_policy') {
    return { type: 'realm', op: 'update_dict', property: 'default', data: { topics_policy: value, mandatory_topics: value === 'disable_empty_topic' } };
  }
  if (DICT_EVENT.has(key)) return { type: 'realm', op: 'update_dict', property: 'default', data: { [key]: value } };
  return { type: 'realm', op: 'update', property: key, value };
}

export async function updateRealmSettings(services: Services, caller: User, realm: Realm, requested: RealmChange[]): Promise<Record<string, unknown>> {
  requireRealmAdmin(caller);
  // update_realm's body checks the video chat provider and the GIPHY rating before asking for an owner.
  const providers = [0, 1, ...(services.config.bigBlueButton ? [4] : [])];
  const value = (key: string) => requested.find((c) => c.key === key && c.kind === 'value') as { value: PlainValue } | undefined;
  const provider = value('video_chat_provider');
  if (provider && !providers.includes(provider.value as number)) throw new BadRequest(`Invalid video_chat_provider ${String(provider.value)}`);
  const giphy = value('giphy_rating');
  if (giphy && ![0, 1, 2, 3, 4, 5].includes(giphy.value as number)) throw new BadRequest(`Invalid giphy_rating ${String(giphy.value)}`);
  const ownerOnly = requested.some((c) => (c.kind === 'value' ? PLAIN[c.key]?.owner : OWNER_ONLY_GROUPS.has(c.key)));
  if (ownerOnly && caller.role !== ROLE.owner) throw new OwnerRequired();

  // mandatory_topics is topics_policy spelled the old way; topics_policy wins when both are sent.
  let changes = requested;
  const legacy = changes.find((c) => c.key === 'mandatory_topics');
  if (legacy) {
    changes = changes.filter((c) => c.key !== 'mandatory_topics');
    if (!changes.some((c) => c.key === 'topics_policy')) changes.push({ kind: 'value', key: 'topics_policy', value: legacy.kind === 'value' && legacy.value ? 'disable_empty_topic' : 'allow_empty_topic' });
  }
  if (changes.length === 0) return {};

  const named = idsNamedBy(changes.flatMap((c) => (c.kind === 'group' ? [canonical(c.new)] : [])));
  const graph = await services.cache.groupGraph(realm.id, named.groupIds);
  const users = await services.cache.usersIncluding(realm.id, named.userIds);
  const audience = [...users.values()].filter((u) => u.is_active).map((u) => u.id);
  for (const c of changes) if (c.kind === 'group') checkGroupRule(graph, c.key, canonical(c.new));
  for (const c of changes) {
    if (c.kind !== 'value' || !CHANNEL_SETTINGS.includes(c.key) || (c.value as number) < 0) continue;
    const stream = await getStream(services.database.db, realm.id, c.value as number);
    if (!stream || stream.is_archived) throw new BadRequest('Invalid channel ID');
    if (c.key === 'moderation_request_channel_id' && !stream.invite_only) throw new BadRequest('Moderation request channel must be private.');
  }
  changes = inUpdateOrder(changes);

  return services.database.transaction(async (tx, onCommit) => {
    // Settings are one JSON column: start from the row as it is now, not the cached copy.
    const fresh = (await getRealm(tx, realm.id)) ?? realm;
    const settings = { ...fresh.settings } as Record<string, unknown>;
    const current: Record<string, unknown> = { ...settings, name: fresh.name, description: fresh.description };
    const data: Record<string, unknown> = {};
    const events: Event[] = [];
    const now = nowSeconds();
    let thresholdChanged = false;
    for (const c of changes) {
      if (c.kind === 'group') {
        const currentValue = groupSettingValue(graph, fresh.settings[c.key]);
        if (c.old !== undefined && !sameGroupSettingValue(canonical(c.old), currentValue)) throw new BadRequest("'old' value does not match the expected value.");
        const wanted = canonical(c.new);
        if (sameGroupSettingValue(wanted, currentValue)) continue;
        settings[c.key] = await storeGroupSettingValue(tx, graph, new Set(users.keys()), realm.id, wanted, c.key, now, { allowInternet: false });
        data[c.key] = wanted;
        events.push({ type: 'realm', op: 'update_dict', property: 'default', data: { [c.key]: wanted } });
        continue;
      }
      if (CHANNEL_SETTINGS.includes(c.key)) {
        // do_set_realm_stream runs unless the setting already names that very channel: a channel
        // setting that is unset is set (and announced) again, whatever the request says.
        const currentId = current[c.key] as number;
        if (currentId >= 0 && currentId === c.value) continue;
        settings[c.key] = (c.value as number) < 0 ? -1 : c.value;
        current[c.key] = settings[c.key];
        data[c.key] = c.value;
        events.push({ type: 'realm', op: 'update', property: c.key, value: c.value });
        continue;
      }
      // do_change_realm_org_type compares nothing: the value is stored and announced again.
      if (current[c.key] === c.value && c.key !== 'org_type') continue;
      let rendered: string | undefined;
      if (c.key === 'description') rendered = renderMarkdown(String(c.value)).html;
      if (c.key === 'topics_policy') settings.mandatory_topics = c.value === 'disable_empty_topic';
      if (c.key === 'waiting_period_threshold') thresholdChanged = true;
      if (c.key !== 'name' && c.key !== 'description') settings[c.key] = c.value;
      current[c.key] = c.value;
      // Zulip answers "updated" for text settings rather than echoing them.
      data[c.key] = typeof c.value === 'string' ? 'updated' : c.value;
      events.push(eventFor(c.key, c.value, rendered));
    }
    if (events.length === 0) return data;
    await updateRealm(tx, realm.id, {
      name: current.name !== fresh.name ? String(current.name) : undefined,
      description: current.description !== fresh.description ? String(current.description) : undefined,
      settings: settings as RealmSettings,
    });
    for (const event of events) publishAfterCommit(services, onCommit, { realmId: realm.id, userIds: audience, event });
    if (thresholdChanged) {
      // The waiting period decides who is a full member: role:fullmembers follows it.
      const moved = await syncFullMembers(tx, realm.id, Number(settings.waiting_period_threshold), now);
      for (const [op, ids] of [['remove_members', moved.removed], ['add_members', moved.added]] as const) {
        if (ids.length) publishAfterCommit(services, onCommit, { realmId: realm.id, userIds: audience, event: { type: 'user_group', op, group_id: moved.groupId, user_ids: ids } });
      }
    }
    onCommit(() => {
      services.cache.invalidateRealm(realm.id);
      services.cache.invalidateGroups(realm.id);
    });
    return data;
  });
}
