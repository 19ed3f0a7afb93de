// Writes to user accounts. insertAccount is the one place an account row is made (organization
// owners, CLI users, POST /users, bots); the exported actions wrap it with permissions and events.
import type { RealmEmailDomains } from '../lib/realm_email_domains.js';
import type { Executor } from '../store/db.js';
import { insertUser, getUserByEmail, ROLE, ROLE_VALUES, BOT_TYPE, updateUser, usersSharingConversationWith, requireUser } from '../store/users.js';
import type { User } from '../store/users.js';
import { setSystemGroupMembership } from '../store/groups.js';
import { getRealm } from '../store/realms.js';
import type { Realm } from '../store/realms.js';
import { isUserInGroup, type GroupGraph } from '../store/cache.js';
import { BadRequest, NotAllowed, NoSuchUser, OwnerRequired } from '../errors.js';
import { generateApiKey, hashPassword, passwordStrongEnough } from '../lib/secrets.js';
import type { Services } from '../services.js';
import { nowSeconds } from '../services.js';
import { requireMemberOrAdmin, requireRealmAdmin } from '../access/roles.js';
import { publishAfterCommit, type OnCommit } from '../events/publish.js';
import { canSeeDeliveryEmail, formatUser, apiEmail } from '../shapes/users.js';
import { botDomain } from '../shapes/realm.js';
import { channelAccess, isRealmAdmin } from '../access/channel_access.js';
import { subscribeNewAccountToDefaults } from './subscription_writes.js';
import { realmUserDefaultOverrides } from '../store/realm_user_defaults.js';
import { formatStream, subscriptionEvents } from '../shapes/channels.js';
import { activeUserSubscriberIds, listRealmStreams, type Stream } from '../store/channels.js';
import type { ConfabEvent } from '../events/types.js';
import { INTERFACE, insertService, type BotService } from '../store/outgoing_webhooks.js';
import { emailDomainsToCheck, emailRefusal } from './realm_domains.js';
import { onConflict } from '../store/conflicts.js';

const EMAIL_RE = /^[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:"]+\.[^\s@<>()[\]\\,;:"]+$/;
export const MAX_NAME_LENGTH = 100;
const MIN_NAME_LENGTH = 2;
/** Characters Zulip refuses in names: they would confuse mention syntax. */
const NAME_INVALID_CHARS = ['*', '`', '\\', '>', '"', '@'];

/** Whether an address (already trimmed) has the shape of one. */
export function isEmailAddress(e: string): boolean {
  return EMAIL_RE.test(e) && e.length <= 254;
}

export function validateEmail(email: string): string {
  const e = email.trim();
  if (!EMAIL_RE.test(e) || e.length > 254) throw new BadRequest(`Invalid email '${email}'`);
  return e;
}

/** Zulip's check_full_name: the rules for a name a person or a bot is given through the API. */
export function validateFullName(name: string): string {
  const n = name.trim();
  if (n.length > MAX_NAME_LENGTH) throw new BadRequest('Name too long!');
  if (n.length < MIN_NAME_LENGTH) throw new BadRequest('Name too short!');
  if (/\p{C}/u.test(n) || NAME_INVALID_CHARS.some((c) => n.includes(c))) throw new BadRequest('Invalid characters in name!');
  // "Name|15" would read as a mention of user 15 to careless mention parsers.
  if (/\|\d+$/.test(name)) throw new BadRequest('Invalid format!');
  return n;
}

/** With require_unique_names, no two accounts may share a name (compared case- and width-insensitively). */
export function checkUniqueName(realm: Realm, users: Iterable<User>, name: string, exceptId?: number): void {
  if (!realm.settings.require_unique_names) return;
  const norm = (s: string) => s.normalize('NFKC').toLowerCase();
  const wanted = norm(name);
  for (const u of users) if (u.id !== exceptId && norm(u.full_name) === wanted) throw new BadRequest('Unique names required in this organization.');
}

