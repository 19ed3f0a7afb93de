// Named user groups: create, rename, settings, members, subgroups, deactivate — with Zulip's
// permission settings on each group and the organization's can_create_groups/can_manage_all_groups.
import type { Services } from '../services.js';
import { nowSeconds } from '../services.js';
import { REALM_GROUP_SETTING_DEFAULTS, type Realm } from '../store/realms.js';
import { channelSettingsUseGroup } from '../store/channels.js';
import type { User } from '../store/users.js';
import type { GroupGraph } from '../store/cache.js';
import { addGroupMembers, addSubgroups, groupNameTaken, insertNamedGroup, removeGroupMembers, removeSubgroups, updateGroupRow, type GroupSettingIds } from '../store/groups.js';
import { isUserInGroup } from '../store/cache.js';
import { BadRequest, NotAllowed } from '../errors.js';
import { publishAfterCommit } from '../events/publish.js';
import { groupSettingValue, idsNamedBy, sameGroupSettingValue, type GroupSettingValue } from '../access/group_settings.js';
import { storeGroupSettingValue } from './group_settings.js';
import { onConflict } from '../store/conflicts.js';
import type { UserGroupEvent } from '../events/types.js';

export const GROUP_SETTINGS = ['can_add_members_group', 'can_join_group', 'can_leave_group', 'can_manage_group', 'can_mention_group', 'can_remove_members_group'] as const;
export type GroupSetting = (typeof GROUP_SETTINGS)[number];
export const MAX_GROUP_NAME_LENGTH = 100;

function validName(raw: string): string {
  const name = raw.trim();
  if (!name) throw new BadRequest('User group name cannot be empty.');
  if (name.length > MAX_GROUP_NAME_LENGTH) throw new BadRequest(`User group name cannot exceed ${MAX_GROUP_NAME_LENGTH} characters.`);
  if (name.startsWith('role:')) throw new BadRequest("User group name cannot start with 'role:'.");
  return name;
}

/** A named, non-system group of the organization, or "Invalid user group". */
function editableGroup(graph: GroupGraph, id: number) {
  const g = graph.groups.get(id);
  if (!g || !g.named) throw new BadRequest('Invalid user group');
  if (g.is_system_group) throw new BadRequest('Insufficient permission');
  return g;
}

function mayManage(graph: GroupGraph, realm: Realm, user: User, groupId: number): boolean {
  const g = graph.groups.get(groupId)!;
  return isUserInGroup(graph, user.id, realm.settings.can_manage_all_groups) || (g.can_manage_group !== null && isUserInGroup(graph, user.id, g.can_manage_group));
}

function audienceOf(users: Map<number, User>): number[] {
  return [...users.values()].filter((u) => u.is_active).map((u) => u.id);
}

async function checkMembers(services: Services, realmId: number, ids: number[]): Promise<void> {
  const users = await services.cache.usersIncluding(realmId, ids);
  for (const id of ids) if (!users.get(id)?.is_active) throw new BadRequest(`Invalid user ID: ${id}`);
}

/** Whether adding `sub` under `group` would make a group its own subgroup. */
function wouldCycle(graph: GroupGraph, group: number, sub: number): boolean {
  const stack = [sub];
  const seen = new Set<number>();
  while (stack.length) {
    const id = stack.pop()!;
    if (id === group) return true;
    if (seen.has(id)) continue;
    seen.add(id);
    stack.push(...(graph.subgroups.get(id) ?? []));
  }
  return false;
}

