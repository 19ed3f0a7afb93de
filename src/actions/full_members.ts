// Full members: role:fullmembers holds the members whose accounts are older than the
// organization's waiting period. Accounts age without any request, so a periodic job promotes
// them (Zulip's promote_new_full_members), with the user_group events a threshold change sends.
import type { Services } from '../services.js';
import { nowSeconds } from '../services.js';
import { listRealms } from '../store/realms.js';
import { syncFullMembers } from '../store/groups.js';
import { publishAfterCommit } from '../events/publish.js';
import { runPeriodically, type Periodic } from '../lib/periodic.js';

/** One pass over every organization with a waiting period; returns how many users were promoted. */
export async function promoteFullMembers(services: Services, now = nowSeconds()): Promise<number> {
  let promoted = 0;
  for (const realm of await listRealms(services.database.db)) {
    const threshold = Number(realm.settings.waiting_period_threshold ?? 0);
    if (threshold <= 0 || realm.deactivated) continue;
    const users = await services.cache.users(realm.id);
    const audience = [...users.values()].filter((u) => u.is_active).map((u) => u.id);
    const moved = await services.database.transaction(async (tx, onCommit) => {
      const result = await syncFullMembers(tx, realm.id, threshold, now);
      for (const [op, ids] of [['remove_members', result.removed], ['add_members', result.added]] as const) {
        if (ids.length) publishAfterCommit(services, onCommit, { realmId: realm.id, userIds: audience, event: { type: 'user_group', op, group_id: result.groupId, user_ids: ids } });
      }
      if (result.added.length || result.removed.length) onCommit(() => services.cache.invalidateGroups(realm.id));
      return result;
    });
    promoted += moved.added.length;
  }
  return promoted;
}

/** Runs the promotion pass every intervalMs (an hour by default; waiting periods count in days). */
export function startFullMemberPromotion(services: Services, intervalMs = 3_600_000): Periodic {
  return runPeriodically('full member promotion', intervalMs, () => promoteFullMembers(services));
}
