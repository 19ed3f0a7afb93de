// Users a request names, by id or by address, found through the cache as store/cache.ts explains:
// a miss is asked of the database (a user another process made a moment ago) before the caller
// answers "No such user"; a hit costs nothing more than the cached lookup did.
import type { Services } from '../services.js';
import type { User } from '../store/users.js';
import { usersByAddress } from '../shapes/users.js';

/**
 * The user a viewer names by address: by the cached users' addresses first (`byAddress`, when
 * the caller has built it already), then by the database's. Only addresses the viewer may use
 * count (a real email only where they may see it), the same rule for both.
 */
export async function userAtAddress(services: Services, viewer: User, address: string, byAddress?: Map<string, User>): Promise<User | undefined> {
  const key = address.trim().toLowerCase();
  const cached = (byAddress ?? usersByAddress((await services.cache.users(viewer.realm_id)).values(), viewer, services.emailDomains)).get(key);
  if (cached) return cached;
  const found = await services.cache.usersAtAddress(viewer.realm_id, key);
  return found.length ? usersByAddress(found, viewer, services.emailDomains).get(key) : undefined;
}

/** The user a path segment names: digits are an id, anything else an address. */
export async function userByIdOrAddress(services: Services, viewer: User, key: string): Promise<User | undefined> {
  if (/^\d+$/.test(key)) {
    const id = Number(key);
    return Number.isSafeInteger(id) ? services.cache.user(viewer.realm_id, id) : undefined;
  }
  return userAtAddress(services, viewer, key);
}