export async function createUserGroup(
  services: Services,
  caller: User,
  realm: Realm,
  g: { name: string; description: string; members: number[]; subgroups: number[]; settings: Partial<Record<GroupSetting, GroupSettingValue>> },
): Promise<{ group_id: number }> {
  const named = idsNamedBy(Object.values(g.settings));
  const graph = await services.cache.groupGraph(realm.id, [...g.subgroups, ...named.groupIds]);
  if (!isUserInGroup(graph, caller.id, realm.settings.can_create_groups)) throw new NotAllowed('Insufficient permission');
  const name = validName(g.name);
  await checkMembers(services, realm.id, g.members);
  const users = await services.cache.usersIncluding(realm.id, named.userIds);
  for (const s of g.subgroups) if (!graph.groups.get(s)?.named || graph.groups.get(s)?.deactivated) throw new BadRequest(`Invalid user group ID: ${s}`);
  const ids = graph.systemIds;
  const defaults: Record<GroupSetting, GroupSettingValue> = {
    can_add_members_group: { direct_members: [caller.id], direct_subgroups: [] },
    can_join_group: ids['role:nobody'],
    can_leave_group: ids['role:everyone'],
    can_manage_group: { direct_members: [caller.id], direct_subgroups: [] },
    can_mention_group: ids['role:everyone'],
    can_remove_members_group: ids['role:nobody'],
  };
  const now = nowSeconds();
  return onConflict(services.database.transaction(async (tx, onCommit) => {
    if (await groupNameTaken(tx, realm.id, name)) throw new BadRequest(`User group '${name}' already exists.`);
    const settings = {} as GroupSettingIds;
    for (const key of GROUP_SETTINGS) {
      settings[key] = await storeGroupSettingValue(tx, graph, new Set(users.keys()), realm.id, g.settings[key] ?? defaults[key], key, now, { allowInternet: false });
    }
    const members = [...new Set(g.members)];
    const subgroups = [...new Set(g.subgroups)];
    const row = { id: await insertNamedGroup(tx, realm.id, { name, description: g.description, creatorId: caller.id, now, settings, members, subgroups }) };
    // The event is built here, from what was written, so it goes out in order right after the commit.
    const settingValues: Record<string, GroupSettingValue> = {};
    for (const key of GROUP_SETTINGS) {
      const given = g.settings[key] ?? defaults[key];
      const stored = settings[key]!;
      const named = graph.groups.get(stored)?.named;
      settingValues[key] =
        typeof given === 'number' || named
          ? stored
          : { direct_members: [...new Set(given.direct_members)].sort((x, y) => x - y), direct_subgroups: [...new Set(given.direct_subgroups)].sort((x, y) => x - y) };
    }
    const group = {
      id: row.id,
      name,
      description: g.description,
      date_created: now,
      creator_id: caller.id,
      members: [...members].sort((x, y) => x - y),
      direct_subgroup_ids: [...subgroups].sort((x, y) => x - y),
      is_system_group: false,
      deactivated: false,
      ...settingValues,
    };
    onCommit(() => services.cache.invalidateGroups(realm.id));
    publishAfterCommit(services, onCommit, { realmId: realm.id, userIds: audienceOf(users), event: { type: 'user_group', op: 'add', group } });
    return { group_id: row.id };
  }), () => new BadRequest(`User group '${name}' already exists.`));
}

export async function updateUserGroup(
  services: Services,
  caller: User,
  realm: Realm,
  id: number,
  u: { name?: string; description?: string; deactivated?: boolean; settings: Partial<Record<GroupSetting, { new: GroupSettingValue; old?: GroupSettingValue }>> },
): Promise<void> {
  const named = idsNamedBy(Object.values(u.settings).map((update) => update?.new));
  const users = await services.cache.usersIncluding(realm.id, named.userIds);
  const graph = await services.cache.groupGraph(realm.id, [id, ...named.groupIds]);
  const group = editableGroup(graph, id);
  if (!mayManage(graph, realm, caller, id)) throw new NotAllowed('Insufficient permission');
  for (const [key, update] of Object.entries(u.settings) as Array<[GroupSetting, { new: GroupSettingValue; old?: GroupSettingValue }]>) {
    if (update.old !== undefined && !sameGroupSettingValue(update.old, groupSettingValue(graph, group[key] ?? graph.systemIds['role:nobody']))) {
      throw new BadRequest("'old' value does not match the expected value.");
    }
  }
  const now = nowSeconds();
  await onConflict(services.database.transaction(async (tx, onCommit) => {
    const set: Parameters<typeof updateGroupRow>[2] = {};
    const data: Record<string, unknown> = {};
    if (u.name !== undefined) {
      const name = validName(u.name);
      if (await groupNameTaken(tx, realm.id, name, id)) throw new BadRequest(`User group '${name}' already exists.`);
      set.name = data.name = name;
    }
    if (u.description !== undefined) set.description = data.description = u.description;
    if (u.deactivated !== undefined) set.deactivated = data.deactivated = u.deactivated;
    for (const [key, update] of Object.entries(u.settings) as Array<[GroupSetting, { new: GroupSettingValue }]>) {
      set[key] = await storeGroupSettingValue(tx, graph, new Set(users.keys()), realm.id, update.new, key, now, { allowInternet: false });
      data[key] = update.new;
    }
    if (Object.keys(set).length === 0) return;
    await updateGroupRow(tx, id, set);
    onCommit(() => services.cache.invalidateGroups(realm.id));
    publishAfterCommit(services, onCommit, {
      realmId: realm.id,
      userIds: audienceOf(users),
      event: { type: 'user_group', op: 'update', group_id: id, data },
      deactivatedGroup: group.deactivated,
    });
  }), () => (u.name !== undefined ? new BadRequest(`User group '${u.name.trim()}' already exists.`) : undefined));
}

