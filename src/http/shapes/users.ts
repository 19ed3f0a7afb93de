// The user object of the API (GET /users, realm_users in /register, realm_user events).
import { createHash } from 'node:crypto';
import { ROLE, type User } from '../../store/users.js';

export function avatarUrl(user: User, clientGravatar: boolean): string | null {
  if (clientGravatar && !user.is_bot) return null;
  const hash = createHash('md5').update(user.email.trim().toLowerCase()).digest('hex');
  return `https://secure.gravatar.com/avatar/${hash}?d=identicon&version=${user.avatar_version}`;
}

export function isoDate(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, '+00:00');
}

export function roleFlags(role: number) {
  return {
    is_owner: role === ROLE.owner,
    is_admin: role === ROLE.owner || role === ROLE.administrator,
    is_guest: role === ROLE.guest,
  };
}

export interface FormatUserOptions {
  clientGravatar?: boolean;
  /** Whether the viewer may see real email addresses (Zulip's email_address_visibility). */
  canSeeDeliveryEmail?: boolean;
  includeCustomProfileFields?: boolean;
}

export function formatUser(user: User, opts: FormatUserOptions = {}): Record<string, unknown> {
  const out: Record<string, unknown> = {
    user_id: user.id,
    email: user.email,
    full_name: user.full_name,
    date_joined: isoDate(user.date_joined),
    is_active: user.is_active,
    ...roleFlags(user.role),
    is_bot: user.is_bot,
    bot_type: user.bot_type,
    role: user.role,
    timezone: user.timezone,
    avatar_url: avatarUrl(user, opts.clientGravatar ?? false),
    avatar_version: user.avatar_version,
    delivery_email: opts.canSeeDeliveryEmail === false && !user.is_bot ? null : user.email,
  };
  if (user.is_bot) out.bot_owner_id = user.bot_owner_id;
  if (opts.includeCustomProfileFields && !user.is_bot) out.profile_data = {};
  return out;
}
