// Writes to user accounts. insertAccount is the one place an account row is made (organization
// owners, CLI users, POST /users, bots); the exported actions wrap it with permissions and events.
import type { Executor } from '../store/db.js';
import { insertUser, getUserByEmail, ROLE, userFromRow } from '../store/users.js';
import { setSystemGroupMembership } from '../store/groups.js';
import { BadRequest } from '../errors.js';
import { generateApiKey } from '../lib/secrets.js';
import type { Services } from '../services.js';
import { nowSeconds } from '../services.js';
import type { Realm } from '../store/realms.js';
import type { User } from '../store/users.js';
import { BOT_TYPE, updateUser, ROLE_VALUES } from '../store/users.js';
import { isUserInGroup } from '../store/cache.js';
import { hashPassword } from '../lib/secrets.js';
import { NotAllowed, NoSuchUser } from '../errors.js';
import { publishAfterCommit } from '../events/publish.js';
import { formatUser } from '../http/shapes/users.js';
import { isRealmAdmin } from './channel_access.js';
import { realmUrl } from '../http/shapes/realm.js';

const EMAIL_RE = /^[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:"]+\.[^\s@<>()[\]\\,;:"]+$/;
export const MAX_NAME_LENGTH = 100;

export function validateEmail(email: string): string {
  const e = email.trim();
  if (!EMAIL_RE.test(e) || e.length > 254) throw new BadRequest(`Invalid email '${email}'`);
  return e;
}

export function validateFullName(name: string): string {
  const n = name.trim();
  if (!n) throw new BadRequest('Name too short!');
  if (n.length > MAX_NAME_LENGTH) throw new BadRequest('Name too long!');
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f\x7f]/.test(n)) throw new BadRequest('Invalid characters in name!');
  return n;
}

export interface NewAccount {
  realmId: number;
  email: string;
  fullName: string;
  role: number;
  /** Hash the password (hashPassword) before the transaction: Argon2 is slow on purpose. */
  passwordHash: string | null;
  now: number;
  isBot?: boolean;
  botType?: number | null;
  botOwnerId?: number | null;
  canCreateUsers?: boolean;
}

/** Inserts an account (inside the caller's transaction) and puts it in its role's system groups. */
export async function insertAccount(tx: Executor, a: NewAccount) {
  const email = validateEmail(a.email);
  const fullName = validateFullName(a.fullName);
  if (!Object.values(ROLE).includes(a.role as never)) throw new BadRequest('Invalid role');
  if (await getUserByEmail(tx, a.realmId, email)) throw new BadRequest(`Email '${email}' already in use`);
  const apiKey = generateApiKey();
  const id = await insertUser(tx, {
    realm_id: a.realmId,
    email,
    full_name: fullName,
    role: a.role,
    api_key: apiKey,
    password_hash: a.passwordHash,
    date_joined: a.now,
    is_bot: a.isBot ?? false,
    bot_type: a.botType ?? null,
    bot_owner_id: a.botOwnerId ?? null,
    can_create_users: a.canCreateUsers ?? false,
  });
  await setSystemGroupMembership(tx, a.realmId, id, a.role);
  return { id, email, api_key: apiKey };
}

// ---- actions behind the API ----


/** Everyone active in the organization: the audience of realm_user events. */
async function activeUserIds(services: Services, realmId: number): Promise<number[]> {
  return [...(await services.cache.users(realmId)).values()].filter((u) => u.is_active).map((u) => u.id);
}

function afterUserChange(services: Services, realmId: number) {
  services.cache.invalidateUsers(realmId);
  services.cache.invalidateGroups(realmId);
}

/** POST /users: only callers Zulip lets create accounts (can_create_users). */
export async function createUserByApi(services: Services, caller: User, realm: Realm, a: { email: string; password: string; fullName: string }) {
  if (!caller.can_create_users) throw new NotAllowed('User not authorized to create users');
  const email = validateEmail(a.email);
  validateFullName(a.fullName);
  if (!a.password) throw new BadRequest('Password must not be empty');
  const passwordHash = await hashPassword(a.password);
  const audience = await activeUserIds(services, realm.id);
  return services.database.transaction(async (tx, onCommit) => {
    const created = await insertAccount(tx, { realmId: realm.id, email, fullName: a.fullName, role: ROLE.member, passwordHash, now: nowSeconds() });
    onCommit(() => afterUserChange(services, realm.id));
    const row = await tx.selectFrom('users').selectAll().where('id', '=', created.id).executeTakeFirstOrThrow();
    const person = formatUser(userFromRow(row), { includeCustomProfileFields: true });
    publishAfterCommit(services, onCommit, { realmId: realm.id, userIds: [...audience, created.id], event: { type: 'realm_user', op: 'add', person } });
    return { user_id: created.id };
  });
}

