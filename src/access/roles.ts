// Role checks that guard administrative endpoints (Zulip's require_realm_admin,
// require_realm_owner and require_member_or_admin).
import { ROLE, type User } from '../store/users.js';
import { AdminRequired, NotAllowed, OwnerRequired } from '../errors.js';
import { isRealmAdmin } from './channel_access.js';

export function requireRealmAdmin(caller: User): void {
  if (!isRealmAdmin(caller)) throw new AdminRequired();
}

export function requireRealmOwner(caller: User): void {
  if (caller.role !== ROLE.owner) throw new OwnerRequired();
}

/** Zulip's require_member_or_admin: no guests, no bots. */
export function requireMemberOrAdmin(caller: User): void {
  if (caller.role === ROLE.guest) throw new NotAllowed('Not allowed for guest users');
  if (caller.is_bot) throw new NotAllowed('This endpoint does not accept bot requests.');
}
