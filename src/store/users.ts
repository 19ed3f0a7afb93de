// Users and bots. Roles follow Zulip's numbers; personal settings are a JSON object of the values
// that differ from the defaults (src/lib/user_settings.ts).
import type { Executor } from './db.js';

export const ROLE = {
  owner: 100,
  administrator: 200,
  moderator: 300,
  member: 400,
  guest: 600,
} as const;
export type RoleName = keyof typeof ROLE;
export const ROLE_VALUES: readonly number[] = Object.values(ROLE);

export const BOT_TYPE = { generic: 1, incoming_webhook: 2, outgoing_webhook: 3, embedded: 4 } as const;

export interface User {
  id: number;
  realm_id: number;
  email: string;
  full_name: string;
  role: number;
  is_bot: boolean;
  bot_type: number | null;
  bot_owner_id: number | null;
  is_active: boolean;
  api_key: string;
  password_hash: string | null;
  can_create_users: boolean;
  date_joined: number;
  timezone: string;
  avatar_version: number;
  settings: Record<string, unknown>;
}

type UserRow = Omit<User, 'is_bot' | 'is_active' | 'can_create_users' | 'settings'> & {
  is_bot: boolean | number;
  is_active: boolean | number;
  can_create_users: boolean | number;
  settings: string;
};

function userFromRow(row: UserRow): User {
  return {
    ...row,
    date_joined: Number(row.date_joined),
    is_bot: !!row.is_bot,
    is_active: !!row.is_active,
    can_create_users: !!row.can_create_users,
    settings: JSON.parse(row.settings) as Record<string, unknown>,
  };
}

export interface NewUser {
  realm_id: number;
  email: string;
  full_name: string;
  role: number;
  api_key: string;
  password_hash: string | null;
  date_joined: number;
  is_bot?: boolean;
  bot_type?: number | null;
  bot_owner_id?: number | null;
  can_create_users?: boolean;
  timezone?: string;
}

