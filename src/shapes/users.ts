// The user object of the API (GET /users, realm_users in /register, realm_user events).
import { createHash } from 'node:crypto';
import { memoize } from '../lib/memo.js';
import { ROLE, type User } from '../store/users.js';
import { USER_SETTING_DEFAULTS } from '../lib/user_settings.js';
import type { RealmEmailDomains } from '../lib/realm_email_domains.js';

/** Zulip's email_address_visibility values (a personal setting). */
export const EMAIL_VISIBILITY = { everyone: 1, members: 2, admins: 3, nobody: 4, moderators: 5 } as const;

/** Which email_address_visibility values let a viewer of each role see the real address. */
const VISIBILITY_SEEN_BY_ROLE: Record<number, readonly number[]> = {
  [ROLE.owner]: [1, 2, 3, 5],
  [ROLE.administrator]: [1, 2, 3, 5],
  [ROLE.moderator]: [1, 2, 5],
  [ROLE.member]: [1, 2],
  [ROLE.guest]: [1],
};

export function emailVisibilityOf(user: User): number {
  const v = user.settings.email_address_visibility;
  return typeof v === 'number' ? v : USER_SETTING_DEFAULTS.email_address_visibility;
}

/**
 * The user's address as the API shows it (`email`): the real one when they let everyone see it,
 * otherwise Zulip's placeholder user{id}@{organization domain} (the server's `emailDomains`).
 * The real address, for those allowed to see it, is `delivery_email`.
 */
export function apiEmail(user: User, domains: RealmEmailDomains): string {
  if (emailVisibilityOf(user) === EMAIL_VISIBILITY.everyone) return user.email;
  return `user${user.id}@${domains.of(user.realm_id)}`;
}

/**
 * The users a viewer may name by address: by their API address, and by their real one where the
 * viewer may see it, so that a lookup never confirms an address the viewer may not know.
 */
export function usersByAddress(users: Iterable<User>, viewer: User, domains: RealmEmailDomains): Map<string, User> {
  const out = new Map<string, User>();
  for (const u of users) {
    out.set(apiEmail(u, domains).toLowerCase(), u);
    if (canSeeDeliveryEmail(viewer, u)) out.set(u.email.toLowerCase(), u);
  }
  return out;
}

/** Whether the viewer may see the target's real (delivery) email address. */
export function canSeeDeliveryEmail(viewer: User, target: User): boolean {
  if (viewer.id === target.id) return true;
  return (VISIBILITY_SEEN_BY_ROLE[viewer.role] ?? []).includes(emailVisibilityOf(target));
}

/**
 * The avatar URL; null when the client computes Gravatar URLs itself (client_gravatar), which
 * Zulip allows only for users whose address everyone may see (the hash would reveal it).
 */
export function avatarUrl(user: User, clientGravatar: boolean): string | null {
  if (clientGravatar && emailVisibilityOf(user) === EMAIL_VISIBILITY.everyone) return null;
  return `https://secure.gravatar.com/avatar/${gravatarHash(user.email)}?d=identicon&version=${user.avatar_version}`;
}

// Both are pure and ran once per user per answer: ~4 and ~2 µs each, 60 ms of a /register for
// 10,000 users.
const gravatarHash = memoize((email: string) => createHash('md5').update(email.trim().toLowerCase()).digest('hex'));

export const isoDate = memoize((seconds: number) => new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, '+00:00'));

export interface FormatUserOptions {
  clientGravatar?: boolean;
  /** Whether the viewer may see real email addresses (Zulip's email_address_visibility). */
  canSeeDeliveryEmail?: boolean;
  includeCustomProfileFields?: boolean;
  /** Leaves is_active out (realm_users of /register, where every user listed is active). */
  omitIsActive?: boolean;
  /** The user's custom profile field values (profile_data), when includeCustomProfileFields. */
  profileData?: Record<string, unknown>;
}

