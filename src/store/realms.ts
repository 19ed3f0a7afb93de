// Organizations (Zulip's realms). Settings live in one JSON column; the defaults below fill every
// key a row does not hold, so adding a setting needs no migration.
import { sql } from 'kysely';
import type { Executor } from './db.js';
import type { DialectName } from './dialect.js';

/** Organization settings that are plain values. Group settings are in REALM_GROUP_SETTING_DEFAULTS. */
export const REALM_SETTING_DEFAULTS = {
  topics_policy: 'allow_empty_topic',
  enable_spectator_access: false,
  waiting_period_threshold: 0,
  invite_required: true,
  emails_restricted_to_domains: false,
  disallow_disposable_email_addresses: true,
  mandatory_topics: false,
  message_content_edit_limit_seconds: 600 as number | null,
  message_content_delete_limit_seconds: null as number | null,
  move_messages_within_stream_limit_seconds: 604800 as number | null,
  move_messages_between_streams_limit_seconds: 604800 as number | null,
  allow_message_editing: true,
  allow_edit_history: true,
  message_edit_history_visibility_policy: 'all',
  message_retention_days: -1,
  inline_image_preview: true,
  inline_url_embed_preview: false,
  send_welcome_emails: true,
  digest_emails_enabled: false,
  digest_weekday: 1,
  default_language: 'en',
  default_code_block_language: '',
  email_address_visibility: 1,
  avatar_changes_disabled: false,
  name_changes_disabled: false,
  email_changes_disabled: false,
  require_unique_names: false,
  video_chat_provider: 1,
  giphy_rating: 2,
  jitsi_server_url: null as string | null,
  enable_read_receipts: true,
  enable_guest_user_indicator: true,
  enable_guest_user_dm_warning: true,
  moderation_request_channel_id: -1,
  new_stream_announcements_stream_id: -1,
  signup_announcements_stream_id: -1,
  zulip_update_announcements_stream_id: -1,
  want_advertise_in_communities_directory: false,
  org_type: 0,
  plan_type: 1,
  icon_source: 'G',
  logo_source: 'D',
  night_logo_source: 'D',
  message_content_allowed_in_email_notifications: true,
  welcome_message_custom_text: '',
  require_e2ee_push_notifications: false,
};

/** Organization permission settings, each naming a system group by its name. */
export const REALM_GROUP_SETTING_DEFAULTS = {
  can_access_all_users_group: 'role:everyone',
  can_add_custom_emoji_group: 'role:members',
  can_add_subscribers_group: 'role:members',
  can_create_bots_group: 'role:members',
  can_create_groups: 'role:members',
  can_create_private_channel_group: 'role:members',
  can_create_public_channel_group: 'role:members',
  can_create_web_public_channel_group: 'role:owners',
  can_create_write_only_bots_group: 'role:members',
  can_delete_any_message_group: 'role:administrators',
  can_delete_own_message_group: 'role:everyone',
  can_invite_users_group: 'role:members',
  can_manage_all_groups: 'role:owners',
  can_manage_billing_group: 'role:administrators',
  can_mention_many_users_group: 'role:administrators',
  can_move_messages_between_channels_group: 'role:members',
  can_move_messages_between_topics_group: 'role:everyone',
  can_resolve_topics_group: 'role:everyone',
  can_set_delete_message_policy_group: 'role:moderators',
  can_set_topics_policy_group: 'role:members',
  can_summarize_topics_group: 'role:everyone',
  create_multiuse_invite_group: 'role:administrators',
  direct_message_initiator_group: 'role:everyone',
  direct_message_permission_group: 'role:everyone',
} as const;

export type RealmGroupSettingName = keyof typeof REALM_GROUP_SETTING_DEFAULTS;
export type RealmSettings = typeof REALM_SETTING_DEFAULTS & Record<RealmGroupSettingName, number>;

export interface Realm {
  id: number;
  string_id: string;
  name: string;
  description: string;
  date_created: number;
  deactivated: boolean;
  settings: RealmSettings;
}

