// Account creation for the operator's command line: no caller, so no permission check.
import type { Database } from '../store/db.js';
import { listRealms } from '../store/realms.js';
import { ROLE, requireUser, type RoleName } from '../store/users.js';
import { BadRequest } from '../errors.js';
import { hashPassword } from '../lib/secrets.js';
import { nowSeconds } from '../services.js';
import { insertAccount } from './users.js';
import { subscribeNewAccountToDefaults } from './subscription_writes.js';

export async function createAccountFromCli(
  database: Database,
  a: { email: string; password: string; fullName: string; role: string; realmId?: number },
) {
  if (!(a.role in ROLE)) throw new BadRequest(`--role must be one of ${Object.keys(ROLE).join(', ')}`);
  const role = ROLE[a.role as RoleName];
  const realms = await listRealms(database.db);
  const realm = a.realmId === undefined ? (realms.length === 1 ? realms[0] : undefined) : realms.find((r) => r.id === a.realmId);
  if (!realm) {
    throw new BadRequest(
      realms.length === 0 ? 'No organization exists yet: run create-org first' : a.realmId === undefined ? 'Several organizations exist: give --realm-id' : `No organization with id ${a.realmId}`,
    );
  }
  const passwordHash = await hashPassword(a.password);
  // The new account joins the default channels, as every new human account does.
  const created = await database.transaction(async (tx) => {
    const account = await insertAccount(tx, { realmId: realm.id, email: a.email, fullName: a.fullName, role, passwordHash, now: nowSeconds(), canCreateUsers: role === ROLE.owner });
    const user = await requireUser(tx, account.id);
    await subscribeNewAccountToDefaults(tx, realm.id, user);
    return account;
  });
  return { realm_id: realm.id, user_id: created.id, email: created.email, api_key: created.api_key };
}
