// Changing one's email address: a confirmation link goes to the new address, and the address
// changes only when that link is followed.
import { randomBytes } from 'node:crypto';
import type { Services } from '../services.js';
import { nowSeconds } from '../services.js';
import type { Realm } from '../store/realms.js';
import type { User } from '../store/users.js';
import { activeUserIds, getUser, getUserByEmail, updateUser } from '../store/users.js';
import { emailChangeByKey, insertEmailChange, markEmailChangeUsed } from '../store/email_changes.js';
import { BadRequest } from '../errors.js';
import { composeEmail } from '../lib/email_templates.js';
import { queueAndSend } from './email.js';
import { publishAfterCommit } from '../events/publish.js';
import { isRealmAdmin } from '../access/channel_access.js';
import { isEmailAddress } from './users.js';
import { UniqueConflict } from '../store/conflicts.js';

/** A confirmation link is good for a day, as Zulip's are. */
const LINK_VALID_SECONDS = 86400;

/**
 * Checks a requested address as Zulip's validate_email_change_request does; returns it, or
 * undefined when it is exactly the current one. The organization's refusal comes before the
 * address's shape ('Invalid address.'), and an address in use is refused in
 * validate_email_not_already_in_realm's short words (the caller's own address in another case too,
 * as Zulip compares it exactly).
 */
export async function checkEmailChange(services: Services, user: User, realm: Realm, rawEmail: string): Promise<string | undefined> {
  const email = rawEmail.trim();
  if (email === user.email) return undefined;
  if (realm.settings.email_changes_disabled && !isRealmAdmin(user)) throw new BadRequest('Email address changes are disabled in this organization.');
  if (!isEmailAddress(email)) throw new BadRequest('Invalid address.');
  const existing = await getUserByEmail(services.database.db, realm.id, email);
  if (existing) throw new BadRequest(existing.is_active ? 'Already has an account.' : 'Account has been deactivated.');
  return email;
}

/** Records the pending change and mails the confirmation link to the new address. */
export async function startEmailChange(services: Services, user: User, realm: Realm, email: string): Promise<void> {
  const key = randomBytes(24).toString('hex');
  await services.database.transaction((tx) => insertEmailChange(tx, user.id, email, key, nowSeconds()));
  const link = `${services.config.externalUrl}/accounts/confirm_new_email/${key}`;
  const mail = composeEmail(
    `Verify your new email address for ${realm.name}`,
    [
      { p: `Hi ${user.full_name},` },
      { p: `We received a request to change the email address of your account in ${realm.name} to ${email}.` },
      { link, label: 'Confirm the new address' },
      { p: 'If you did not ask for this, ignore this message.' },
    ],
    `${realm.name} · ${services.config.externalUrl}`,
  );
  await queueAndSend(services, [{ realmId: realm.id, kind: 'email_change', to: email, ...mail }]);
}

/** Follows a confirmation link; returns the new address, or undefined for a bad or used key. */
export async function confirmEmailChange(services: Services, key: string): Promise<string | undefined> {
  if (!/^[0-9a-f]{48}$/.test(key)) return undefined;
  // Another account taking the address first makes the link fail, as it would have in sequence.
  const raced = (e: unknown) => {
    if (e instanceof UniqueConflict) return undefined;
    throw e;
  };
  return services.database.transaction(async (tx, onCommit) => {
    const row = await emailChangeByKey(tx, key);
    if (!row || row.used || row.created_at < nowSeconds() - LINK_VALID_SECONDS) return undefined;
    const user = await getUser(tx, row.user_id);
    if (!user || !user.is_active) return undefined;
    if (await getUserByEmail(tx, user.realm_id, row.new_email)) return undefined;
    await updateUser(tx, user.id, { email: row.new_email });
    await markEmailChangeUsed(tx, row.id);
    const audience = await activeUserIds(tx, user.realm_id);
    publishAfterCommit(services, onCommit, { realmId: user.realm_id, userIds: audience, event: { type: 'realm_user', op: 'update', person: { user_id: user.id, new_email: row.new_email } } });
    publishAfterCommit(services, onCommit, { realmId: user.realm_id, userIds: [user.id], event: { type: 'realm_user', op: 'update', person: { user_id: user.id, delivery_email: row.new_email } } });
    onCommit(() => services.cache.invalidateUsers(user.realm_id));
    return row.new_email;
  }).catch(raced);
}