export async function insertUser(db: Executor, u: NewUser): Promise<number> {
  const row = await db
    .insertInto('users')
    .values({
      realm_id: u.realm_id,
      email: u.email,
      full_name: u.full_name,
      role: u.role,
      is_bot: u.is_bot ?? false,
      bot_type: u.bot_type ?? null,
      bot_owner_id: u.bot_owner_id ?? null,
      is_active: true,
      api_key: u.api_key,
      password_hash: u.password_hash,
      can_create_users: u.can_create_users ?? false,
      date_joined: u.date_joined,
      timezone: u.timezone ?? '',
      avatar_version: 1,
      settings: '{}',
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function getUser(db: Executor, id: number): Promise<User | undefined> {
  const row = await db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? userFromRow(row) : undefined;
}

/** The organization's accounts among these ids (any others are left out): one indexed query. */
export async function getRealmUsersByIds(db: Executor, realmId: number, ids: readonly number[]): Promise<User[]> {
  if (ids.length === 0) return [];
  const rows = await db.selectFrom('users').selectAll().where('realm_id', '=', realmId).where('id', 'in', ids).execute();
  return rows.map(userFromRow);
}

/**
 * The organization's accounts an address may name: the one with this email, and the one whose
 * placeholder address ("user<id>@…") it has the form of; the caller decides which the viewer may use.
 */
export async function getRealmUsersByAddress(db: Executor, realmId: number, address: string): Promise<User[]> {
  const lower = address.toLowerCase();
  const placeholderId = /^user(\d{1,15})@/.exec(lower)?.[1];
  const id = placeholderId === undefined ? undefined : Number(placeholderId);
  const rows = await db
    .selectFrom('users')
    .selectAll()
    .where('realm_id', '=', realmId)
    .where((eb) => {
      const byEmail = eb(eb.fn('lower', ['email']), '=', lower);
      return id === undefined || !Number.isSafeInteger(id) ? byEmail : eb.or([byEmail, eb('id', '=', id)]);
    })
    .execute();
  return rows.map(userFromRow);
}

/** Every account with this email, in any organization (emails compare case-insensitively). */
export async function getUsersByEmail(db: Executor, email: string): Promise<User[]> {
  const rows = await db
    .selectFrom('users')
    .selectAll()
    .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
    .execute();
  return rows.map(userFromRow);
}

export async function getUserByEmail(db: Executor, realmId: number, email: string): Promise<User | undefined> {
  const row = await db
    .selectFrom('users')
    .selectAll()
    .where('realm_id', '=', realmId)
    .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
    .executeTakeFirst();
  return row ? userFromRow(row) : undefined;
}

export async function listRealmUsers(db: Executor, realmId: number): Promise<User[]> {
  const rows = await db.selectFrom('users').selectAll().where('realm_id', '=', realmId).orderBy('id').execute();
  return rows.map(userFromRow);
}

export async function updateUser(
  db: Executor,
  id: number,
  fields: Partial<Pick<User, 'full_name' | 'role' | 'is_active' | 'api_key' | 'password_hash' | 'email' | 'timezone' | 'avatar_version' | 'bot_owner_id' | 'can_create_users'>> & {
    settings?: Record<string, unknown>;
  },
): Promise<void> {
  const { settings, ...rest } = fields;
  const values: Record<string, unknown> = { ...rest };
  if (settings !== undefined) values.settings = JSON.stringify(settings);
  if (Object.keys(values).length === 0) return;
  await db.updateTable('users').set(values).where('id', '=', id).execute();
}

/**
 * Users with an active subscription to a channel the given user is actively subscribed to: the
 * people a guest without access to everyone may still see (Zulip's can_access_all_users_group).
 */
/**
 * The users who share a conversation with the user: an active subscription to a common channel,
 * or a direct-message conversation (Zulip's rule for whom a restricted guest may see).
 */
export async function usersSharingConversationWith(db: Executor, userId: number): Promise<Set<number>> {
  const [channelPeers, dmPeers] = await Promise.all([
    db
      .selectFrom('subscriptions as mine')
      .innerJoin('subscriptions as theirs', 'theirs.stream_id', 'mine.stream_id')
      .select('theirs.user_id')
      .distinct()
      .where('mine.user_id', '=', userId)
      .where('mine.active', '=', true)
      .where('theirs.active', '=', true)
      .execute(),
    db
      .selectFrom('direct_message_group_members as mine')
      .innerJoin('direct_message_group_members as theirs', 'theirs.group_id', 'mine.group_id')
      .select('theirs.user_id')
      .distinct()
      .where('mine.user_id', '=', userId)
      .execute(),
  ]);
  return new Set([...channelPeers, ...dmPeers].map((r) => r.user_id));
}

/** The account an API key belongs to (incoming webhooks and `?api_key=` downloads); the key is unique. */
export async function getUserByApiKey(db: Executor, apiKey: string): Promise<User | undefined> {
  const row = await db.selectFrom('users').selectAll().where('api_key', '=', apiKey).executeTakeFirst();
  return row ? userFromRow(row) : undefined;
}

/**
 * The users whose external-account profile field of this kind (field_data subtype, e.g. "github")
 * holds this username: how Zulip's GitHub integration names a sender who is also a user here.
 */
export async function usersWithExternalAccount(db: Executor, realmId: number, subtype: string, username: string): Promise<number[]> {
  // field_type 7 is Zulip's EXTERNAL_ACCOUNT; the subtype sits in the field's JSON data.
  const fields = await db.selectFrom('custom_profile_fields').select(['id', 'field_data']).where('realm_id', '=', realmId).where('field_type', '=', 7).execute();
  const ids = fields
    .filter((f) => {
      try {
        return (JSON.parse(f.field_data) as { subtype?: unknown }).subtype === subtype;
      } catch {
        return false;
      }
    })
    .map((f) => f.id);
  if (ids.length === 0) return [];
  const rows = await db.selectFrom('custom_profile_field_values').select('user_id').where('realm_id', '=', realmId).where('field_id', 'in', ids).where('value', '=', username).execute();
  return [...new Set(rows.map((r) => r.user_id))];
}

/** The ids of the organization's active accounts (bots included). */
export async function activeUserIds(db: Executor, realmId: number): Promise<number[]> {
  return (await db.selectFrom('users').select('id').where('realm_id', '=', realmId).where('is_active', '=', true).execute()).map((r) => r.id);
}

/** An account that exists (one just created in this transaction). */
export async function requireUser(db: Executor, id: number): Promise<User> {
  return userFromRow(await db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirstOrThrow());
}