/** The user object; bot_type and bot_owner_id only for bots, profile_data only for humans. */
export function formatUser(user: User, domains: RealmEmailDomains, opts: FormatUserOptions = {}): Record<string, unknown> {
  const role = user.role;
  const email = apiEmail(user, domains);
  const dateJoined = isoDate(user.date_joined);
  const isOwner = role === ROLE.owner;
  const isAdmin = role === ROLE.owner || role === ROLE.administrator;
  const isGuest = role === ROLE.guest;
  const avatar = avatarUrl(user, opts.clientGravatar ?? false);
  const deliveryEmail = opts.canSeeDeliveryEmail === false ? null : user.email;
  // Object literals with every field, rather than a spread of the role flags and a later `delete` of
  // is_active: the delete left each of a /register's 10,000 users in V8's dictionary form, which
  // JSON.stringify walks ~1.5x slower, and the spread allocated one more object per user.
  const out: Record<string, unknown> = opts.omitIsActive
    ? {
        user_id: user.id, email, full_name: user.full_name, date_joined: dateJoined,
        is_owner: isOwner, is_admin: isAdmin, is_guest: isGuest, is_bot: user.is_bot, role, timezone: user.timezone,
        avatar_url: avatar, avatar_version: user.avatar_version, delivery_email: deliveryEmail, is_imported_stub: false,
      }
    : {
        user_id: user.id, email, full_name: user.full_name, date_joined: dateJoined, is_active: user.is_active,
        is_owner: isOwner, is_admin: isAdmin, is_guest: isGuest, is_bot: user.is_bot, role, timezone: user.timezone,
        avatar_url: avatar, avatar_version: user.avatar_version, delivery_email: deliveryEmail, is_imported_stub: false,
      };
  if (user.is_bot) {
    out.bot_type = user.bot_type;
    out.bot_owner_id = user.bot_owner_id;
  } else if (opts.includeCustomProfileFields) {
    out.profile_data = opts.profileData ?? {};
  }
  return out;
}

// userForClient's text for each cached User object (the organization's user cache makes new
// ones whenever a user changes, so an entry never outlives the user it shows), one per variant
// of what the viewer and the request change in it, with an empty profile_data (the user's own
// values are put in its place). Zulip likewise keeps each organization's user dicts and shapes
// them per request; here the shaping and serializing of 10,000 users (~20 ms of a /register)
// happens once per variant.
const userTexts = new WeakMap<User, { domain: string; texts: (string | undefined)[] }>();

/** What userJsonForClient's text depends on besides the user and the viewer; one object per request. */
export interface UserTextShape {
  clientGravatar: boolean;
  includeCustomProfileFields: boolean;
  omitIsActive: boolean;
}

/** JSON.stringify(userForClient(user, viewer, domains, { ...shape, profileData })), from the text kept for this user. */
export function userJsonForClient(user: User, viewer: User, domains: RealmEmailDomains, shape: UserTextShape, profileData?: Record<string, unknown>): string {
  const canSee = canSeeDeliveryEmail(viewer, user);
  const variant = (shape.clientGravatar ? 1 : 0) | (canSee ? 2 : 0) | (shape.omitIsActive ? 4 : 0) | (shape.includeCustomProfileFields ? 8 : 0);
  // The placeholder address's domain is the one input not on the User object.
  const domain = domains.of(user.realm_id);
  let entry = userTexts.get(user);
  if (!entry || entry.domain !== domain) userTexts.set(user, (entry = { domain, texts: [] }));
  let text = entry.texts[variant];
  if (text === undefined) {
    const shaped = formatUser(user, domains, { ...shape, canSeeDeliveryEmail: canSee });
    entry.texts[variant] = text = JSON.stringify(shaped);
  }
  // profile_data, where present, is the last field and the text ends in `"profile_data":{}}`.
  if (profileData === undefined || user.is_bot || !shape.includeCustomProfileFields) return text;
  return `${text.slice(0, -3)}${JSON.stringify(profileData)}}`;
}

/** The user object as this viewer may see it (GET /users, realm_users of /register). */
export function userForClient(
  user: User,
  viewer: User,
  domains: RealmEmailDomains,
  opts: { clientGravatar?: boolean; includeCustomProfileFields?: boolean; profileData?: Record<string, unknown>; omitIsActive?: boolean } = {},
): Record<string, unknown> {
  return formatUser(user, domains, { ...opts, canSeeDeliveryEmail: canSeeDeliveryEmail(viewer, user) });
}
