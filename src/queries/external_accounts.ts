// Who a service's user is here: the active users whose external-account profile field of a kind
// ("github") holds the service's username. Integrations name a sender that way when there is one.
import type { Services } from '../services.js';
import { usersWithExternalAccount } from '../store/users.js';

export async function externalAccountNames(services: Services, realmId: number, subtype: string, username: string): Promise<string[]> {
  const ids = await usersWithExternalAccount(services.database.db, realmId, subtype, username);
  if (ids.length === 0) return [];
  const users = await services.cache.users(realmId);
  return ids.flatMap((id) => {
    const u = users.get(id);
    return u?.is_active ? [u.full_name] : [];
  });
}