/** The looser check for accounts made by the operator (CLI, organization creation). */
function cleanAccountName(name: string): string {
  const n = name.trim();
  if (!n) throw new BadRequest('Name too short!');
  if (n.length > MAX_NAME_LENGTH) throw new BadRequest('Name too long!');
  if (/\p{Cc}/u.test(n)) throw new BadRequest('Invalid characters in name!');
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
  const fullName = cleanAccountName(a.fullName);
  if (!ROLE_VALUES.includes(a.role)) throw new BadRequest('Invalid role');
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
  // The organization's defaults for new users become the account's own settings.
  const defaults = await realmUserDefaultOverrides(tx, a.realmId);
  if (Object.keys(defaults).length) await updateUser(tx, id, { settings: defaults });
  // A new account is a full member only when the organization has no waiting period.
  const fullMember = a.role !== ROLE.member || ((await getRealm(tx, a.realmId))?.settings.waiting_period_threshold ?? 0) === 0;
  await setSystemGroupMembership(tx, a.realmId, id, a.role, fullMember);
  return { id, email, api_key: apiKey };
}

// ---- who may see whom ----

/** Whether the organization hides some users from guests (can_access_all_users_group). */
function accessRestricted(graph: GroupGraph, realm: Realm): boolean {
  return realm.settings.can_access_all_users_group !== graph.systemIds['role:everyone'];
}

/**
 * The ids of the users the viewer may see, or null when the viewer may see everyone. A guest
 * outside can_access_all_users_group sees themself, bots, and people sharing a channel with them.
 * (Shared direct-message groups do not count here: the store does not index them by member.)
 */
export async function usersVisibleTo(services: Services, viewer: User, realm: Realm): Promise<Set<number> | null> {
  if (viewer.role !== ROLE.guest) return null;
  const graph = await services.cache.groupGraph(realm.id);
  if (!accessRestricted(graph, realm) || isUserInGroup(graph, viewer.id, realm.settings.can_access_all_users_group)) return null;
  const users = await services.cache.users(realm.id);
  const sharing = await usersSharingConversationWith(services.database.db, viewer.id);
  const out = new Set<number>([viewer.id]);
  for (const u of users.values()) if (u.is_bot || (u.is_active && sharing.has(u.id))) out.add(u.id);
  return out;
}

/**
 * Active users who may see the target: the audience of realm_user events about it. A new
 * account shares no channel yet, so hidden-from-guests organizations tell only non-guests.
 */
export async function audienceFor(services: Services, realm: Realm, target: { id: number; is_bot: boolean }, isNew = false): Promise<User[]> {
  const users = [...(await services.cache.users(realm.id)).values()].filter((u) => u.is_active);
  const graph = await services.cache.groupGraph(realm.id);
  if (target.is_bot || !accessRestricted(graph, realm)) return users;
  const sharing = isNew ? new Set<number>() : await usersSharingConversationWith(services.database.db, target.id);
  return users.filter((u) => u.role !== ROLE.guest || u.id === target.id || sharing.has(u.id));
}

function afterUserChange(services: Services, realmId: number) {
  services.cache.invalidateUsers(realmId);
  services.cache.invalidateGroups(realmId);
}

/** realm_user add, with the real address only for those allowed to see it. */
export function publishUserAdded(services: Services, onCommit: OnCommit, realmId: number, user: User, audience: User[]): void {
  const seeing = audience.filter((v) => canSeeDeliveryEmail(v, user)).map((v) => v.id);
  const notSeeing = audience.filter((v) => !canSeeDeliveryEmail(v, user)).map((v) => v.id);
  const person = (see: boolean) => formatUser(user, services.emailDomains, { includeCustomProfileFields: true, canSeeDeliveryEmail: see });
  publishAfterCommit(services, onCommit, { realmId, userIds: seeing, event: { type: 'realm_user', op: 'add', person: person(true) } });
  publishAfterCommit(services, onCommit, { realmId, userIds: notSeeing, event: { type: 'realm_user', op: 'add', person: person(false) } });
}

/** user_group events for a user's move between system groups (what Zulip sends on a role change). */
function publishSystemGroupMoves(services: Services, onCommit: OnCommit, realmId: number, userId: number, moves: { removed: number[]; added: number[] }, audience: number[]) {
  for (const groupId of moves.removed) {
    publishAfterCommit(services, onCommit, { realmId, userIds: audience, event: { type: 'user_group', op: 'remove_members', group_id: groupId, user_ids: [userId] } });
  }
  for (const groupId of moves.added) {
    publishAfterCommit(services, onCommit, { realmId, userIds: audience, event: { type: 'user_group', op: 'add_members', group_id: groupId, user_ids: [userId] } });
  }
}

async function rowAsUser(tx: Executor, id: number): Promise<User> {
  return requireUser(tx, id);
}

// ---- actions behind the API ----