export async function changeGroupMembers(
  services: Services,
  caller: User,
  realm: Realm,
  id: number,
  c: { add: number[]; remove: number[]; addSubgroups: number[]; removeSubgroups: number[] },
): Promise<void> {
  const graph = await services.cache.groupGraph(realm.id, [id, ...c.addSubgroups]);
  const group = editableGroup(graph, id);
  if (group.deactivated) throw new BadRequest('You can not modify a deactivated user group.');
  const manage = mayManage(graph, realm, caller, id);
  const inSetting = (setting: number | null) => setting !== null && isUserInGroup(graph, caller.id, setting);
  const onlySelf = (ids: number[]) => ids.length > 0 && ids.every((x) => x === caller.id);
  if (c.add.length && !(manage || inSetting(group.can_add_members_group) || (onlySelf(c.add) && inSetting(group.can_join_group)))) throw new NotAllowed('Insufficient permission');
  if (c.remove.length && !(manage || inSetting(group.can_remove_members_group) || (onlySelf(c.remove) && inSetting(group.can_leave_group)))) throw new NotAllowed('Insufficient permission');
  if ((c.addSubgroups.length || c.removeSubgroups.length) && !(manage || inSetting(group.can_add_members_group))) throw new NotAllowed('Insufficient permission');
  await checkMembers(services, realm.id, c.add);
  const current = graph.members.get(id) ?? new Set<number>();
  for (const x of c.add) if (current.has(x)) throw new BadRequest(`User ${x} is already a member of this group`);
  for (const x of c.remove) if (!current.has(x)) throw new BadRequest(`There is no member '${x}' in this user group`);
  const subs = new Set(graph.subgroups.get(id) ?? []);
  for (const s of c.addSubgroups) {
    const sg = graph.groups.get(s);
    if (!sg || !sg.named || sg.deactivated) throw new BadRequest(`Invalid user group ID: ${s}`);
    if (subs.has(s)) throw new BadRequest(`User group ${s} is already a subgroup of this group.`);
    if (wouldCycle(graph, id, s)) throw new BadRequest(`User group ${s} is already a supergroup of this group.`);
  }
  for (const s of c.removeSubgroups) if (!subs.has(s)) throw new BadRequest(`User group ${s} is not a subgroup of this group.`);
  const users = await services.cache.users(realm.id);
  const audience = audienceOf(users);
  await services.database.transaction(async (tx, onCommit) => {
    const emit = (event: UserGroupEvent) => publishAfterCommit(services, onCommit, { realmId: realm.id, userIds: audience, event });
    if (c.add.length) {
      await addGroupMembers(tx, id, c.add);
      emit({ type: 'user_group', op: 'add_members', group_id: id, user_ids: c.add });
    }
    if (c.remove.length) {
      await removeGroupMembers(tx, id, c.remove);
      emit({ type: 'user_group', op: 'remove_members', group_id: id, user_ids: c.remove });
    }
    if (c.addSubgroups.length) {
      await addSubgroups(tx, id, c.addSubgroups);
      emit({ type: 'user_group', op: 'add_subgroups', group_id: id, direct_subgroup_ids: c.addSubgroups });
    }
    if (c.removeSubgroups.length) {
      await removeSubgroups(tx, id, c.removeSubgroups);
      emit({ type: 'user_group', op: 'remove_subgroups', group_id: id, direct_subgroup_ids: c.removeSubgroups });
    }
    onCommit(() => services.cache.invalidateGroups(realm.id));
  });
}

/**
 * Deactivates a group, which Zulip refuses while anything still names it: a named, active
 * group's subgroups, an organization permission, or a channel permission.
 */
export async function deactivateUserGroup(services: Services, caller: User, realm: Realm, id: number): Promise<void> {
  const graph = await services.cache.groupGraph(realm.id, [id]);
  const usedAsSubgroup = [...graph.subgroups.entries()].some(([g, subs]) => subs.includes(id) && graph.groups.get(g)?.named && !graph.groups.get(g)?.deactivated);
  const usedByRealm = Object.keys(REALM_GROUP_SETTING_DEFAULTS).some((k) => (realm.settings as Record<string, unknown>)[k] === id);
  if (usedAsSubgroup || usedByRealm || (await channelSettingsUseGroup(services.database.db, realm.id, id))) {
    throw new BadRequest('Cannot deactivate user group in use.');
  }
  await updateUserGroup(services, caller, realm, id, { deactivated: true, settings: {} });
}
