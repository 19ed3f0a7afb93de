// Deactivating and reactivating an organization (the operator's `confab deactivate-org` and
// `reactivate-org`, Zulip's deactivate_realm / reactivate_realm). A deactivated organization's
// API answers every credential with 401 "This organization has been deactivated"; its users'
// long polls are woken by Zulip's `realm` / `deactivated` event so clients notice at once.
import type { Services } from '../services.js';
import { getRealm, listRealms, realmDeactivationFlags, updateRealm, type Realm } from '../store/realms.js';
import { BadRequest } from '../errors.js';
import { publishAfterCommit, type ClientBusEvent } from '../events/publish.js';
import { runPeriodically, type Periodic } from '../lib/periodic.js';

/** The organization an operator names: by id, by subdomain, or the only one. */
export async function realmForOperator(services: Services, ref: { realmId?: number; subdomain?: string }): Promise<Realm> {
  const realms = await listRealms(services.database.db);
  const realm =
    ref.realmId !== undefined
      ? realms.find((r) => r.id === ref.realmId)
      : ref.subdomain !== undefined
        ? realms.find((r) => r.string_id === ref.subdomain)
        : realms.length === 1
          ? realms[0]
          : undefined;
  if (!realm) {
    throw new BadRequest(
      realms.length === 0 ? 'No organization exists yet' : ref.realmId === undefined && ref.subdomain === undefined ? 'Several organizations exist: give --realm-id' : 'No such organization',
    );
  }
  return realm;
}

async function deactivationAudience(services: Services, realmId: number): Promise<number[]> {
  const users = await services.cache.users(realmId);
  return [...users.values()].filter((u) => u.is_active).map((u) => u.id);
}

/** Sets the flag; true when it changed. */
export async function setRealmDeactivated(services: Services, realmId: number, deactivated: boolean): Promise<boolean> {
  const audience = deactivated ? await deactivationAudience(services, realmId) : [];
  const changed = await services.database.transaction(async (tx, onCommit) => {
    const current = await getRealm(tx, realmId);
    if (!current) throw new BadRequest('No such organization');
    if (current.deactivated === deactivated) return false;
    await updateRealm(tx, realmId, { deactivated });
    onCommit(() => services.cache.invalidateRealm(realmId));
    if (deactivated) publishAfterCommit(services, onCommit, { realmId, userIds: audience, event: { type: 'realm', op: 'deactivated', realm_id: realmId } });
    return true;
  });
  return changed;
}

/**
 * The command line changes the flag from another process. With Redis, its invalidation and event
 * reach every server process; without, each process notices here within a few seconds by
 * comparing the flags with the organizations it holds in its cache.
 */
export function startRealmStatusWatch(services: Services, intervalMs = 2000): Periodic {
  return runPeriodically('realm status', intervalMs, async () => {
    for (const { id, deactivated } of await realmDeactivationFlags(services.database.db)) {
      const cached = services.cache.cachedRealm(id);
      if (!cached || cached.deactivated === deactivated) continue;
      // The workers of one `confab serve` each notice by themselves: each drops its own copy and
      // tells its own queues (an invalidation sent to all would hide the change from the others).
      const eachWorkerAlone = services.bus.publishHere !== undefined;
      if (eachWorkerAlone) services.cache.applyRemote({ kind: 'realm', realmId: id });
      else services.cache.invalidateRealm(id);
      if (!deactivated) continue;
      // With Redis the command line's own event already reached every process.
      if (services.config.redisUrl && !eachWorkerAlone) continue;
      const userIds = await deactivationAudience(services, id);
      const event: ClientBusEvent = { realmId: id, userIds, event: { type: 'realm', op: 'deactivated', realm_id: id } };
      if (services.bus.publishHere) services.bus.publishHere(event);
      else services.bus.publish(event);
    }
  });
}