/** POST /users: organization administrators who also hold can_create_users. */
export async function createUserByApi(services: Services, caller: User, realm: Realm, a: { email: string; password: string; fullName: string }) {
  requireRealmAdmin(caller);
  if (!caller.can_create_users) throw new NotAllowed('User not authorized to create users');
  const users = await services.cache.users(realm.id);
  const fullName = validateFullName(a.fullName);
  checkUniqueName(realm, users.values(), fullName);
  const email = a.email.trim();
  if (!EMAIL_RE.test(email) || email.length > 254) throw new BadRequest('Bad name or username');
  // As Zulip's create_user_backend: email_allowed_for_realm before the address is looked up.
  const refusal = emailRefusal(realm, await emailDomainsToCheck(services, realm), email);
  if (refusal === 'domain') throw new BadRequest(`Email '${email}' not allowed in this organization`);
  if (refusal === 'disposable') throw new BadRequest('Disposable email addresses are not allowed in this organization');
  if (refusal === 'plus') throw new BadRequest('Email addresses containing + are not allowed.');
  if ([...users.values()].some((u) => u.email.toLowerCase() === email.toLowerCase())) throw new BadRequest(`Email '${email}' already in use`);
  if (!passwordStrongEnough(a.password, services.config.passwordMinLength)) throw new BadRequest('The password is too weak.');
  const passwordHash = await hashPassword(a.password);
  const audience = await audienceFor(services, realm, { id: 0, is_bot: false }, true);
  const graph = await services.cache.groupGraph(realm.id);
  return onConflict(services.database.transaction(async (tx, onCommit) => {
    const created = await insertAccount(tx, { realmId: realm.id, email, fullName, role: ROLE.member, passwordHash, now: nowSeconds() });
    const user = await rowAsUser(tx, created.id);
    onCommit(() => afterUserChange(services, realm.id));
    publishUserAdded(services, onCommit, realm.id, user, [...audience, user]);
    // Then, as Zulip does for every new human account, the default channels and their events.
    const outcome = await subscribeNewAccountToDefaults(tx, realm.id, user);
    if (outcome) {
      for (const e of subscriptionEvents(graph, [...users.values(), user], [], outcome, undefined)) {
        publishAfterCommit(services, onCommit, { realmId: realm.id, userIds: e.userIds, event: e.event });
      }
    }
    return { user_id: created.id };
  }), () => new BadRequest(`Email '${email}' already in use`));
}

/** PATCH /users/{user_id}: administrators (or a bot's owner, for the bot's name) change a name or a role. */
export async function updateUserByAdmin(
  services: Services,
  caller: User,
  realm: Realm,
  targetId: number,
  change: { fullName?: string; role?: number },
  /** Further writes of the same request (profile_data), checked by the caller, in the same transaction. */
  alsoWrite?: (target: User) => Promise<((tx: Executor, onCommit: OnCommit) => Promise<void>) | undefined>,
) {
  const users = await services.cache.usersIncluding(realm.id, [targetId]);
  const target = users.get(targetId);
  if (!target) throw new NoSuchUser();
  const ownsBot = target.is_bot && target.bot_owner_id === caller.id;
  if (!isRealmAdmin(caller) && !ownsBot) throw new NotAllowed('Insufficient permission');
  const role = change.role !== undefined && change.role !== target.role ? change.role : undefined;
  if (role !== undefined) {
    if (!ROLE_VALUES.includes(role)) throw new BadRequest('Invalid role');
    if ((role === ROLE.owner || target.role === ROLE.owner) && caller.role !== ROLE.owner) throw new OwnerRequired();
    requireRealmAdmin(caller);
    if (target.role === ROLE.owner && !target.is_bot) {
      const owners = [...users.values()].filter((u) => u.is_active && !u.is_bot && u.role === ROLE.owner);
      if (owners.length <= 1) throw new BadRequest('The owner permission cannot be removed from the only organization owner.');
    }
  }
  // Like Zulip, a blank name is ignored rather than refused: the request is an administrator's.
  const raw = change.fullName;
  const fullName = raw !== undefined && raw !== target.full_name && raw.trim() !== '' ? validateFullName(raw) : undefined;
  if (fullName !== undefined) checkUniqueName(realm, users.values(), fullName, target.id);
  const extra = alsoWrite ? await alsoWrite(target) : undefined;
  if (role === undefined && (fullName === undefined || fullName === target.full_name) && !extra) return;

  const audience = (await audienceFor(services, realm, target)).map((u) => u.id);
  const everyone = [...users.values()].filter((u) => u.is_active).map((u) => u.id);
  const botAudience = [...new Set([...[...users.values()].filter((u) => u.is_active && !u.is_bot && isRealmAdmin(u)).map((u) => u.id), ...(target.bot_owner_id ? [target.bot_owner_id] : [])])];
  const graph = await services.cache.groupGraph(realm.id);
  await services.database.transaction(async (tx, onCommit) => {
    if (fullName !== undefined && fullName !== target.full_name) {
      await updateUser(tx, target.id, { full_name: fullName });
      const person = { user_id: target.id, full_name: fullName };
      publishAfterCommit(services, onCommit, { realmId: realm.id, userIds: audience, event: { type: 'realm_user', op: 'update', person } });
      if (target.is_bot) publishAfterCommit(services, onCommit, { realmId: realm.id, userIds: botAudience, event: { type: 'realm_bot', op: 'update', bot: person } });
    }
    if (role !== undefined) {
      await updateUser(tx, target.id, { role });
      const threshold = realm.settings.waiting_period_threshold;
      const fullMember = nowSeconds() - target.date_joined >= threshold * 86400;
      const moves = await setSystemGroupMembership(tx, realm.id, target.id, role, fullMember);
      publishAfterCommit(services, onCommit, { realmId: realm.id, userIds: audience, event: { type: 'realm_user', op: 'update', person: { user_id: target.id, role } } });
      publishSystemGroupMoves(services, onCommit, realm.id, target.id, moves, everyone);
      for (const e of await roleChannelEvents(tx, graph, realm.id, target, role, moves)) {
        publishAfterCommit(services, onCommit, { realmId: realm.id, userIds: [target.id], event: e });
      }
    }
    if (extra) await extra(tx, onCommit);
    onCommit(() => afterUserChange(services, realm.id));
  });
}

