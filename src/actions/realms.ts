// Creating an organization: the realm row, its system groups, its group settings pointing at
// them, and the owner account, all in one transaction.
import type { Database } from '../store/db.js';
import { countRealms, insertRealm, lockRealmCreation, realmStringIds, REALM_GROUP_SETTING_DEFAULTS, REALM_SETTING_DEFAULTS, SYSTEM_BOT_REALM, updateRealm, type RealmSettings } from '../store/realms.js';
import type { Executor } from '../store/db.js';
import { createSystemGroups } from '../store/groups.js';
import { ROLE } from '../store/users.js';
import { BadRequest } from '../errors.js';
import { nowSeconds } from '../services.js';
import { hashPassword } from '../lib/secrets.js';
import { insertAccount } from './users.js';

export interface NewOrganization {
  name: string;
  ownerEmail: string;
  ownerPassword: string | null;
  ownerName?: string;
  /** The subdomain; '' for the organization at the server's root. */
  stringId?: string;
}

export interface CreatedOrganization {
  realm_id: number;
  user_id: number;
  email: string;
  api_key: string;
}

function subdomainFrom(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 40) || 'org';
}

/** The organization row, its system groups and its group settings pointing at them. */
export async function insertRealmWithGroups(tx: Executor, stringId: string, name: string, now: number): Promise<number> {
  const realmId = await insertRealm(tx, { string_id: stringId, name, date_created: now });
  const groups = await createSystemGroups(tx, realmId, now);
  const settings = { ...REALM_SETTING_DEFAULTS } as Record<string, unknown>;
  for (const [key, groupName] of Object.entries(REALM_GROUP_SETTING_DEFAULTS)) settings[key] = groups[groupName];
  await updateRealm(tx, realmId, { settings: settings as RealmSettings });
  return realmId;
}

export async function createOrganization(database: Database, org: NewOrganization): Promise<CreatedOrganization> {
  const { name, passwordHash, now } = await prepare(org);
  return database.transaction((tx) => insertOrganization(tx, org, name, passwordHash, now));
}

/**
 * The first organization of an empty server (`confab serve`'s first start): made only if there is
 * none yet, and then by one process alone. Servers started together on a fresh database each get
 * here; the check and the creation share one transaction that holds the lock first (SQLite: the
 * writer's BEGIN IMMEDIATE; PostgreSQL: an advisory lock), so the others wait, then find it and
 * get null.
 */
export async function createFirstOrganization(database: Database, org: NewOrganization): Promise<CreatedOrganization | null> {
  // Most starts find an organization: no password hash, no write transaction.
  if ((await countRealms(database.db)) > 0) return null;
  const { name, passwordHash, now } = await prepare(org);
  return database.transaction(async (tx) => {
    await lockRealmCreation(tx, database.dialect);
    if ((await countRealms(tx)) > 0) return null;
    return insertOrganization(tx, org, name, passwordHash, now);
  });
}

/** The checks and the password hash, before any transaction (hashing takes a while). */
async function prepare(org: NewOrganization): Promise<{ name: string; passwordHash: string | null; now: number }> {
  const name = org.name.trim();
  if (!name) throw new BadRequest('Organization name is required');
  if (name.length > 40) throw new BadRequest('Organization name is too long');
  const now = nowSeconds();
  const passwordHash = org.ownerPassword === null ? null : await hashPassword(org.ownerPassword);
  return { name, passwordHash, now };
}

async function insertOrganization(tx: Executor, org: NewOrganization, name: string, passwordHash: string | null, now: number): Promise<CreatedOrganization> {
  let stringId = org.stringId ?? subdomainFrom(name);
  // The first organization of a server lives at its root; others get a unique subdomain. The
  // system bots' internal organization counts as taken but not as a first organization.
  const taken = new Set(await realmStringIds(tx));
  taken.add(SYSTEM_BOT_REALM);
  if (org.stringId === undefined && taken.size === 1) stringId = '';
  if (taken.has(stringId)) {
    if (org.stringId !== undefined) throw new BadRequest(`Subdomain '${stringId}' is already in use`);
    let n = 2;
    while (taken.has(`${stringId}-${n}`)) n++;
    stringId = `${stringId}-${n}`;
  }
  const realmId = await insertRealmWithGroups(tx, stringId, name, now);
  const owner = await insertAccount(tx, {
    realmId,
    email: org.ownerEmail,
    fullName: org.ownerName ?? org.ownerEmail.split('@')[0]!,
    role: ROLE.owner,
    passwordHash,
    canCreateUsers: true,
    now,
  });
  return { realm_id: realmId, user_id: owner.id, email: owner.email, api_key: owner.api_key };
}