type RealmRow = {
  id: number;
  string_id: string;
  name: string;
  description: string;
  date_created: number;
  deactivated: boolean | number;
  settings: string;
};

function fromRow(row: RealmRow): Realm {
  const stored = JSON.parse(row.settings) as Partial<RealmSettings>;
  return {
    id: row.id,
    string_id: row.string_id,
    name: row.name,
    description: row.description,
    date_created: Number(row.date_created),
    deactivated: !!row.deactivated,
    settings: { ...REALM_SETTING_DEFAULTS, ...stored } as RealmSettings,
  };
}

export async function insertRealm(
  db: Executor,
  fields: { string_id: string; name: string; description?: string; date_created: number },
): Promise<number> {
  const row = await db
    .insertInto('realms')
    .values({
      string_id: fields.string_id,
      name: fields.name,
      description: fields.description ?? '',
      date_created: fields.date_created,
      deactivated: false,
      settings: '{}',
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function getRealm(db: Executor, id: number): Promise<Realm | undefined> {
  const row = await db.selectFrom('realms').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? fromRow(row) : undefined;
}

export async function getRealmByStringId(db: Executor, stringId: string): Promise<Realm | undefined> {
  const row = await db.selectFrom('realms').selectAll().where('string_id', '=', stringId).executeTakeFirst();
  return row ? fromRow(row) : undefined;
}

/**
 * Zulip's SYSTEM_BOT_REALM: the internal organization that holds the system bots (Notification
 * Bot, Welcome Bot, Email Gateway) every organization shares. Nobody signs in to it, and the
 * listings below leave it out.
 */
export const SYSTEM_BOT_REALM = 'zulipinternal';

export async function listRealms(db: Executor): Promise<Realm[]> {
  const rows = await db.selectFrom('realms').selectAll().where('string_id', '!=', SYSTEM_BOT_REALM).orderBy('id').execute();
  return rows.map(fromRow);
}

/** Each organization's deactivation flag: one small read, for processes watching for changes. */
export async function realmDeactivationFlags(db: Executor): Promise<Array<{ id: number; deactivated: boolean }>> {
  const rows = await db.selectFrom('realms').select(['id', 'deactivated']).execute();
  return rows.map((r) => ({ id: Number(r.id), deactivated: !!r.deactivated }));
}

/**
 * Inside a transaction that creates an organization only if none exists: serializes it with any
 * other such transaction, until its commit. On SQLite the writer's transactions begin with
 * BEGIN IMMEDIATE, which already holds the database's one write lock.
 */
export async function lockRealmCreation(tx: Executor, dialect: DialectName): Promise<void> {
  if (dialect === 'postgres') await sql`select pg_advisory_xact_lock(${REALM_CREATION_LOCK})`.execute(tx);
}

/** The advisory lock key of the first organization's creation (migrations take 4242001). */
const REALM_CREATION_LOCK = 4242002;

export async function countRealms(db: Executor): Promise<number> {
  const row = await db.selectFrom('realms').select((eb) => eb.fn.countAll<number>().as('n')).where('string_id', '!=', SYSTEM_BOT_REALM).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Writes the full settings object and any changed top-level fields. */
export async function updateRealm(
  db: Executor,
  id: number,
  fields: { name?: string; description?: string; settings?: RealmSettings; deactivated?: boolean },
): Promise<void> {
  const values: Record<string, unknown> = {};
  if (fields.name !== undefined) values.name = fields.name;
  if (fields.description !== undefined) values.description = fields.description;
  if (fields.deactivated !== undefined) values.deactivated = fields.deactivated;
  if (fields.settings !== undefined) values.settings = JSON.stringify(fields.settings);
  if (Object.keys(values).length === 0) return;
  await db.updateTable('realms').set(values).where('id', '=', id).execute();
}

/** Every organization's subdomain (string_id). */
export async function realmStringIds(db: Executor): Promise<string[]> {
  return (await db.selectFrom('realms').select('string_id').execute()).map((r) => r.string_id);
}