/**
 * Zulip's send_stream_events_for_role_update: the channels (not archived) the user may see after a
 * role change and could not before come whole in one stream/create, each followed by a peer_add of
 * its subscribers; those it no longer may see go in one stream/delete.
 */
async function roleChannelEvents(
  tx: Executor,
  graph: GroupGraph,
  realmId: number,
  target: User,
  role: number,
  moves: { removed: number[]; added: number[] },
): Promise<ConfabEvent[]> {
  const streams = (await listRealmStreams(tx, realmId)).filter((s) => !s.is_archived);
  if (streams.length === 0) return [];
  const subscribers = await activeUserSubscriberIds(tx, streams.map((s) => s.id));
  // The graph as it is after the move between system groups.
  const members = new Map(graph.members);
  for (const id of moves.removed) members.set(id, new Set([...(members.get(id) ?? [])].filter((u) => u !== target.id)));
  for (const id of moves.added) members.set(id, new Set([...(members.get(id) ?? []), target.id]));
  const afterGraph: GroupGraph = { ...graph, members };
  const after: User = { ...target, role };
  const gained: Stream[] = [];
  const lost: Stream[] = [];
  for (const stream of streams) {
    const subscribed = (subscribers.get(stream.id) ?? []).includes(target.id);
    const before = channelAccess(graph, target, stream, subscribed).metadata;
    const now = channelAccess(afterGraph, after, stream, subscribed).metadata;
    if (now && !before) gained.push(stream);
    if (before && !now) lost.push(stream);
  }
  const out: ConfabEvent[] = [];
  if (gained.length) {
    out.push({ type: 'stream', op: 'create', streams: gained.map((s) => formatStream(s, afterGraph, subscribers.get(s.id)?.length ?? 0)) });
    for (const s of gained) {
      const ids = subscribers.get(s.id) ?? [];
      if (ids.length) out.push({ type: 'subscription', op: 'peer_add', stream_ids: [s.id], user_ids: [...ids] });
    }
  }
  if (lost.length) out.push({ type: 'stream', op: 'delete', streams: lost.map((s) => ({ stream_id: s.id })), stream_ids: lost.map((s) => s.id) });
  return out;
}

/** An outgoing-webhook bot's entry in `services` (Zulip's shape; embedded bots are not supported). */
export function formatService(s: BotService): Record<string, unknown> {
  return { base_url: s.base_url, interface: s.interface, token: s.token };
}

