// Password reset by email, at Zulip's addresses: a request mails a one-time link to the account's
// address; the link opens a form that sets a new password. The answer to a request is the same
// whether or not the address has an account (the mail is queued, never sent while the request
// waits), links hold only as a SHA-256 hash in the database, expire after a day as Zulip's do,
// and work once (setting a password uses up every outstanding link of the account).
import { createHash, randomBytes } from 'node:crypto';
import type { Services } from '../services.js';
import { nowSeconds } from '../services.js';
import type { User } from '../store/users.js';
import { getUser, updateUser } from '../store/users.js';
import { insertPasswordReset, passwordResetByHash, usePasswordResets } from '../store/email_outbox.js';
import { BadRequest } from '../errors.js';
import { hashPassword, passwordStrongEnough } from '../lib/secrets.js';
import { composeEmail } from '../lib/email_templates.js';
import { RateLimitExceeded } from '../lib/rate_limit.js';
import { queueMails } from './email.js';

export const RESET_LINK_VALID_SECONDS = 86400;
/** Zulip's PASSWORD_MAX_LENGTH. */
export const MAX_PASSWORD_LENGTH = 100;
/** Reset mails per address: Zulip allows a few an hour, so the form cannot flood a mailbox. */
const RESET_MAILS_PER_HOUR = 5;

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

/** The account an address means at this host: the one in the organization of its subdomain, else the root one. */
async function accountFor(services: Services, email: string, host: string): Promise<User | undefined> {
  const candidates = (await services.cache.usersByEmail(email)).filter((u) => !u.is_bot && u.is_active);
  if (candidates.length <= 1) return candidates[0];
  const sub = host.split(':')[0]!.split('.')[0]!.toLowerCase();
  const realms = await Promise.all(candidates.map((u) => services.cache.realm(u.realm_id)));
  const index = realms.findIndex((r) => r && r.string_id !== '' && r.string_id === sub);
  if (index >= 0) return candidates[index];
  const root = realms.findIndex((r) => r?.string_id === '');
  return root >= 0 ? candidates[root] : candidates[0];
}

/** Handles the reset form: queues a link when the address has an active account; says nothing either way. */
export async function requestPasswordReset(services: Services, rawEmail: string, host: string): Promise<void> {
  const email = rawEmail.trim();
  if (!email || email.length > 254 || !email.includes('@')) return;
  const limiter = services.rateLimiter;
  if (limiter) {
    try {
      await limiter.hit(`password_reset:${email.toLowerCase()}`, { limit: RESET_MAILS_PER_HOUR, windowSeconds: 3600 });
    } catch (e) {
      if (e instanceof RateLimitExceeded) return;
      throw e;
    }
  }
  const user = await accountFor(services, email, host);
  if (!user) return;
  const realm = await services.cache.realm(user.realm_id);
  if (!realm || realm.deactivated) return;
  const token = randomBytes(32).toString('hex');
  const link = `${services.config.externalUrl}/accounts/password/reset/${token}/`;
  const mail = composeEmail(
    `Reset your password for ${realm.name}`,
    [
      { p: `Hi ${user.full_name},` },
      { p: `Someone (hopefully you) asked to reset the password of your account (${user.email}) in ${realm.name}, at ${services.config.externalUrl}.` },
      { link, label: 'Reset your password' },
      { p: 'The link works once and for 24 hours. If you did not ask for this, you can ignore this email: your password stays as it is.' },
    ],
    `${realm.name} · ${services.config.externalUrl}`,
  );
  await services.database.transaction(async (tx, onCommit) => {
    await insertPasswordReset(tx, user.id, hashToken(token), nowSeconds());
    await queueMails(services, tx, onCommit, [{ realmId: realm.id, kind: 'password_reset', to: user.email, ...mail }]);
  });
}

/** The account a reset link is for, or undefined when the link is malformed, unknown, used or expired. */
export async function passwordResetUser(services: Services, token: string): Promise<User | undefined> {
  if (!/^[0-9a-f]{64}$/.test(token)) return undefined;
  const reset = await passwordResetByHash(services.database.db, hashToken(token));
  if (!reset || reset.used || reset.created_at < nowSeconds() - RESET_LINK_VALID_SECONDS) return undefined;
  const user = await getUser(services.database.db, reset.user_id);
  if (!user || !user.is_active || user.is_bot) return undefined;
  const realm = await services.cache.realm(user.realm_id);
  return realm && !realm.deactivated ? user : undefined;
}

/** Zulip's password rules (a length range; the two fields must agree). */
export function checkNewPassword(password1: string, password2: string, minLength: number): void {
  if (password1 !== password2) throw new BadRequest("The two password fields didn't match.");
  if (password1.length > MAX_PASSWORD_LENGTH) throw new BadRequest(`The password is too long (at most ${MAX_PASSWORD_LENGTH} characters).`);
  if (!passwordStrongEnough(password1, minLength)) throw new BadRequest('The password is too weak.');
}

/**
 * Sets the new password from a reset link. Returns the account, or undefined when the link is not
 * (or no longer) good; throws BadRequest when the passwords break the rules.
 */
export async function completePasswordReset(services: Services, token: string, password1: string, password2: string): Promise<User | undefined> {
  const user = await passwordResetUser(services, token);
  if (!user) return undefined;
  checkNewPassword(password1, password2, services.config.passwordMinLength);
  const passwordHash = await hashPassword(password1);
  const done = await services.database.transaction(async (tx, onCommit) => {
    // Re-checked inside the transaction: of two submissions of one link, only one wins.
    const reset = await passwordResetByHash(tx, hashToken(token));
    if (!reset || reset.used || reset.user_id !== user.id) return false;
    await usePasswordResets(tx, user.id);
    await updateUser(tx, user.id, { password_hash: passwordHash });
    onCommit(() => services.cache.invalidateUsers(user.realm_id));
    return true;
  });
  return done ? user : undefined;
}
