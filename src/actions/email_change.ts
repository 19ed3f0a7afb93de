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
import { audienceFor, isEmailAddress } from './users.js';
import { emailDomainsToCheck, emailRefusal, refusalText } from './realm_domains.js';
import { canSeeDeliveryEmail, EMAIL_VISIBILITY, emailVisibilityOf, formatUser } from '../shapes/users.js';
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
  // Zulip's validate_email_change_request: validate_email_is_valid with the organization's validator.
  const refusal = emailRefusal(realm, await emailDomainsToCheck(services, realm), email);
  if (refusal) throw new BadRequest(refusalText(refusal));
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
    const after: User = { ...user, email: row.new_email };
    const realm = await services.cache.realm(user.realm_id);
    const audience = realm ? (await audienceFor(services, realm, user)).map((u) => u.id) : await activeUserIds(tx, user.realm_id);
    const viewers = [...(await services.cache.users(user.realm_id)).values()].filter((u) => u.is_active);
    const publish = (userIds: number[], person: Record<string, unknown>) => {
      if (userIds.length) publishAfterCommit(services, onCommit, { realmId: user.realm_id, userIds, event: { type: 'realm_user', op: 'update', person: { user_id: user.id, ...person } } });
    };
    // do_change_user_delivery_email: the new address to those who may see it, then (Confab's avatars
    // being Gravatars of the address) notify_avatar_url_change, then the new API address to everyone
    // only when the address is the public one (email_address_is_realm_public).
    publish([...new Set([user.id, ...viewers.filter((v) => canSeeDeliveryEmail(v, after)).map((v) => v.id)])], { delivery_email: row.new_email });
    const url = formatUser(after, services.emailDomains, { clientGravatar: false }).avatar_url;
    publish(audience, { avatar_source: 'G', avatar_url: url, avatar_url_medium: url, avatar_version: after.avatar_version });
    if (emailVisibilityOf(after) === EMAIL_VISIBILITY.everyone) publish(await activeUserIds(tx, user.realm_id), { new_email: row.new_email });
    onCommit(() => services.cache.invalidateUsers(user.realm_id));
    return row.new_email;
  }).catch(raced);
}