/** The object realm_bot events and /register's realm_bots carry. */
export function formatBot(bot: User, domains: RealmEmailDomains, service?: BotService): Record<string, unknown> {
  return {
    user_id: bot.id,
    full_name: bot.full_name,
    api_key: bot.api_key,
    default_sending_stream: null,
    default_events_register_stream: null,
    default_all_public_streams: false,
    avatar_url: formatUser(bot, domains).avatar_url,
    owner_id: bot.bot_owner_id,
    services: service ? [formatService(service)] : [],
    email: apiEmail(bot, domains),
    bot_type: bot.bot_type,
    is_active: bot.is_active,
  };
}

/** Zulip's check_valid_interface_type. */
export function checkInterfaceType(n: number): void {
  if (n !== INTERFACE.zulip && n !== INTERFACE.slack) throw new BadRequest('Invalid interface type');
}

/** Zulip's check_bot_creation_policy: generic bots need can_create_bots_group; webhook bots either group. */
export function mayCreateBot(graph: GroupGraph, realm: Realm, owner: User, botType: number): boolean {
  if (isUserInGroup(graph, owner.id, realm.settings.can_create_bots_group)) return true;
  return botType === BOT_TYPE.incoming_webhook && isUserInGroup(graph, owner.id, realm.settings.can_create_write_only_bots_group);
}

/** POST /bots: the caller creates and owns a bot (generic, incoming or outgoing webhook). */
export async function createBot(
  services: Services,
  owner: User,
  realm: Realm,
  b: { fullName: string; shortName: string; botType: number; payloadUrl?: string; interfaceType?: number; serviceName?: string },
) {
  requireMemberOrAdmin(owner);
  const shortName = b.shortName.trim();
  // The address's local part: Zulip appends "-bot" to whatever short name is given.
  if (!shortName || !/^[A-Za-z0-9_.+-]+$/.test(shortName) || shortName.length > 64) throw new BadRequest('Bad name or username');
  const fullName = validateFullName(b.fullName);
  const users = await services.cache.users(realm.id);
  checkUniqueName(realm, users.values(), fullName);
  const email = `${shortName}-bot@${botDomain(realm, services.config.externalUrl)}`;
  if (b.botType === BOT_TYPE.embedded) throw new BadRequest('Embedded bots are not enabled.');
  if ([...users.values()].some((u) => u.email.toLowerCase() === email.toLowerCase())) throw new BadRequest('Username already in use');
  if ([...users.values()].some((u) => u.is_active && u.full_name === fullName)) throw new BadRequest('Name is already in use.');
  const graph = await services.cache.groupGraph(realm.id);
  if (!mayCreateBot(graph, realm, owner, b.botType)) throw new NotAllowed('Insufficient permission');
  if (b.botType !== BOT_TYPE.generic && b.botType !== BOT_TYPE.incoming_webhook && b.botType !== BOT_TYPE.outgoing_webhook) throw new BadRequest('Invalid bot type');
  const interfaceType = b.interfaceType ?? INTERFACE.zulip;
  checkInterfaceType(interfaceType);

  const admins = [...users.values()].filter((u) => u.is_active && !u.is_bot && isRealmAdmin(u)).map((u) => u.id);
  const audience = await audienceFor(services, realm, { id: 0, is_bot: true }, true);
  return onConflict(services.database.transaction(async (tx, onCommit) => {
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
    const bot = await rowAsUser(tx, created.id);
    let service: BotService | undefined;
    if (b.botType === BOT_TYPE.outgoing_webhook) {
      // Zulip names the service after the short name and gives it its own token, apart from the API key.
      service = { bot_id: bot.id, name: b.serviceName || shortName, base_url: b.payloadUrl ?? '', interface: interfaceType, token: generateApiKey() };
      await insertService(tx, service);
    }
    onCommit(() => afterUserChange(services, realm.id));
    publishUserAdded(services, onCommit, realm.id, bot, audience);
    publishAfterCommit(services, onCommit, { realmId: realm.id, userIds: [...new Set([owner.id, ...admins])], event: { type: 'realm_bot', op: 'add', bot: formatBot(bot, services.emailDomains, service) } });
    const shaped = formatBot(bot, services.emailDomains);
    return {
      user_id: created.id,
      api_key: created.api_key,
      avatar_url: shaped.avatar_url,
      default_sending_stream: null,
      default_events_register_stream: null,
      default_all_public_streams: false,
    };
  }), () => new BadRequest('Username already in use'));
}
