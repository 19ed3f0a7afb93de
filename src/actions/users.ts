// Writes to user accounts. insertAccount is the one place an account row is made (organization
// owners, CLI users, POST /users, bots); the exported actions wrap it with permissions and events.
import type { Executor } from '../store/db.js';
import { insertUser, getUserByEmail, ROLE } from '../store/users.js';
import { setSystemGroupMembership } from '../store/groups.js';
import { BadRequest } from '../errors.js';
import { generateApiKey } from '../lib/secrets.js';

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