/** PATCH /users/{user_id}: organization administrators change a name or a role. */
export async function updateUserByAdmin(services: Services, caller: User, realm: Realm, targetId: number, change: { fullName?: string; role?: number }) {
  const users = await services.cache.users(realm.id);
  const target = users.get(targetId);
  if (!target) throw new NoSuchUser();
  if (!isRealmAdmin(caller)) throw new NotAllowed('Insufficient permission');
  const fullName = change.fullName === undefined ? undefined : validateFullName(change.fullName);
  const role = change.role;
  if (role !== undefined) {
    if (!ROLE_VALUES.includes(role)) throw new BadRequest('Invalid role');
    if ((role === ROLE.owner || target.role === ROLE.owner) && role !== target.role && caller.role !== ROLE.owner) {
      throw new NotAllowed('Must be an organization owner');
    }
    if (target.role === ROLE.owner && role !== ROLE.owner) {
      const owners = [...users.values()].filter((u) => u.is_active && !u.is_bot && u.role === ROLE.owner);
      if (owners.length <= 1) throw new BadRequest('The owner permission cannot be removed from the only organization owner.');
    }
  }
  const audience = await activeUserIds(services, realm.id);
  await services.database.transaction(async (tx, onCommit) => {
    if (fullName !== undefined && fullName !== target.full_name) {
      await updateUser(tx, target.id, { full_name: fullName });
      publishAfterCommit(services, onCommit, { realmId: realm.id, userIds: audience, event: { type: 'realm_user', op: 'update', person: { user_id: target.id, full_name: fullName } } });
    }
    if (role !== undefined && role !== target.role) {
      await updateUser(tx, target.id, { role });
      await setSystemGroupMembership(tx, realm.id, target.id, role);
      publishAfterCommit(services, onCommit, { realmId: realm.id, userIds: audience, event: { type: 'realm_user', op: 'update', person: { user_id: target.id, role } } });
    }
    onCommit(() => afterUserChange(services, realm.id));
  });
}

const SHORT_NAME_RE = /^[a-zA-Z0-9_.-]+$/;

/** The object realm_bot events and /register's realm_bots carry. */
export function formatBot(bot: User): Record<string, unknown> {
  return {
    user_id: bot.id,
    full_name: bot.full_name,
    api_key: bot.api_key,
    default_sending_stream: null,
    default_events_register_stream: null,
    default_all_public_streams: false,
    avatar_url: formatUser(bot).avatar_url,
    owner_id: bot.bot_owner_id,
    services: [],
    email: bot.email,
    bot_type: bot.bot_type,
    is_active: bot.is_active,
  };
}

/** POST /bots: the caller creates and owns a bot. */
export async function createBot(services: Services, owner: User, realm: Realm, b: { fullName: string; shortName: string; botType: number }) {
  const graph = await services.cache.groupGraph(realm.id);
  if (owner.role === ROLE.guest || owner.is_bot) throw new NotAllowed('Insufficient permission');
  if (b.botType === BOT_TYPE.generic) {
    if (!isUserInGroup(graph, owner.id, realm.settings.can_create_bots_group)) throw new NotAllowed('Insufficient permission');
  } else if (b.botType === BOT_TYPE.incoming_webhook) {
    if (!isUserInGroup(graph, owner.id, realm.settings.can_create_write_only_bots_group) && !isUserInGroup(graph, owner.id, realm.settings.can_create_bots_group)) {
      throw new NotAllowed('Insufficient permission');
    }
  } else if (b.botType === BOT_TYPE.outgoing_webhook || b.botType === BOT_TYPE.embedded) {
    throw new BadRequest('Outgoing webhook and embedded bots are not supported by this server');
  } else {
    throw new BadRequest('Invalid bot type');
  }
  const fullName = validateFullName(b.fullName);
  let shortName = b.shortName.trim().toLowerCase();
  if (!shortName || !SHORT_NAME_RE.test(shortName)) throw new BadRequest('Bad name or username');
  if (!shortName.endsWith('-bot')) shortName += '-bot';
  const domain = new URL(realmUrl(realm, services.config.externalUrl)).hostname;
  const email = `${shortName}@${domain.includes('.') ? domain : `${domain}.localdomain`}`;
  const audience = await activeUserIds(services, realm.id);
  const admins = [...(await services.cache.users(realm.id)).values()].filter((u) => u.is_active && isRealmAdmin(u)).map((u) => u.id);
  return services.database.transaction(async (tx, onCommit) => {
    if (await getUserByEmail(tx, realm.id, email)) throw new BadRequest('Username already in use');
    const created = await insertAccount(tx, {
      realmId: realm.id,
      email,
      fullName,
      role: ROLE.member,
      passwordHash: null,
      now: nowSeconds(),
      isBot: true,
      botType: b.botType,
      botOwnerId: owner.id,
    });
    const row = await tx.selectFrom('users').selectAll().where('id', '=', created.id).executeTakeFirstOrThrow();
    const bot = userFromRow(row);
    onCommit(() => afterUserChange(services, realm.id));
    publishAfterCommit(services, onCommit, { realmId: realm.id, userIds: audience, event: { type: 'realm_user', op: 'add', person: formatUser(bot, { includeCustomProfileFields: true }) } });
    publishAfterCommit(services, onCommit, { realmId: realm.id, userIds: [...new Set([owner.id, ...admins])], event: { type: 'realm_bot', op: 'add', bot: formatBot(bot) } });
    return { user_id: created.id, api_key: created.api_key };
  });
}
