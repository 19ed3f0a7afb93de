// User groups as the API shows them (GET /user_groups, realm_user_groups in /register).
import type { Services } from '../services.js';
import type { GroupGraph } from '../store/cache.js';
import type { UserGroupRow } from '../store/groups.js';
import { groupSettingValue } from '../access/group_settings.js';

const GROUP_SETTINGS = [
  'can_add_members_group',
  'can_join_group',
  'can_leave_group',
  'can_manage_group',
  'can_mention_group',
  'can_remove_members_group',
] as const;

export function formatUserGroup(group: UserGroupRow, graph: GroupGraph): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: group.id,
    name: group.name,
    description: group.description,
    date_created: group.is_system_group ? null : group.date_created,
    creator_id: group.creator_id,
    members: [...(graph.members.get(group.id) ?? [])].sort((a, b) => a - b),
    direct_subgroup_ids: [...(graph.subgroups.get(group.id) ?? [])].sort((a, b) => a - b),
    is_system_group: group.is_system_group,
    deactivated: group.deactivated,
  };
  const nobody = graph.systemIds['role:nobody'];
  for (const key of GROUP_SETTINGS) out[key] = groupSettingValue(graph, group[key] ?? nobody);
  return out;
}

/** The named groups of an organization (anonymous setting-holder groups are not listed). */
export async function userGroupsForClient(
  services: Services,
  realmId: number,
  graph?: GroupGraph,
  opts: { includeDeactivated?: boolean } = {},
): Promise<Record<string, unknown>[]> {
  const g = graph ?? (await services.cache.groupGraph(realmId));
  return [...g.groups.values()]
    .filter((group) => group.named && (opts.includeDeactivated || !group.deactivated))
    .sort((a, b) => a.id - b.id)
    .map((group) => formatUserGroup(group, g));
}
