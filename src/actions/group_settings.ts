// Storing a group-setting value: a named group's id, or a new anonymous group (the write half of
// access/group_settings.ts, which reads, parses and compares values).
import type { Executor } from '../store/db.js';
import type { GroupGraph } from '../store/cache.js';
import { insertAnonymousGroup } from '../store/groups.js';
import { BadRequest } from '../errors.js';
import type { GroupSettingValue } from '../access/group_settings.js';

export interface GroupSettingRules {
  /** Zulip forbids some system groups for some settings (e.g. role:internet outside web-public reading). */
  allowInternet?: boolean;
  allowNobody?: boolean;
  allowEveryone?: boolean;
}

/**
 * Turns a validated value into a group id to store: a named group's own id, or a new anonymous
 * group. Members must be users of the organization and subgroups its groups.
 */
export async function storeGroupSettingValue(
  tx: Executor,
  graph: GroupGraph,
  realmUserIds: ReadonlySet<number>,
  realmId: number,
  value: GroupSettingValue,
  name: string,
  now: number,
  rules: GroupSettingRules = {},
): Promise<number> {
  const allowed = (groupId: number) => {
    const g = graph.groups.get(groupId);
    if (!g || !g.named || g.deactivated) return false;
    if (g.name === 'role:internet' && !rules.allowInternet) return false;
    if (g.name === 'role:nobody' && rules.allowNobody === false) return false;
    if (g.name === 'role:everyone' && rules.allowEveryone === false) return false;
    return true;
  };
  // A deactivated group is named as such, as Zulip does; it must be reactivated to be used.
  const refuseDeactivated = (groupId: number) => {
    const g = graph.groups.get(groupId);
    if (g?.named && g.deactivated) throw new BadRequest('User group is deactivated.');
  };
  if (typeof value === 'number') {
    if (!allowed(value)) {
      refuseDeactivated(value);
      // A system group the setting may not take is named in Zulip's words; anything else is unknown.
      const g = graph.groups.get(value);
      if (g?.named && g.is_system_group) throw new BadRequest(`'${name}' setting cannot be set to '${g.name}' group.`);
      throw new BadRequest(`Invalid user group ID: ${value}`);
    }
    return value;
  }
  for (const u of value.direct_members) if (!realmUserIds.has(u)) throw new BadRequest(`Invalid user ID: ${u}`);
  for (const g of value.direct_subgroups) {
    if (!allowed(g)) {
      refuseDeactivated(g);
      throw new BadRequest(`Invalid user group ID: ${g}`);
    }
  }
  // An anonymous value of exactly one subgroup and no members is that named group.
  if (value.direct_members.length === 0 && value.direct_subgroups.length === 1) return value.direct_subgroups[0]!;
  if (value.direct_members.length === 0 && value.direct_subgroups.length === 0) return graph.systemIds['role:nobody'];
  return insertAnonymousGroup(tx, realmId, value.direct_members, value.direct_subgroups, now);
}
