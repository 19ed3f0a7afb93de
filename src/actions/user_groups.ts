// Named user groups: create, rename, settings, members, subgroups, deactivate — with Zulip's
// permission settings on each group and the organization's can_create_groups/can_manage_all_groups.
import type { Services } from '../services.js';
import { nowSeconds } from '../services.js';
import { REALM_GROUP_SETTING_DEFAULTS, type Realm } from '../store/realms.js';
import { channelsUsingGroups } from '../store/channels.js';
import { notificationBot, silentMention } from './notification_bot.js';
import { postDirectsFromBot, renderBotMessage, type RenderedBody } from './bot_messages.js';
import type { User } from '../store/users.js';
import type { GroupGraph } from '../store/cache.js';
import { addGroupMembers, addSubgroups, groupNameTaken, insertNamedGroup, removeGroupMembers, removeSubgroups, updateGroupRow, type GroupSettingIds } from '../store/groups.js';
import { isUserInGroup } from '../store/cache.js';
import { ApiError, BadRequest, NotAllowed } from '../errors.js';
import { publishAfterCommit } from '../events/publish.js';
import { groupSettingValue, idsNamedBy, sameGroupSettingValue, type GroupSettingValue } from '../access/group_settings.js';
import { storeGroupSettingValue } from './group_settings.js';
import { onConflict } from '../store/conflicts.js';
import type { UserGroupEvent } from '../events/types.js';

export const GROUP_SETTINGS = ['can_add_members_group', 'can_join_group', 'can_leave_group', 'can_manage_group', 'can_mention_group', 'can_remove_members_group'] as const;
export type GroupSetting = (typeof GROUP_SETTINGS)[number];
export const MAX_GROUP_NAME_LENGTH = 100;

/**
 * Zulip's NamedUserGroup.INVALID_NAME_PREFIXES: what mention and search syntax would read as
 * something else (`@`, and the `role:` of system groups, `user:`, `stream:`, `channel:`).
 */
const INVALID_GROUP_NAME_PREFIXES = ['@', 'role:', 'user:', 'stream:', 'channel:'];

function validName(raw: string): string {
  const name = raw.trim();
  if (!name) throw new BadRequest("User group name can't be empty!");
  if (name.length > MAX_GROUP_NAME_LENGTH) throw new BadRequest(`User group name cannot exceed ${MAX_GROUP_NAME_LENGTH} characters.`);
  const prefix = INVALID_GROUP_NAME_PREFIXES.find((p) => name.startsWith(p));
  if (prefix !== undefined) throw new BadRequest(`User group name cannot start with '${prefix}'.`);
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

/** A group that may become a subgroup: a named one of the organization, active (Zulip names a deactivated one). */
function checkSubgroup(graph: GroupGraph, id: number): void {
  const g = graph.groups.get(id);
  if (!g || !g.named) throw new BadRequest(`Invalid user group ID: ${id}`);
  if (g.deactivated) throw new BadRequest('User group is deactivated.');
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
  // As add_user_group: the members are read (user_ids_to_users) before the name is checked.
  await checkMembers(services, realm.id, g.members);
  const name = validName(g.name);
  const users = await services.cache.usersIncluding(realm.id, named.userIds);
  for (const s of g.subgroups) checkSubgroup(graph, s);
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
    // As in Zulip, a field given its current value is no change (and a current name is not re-checked).
    if (u.name !== undefined && u.name !== group.name) {
      const name = validName(u.name);
      if (await groupNameTaken(tx, realm.id, name, id)) throw new BadRequest(`User group '${name}' already exists.`);
      set.name = data.name = name;
    }
    if (u.description !== undefined && u.description !== group.description) set.description = data.description = u.description;
    if (u.deactivated !== undefined && u.deactivated !== !!group.deactivated) set.deactivated = data.deactivated = u.deactivated;
    for (const [key, update] of Object.entries(u.settings) as Array<[GroupSetting, { new: GroupSettingValue }]>) {
      set[key] = await storeGroupSettingValue(tx, graph, new Set(users.keys()), realm.id, update.new, key, now, { allowInternet: false });
      data[key] = update.new;
    }
    if (Object.keys(set).length === 0) return;
    await updateGroupRow(tx, id, set);
    onCommit(() => services.cache.invalidateGroups(realm.id));
    // Zulip's edit_user_group changes one field at a time, each with its own event: the name, the
    // description, then the settings in NamedUserGroup.GROUP_PERMISSION_SETTINGS order (the order
    // of GROUP_SETTINGS), whatever order the request gave them in.
    const order = ['name', 'description', 'deactivated', ...GROUP_SETTINGS].filter((k) => k in data);
    for (const key of order) {
      publishAfterCommit(services, onCommit, {
        realmId: realm.id,
        userIds: audienceOf(users),
        event: { type: 'user_group', op: 'update', group_id: id, data: { [key]: data[key] } },
        deactivatedGroup: group.deactivated,
      });
    }
  }), () => (u.name !== undefined ? new BadRequest(`User group '${u.name.trim()}' already exists.`) : undefined));
}

export async function changeGroupMembers(
  services: Services,
  caller: User,
  realm: Realm,
  id: number,
  c: { add: number[]; remove: number[]; addSubgroups: number[]; removeSubgroups: number[] },
): Promise<void> {
  const graph = await services.cache.groupGraph(realm.id, [id, ...c.addSubgroups, ...c.removeSubgroups]);
  // Since Zulip 11.0 (feature level 391) a deactivated group's members and subgroups can change.
  const group = editableGroup(graph, id);
  // remove_members_from_group_backend reads the users (user_ids_to_users) before the group.
  await checkMembers(services, realm.id, c.remove);
  const manage = mayManage(graph, realm, caller, id);
  const inSetting = (setting: number | null) => setting !== null && isUserInGroup(graph, caller.id, setting);
  const onlySelf = (ids: number[]) => ids.length > 0 && ids.every((x) => x === caller.id);
  if (c.add.length && !(manage || inSetting(group.can_add_members_group) || (onlySelf(c.add) && inSetting(group.can_join_group)))) throw new NotAllowed('Insufficient permission');
  if (c.remove.length && !(manage || inSetting(group.can_remove_members_group) || (onlySelf(c.remove) && inSetting(group.can_leave_group)))) throw new NotAllowed('Insufficient permission');
  // Zulip's add_subgroups_to_group_backend asks can_add_members_group, but
  // remove_subgroups_from_group_backend asks can_manage_group: only managers take subgroups out.
  if (c.addSubgroups.length && !(manage || inSetting(group.can_add_members_group))) throw new NotAllowed('Insufficient permission');
  if (c.removeSubgroups.length && !manage) throw new NotAllowed('Insufficient permission');
  await checkMembers(services, realm.id, c.add);
  const current = graph.members.get(id) ?? new Set<number>();
  for (const x of c.add) if (current.has(x)) throw new BadRequest(`User ${x} is already a member of this group`);
  for (const x of c.remove) if (!current.has(x)) throw new BadRequest(`There is no member '${x}' in this user group`);
  const subs = new Set(graph.subgroups.get(id) ?? []);
  for (const s of c.addSubgroups) {
    checkSubgroup(graph, s);
    if (subs.has(s)) throw new BadRequest(`User group ${s} is already a subgroup of this group.`);
    if (wouldCycle(graph, id, s)) throw new BadRequest(`User group ${id} is already a subgroup of one of the passed subgroups.`);
  }
  for (const s of c.removeSubgroups) {
    // lock_subgroups_with_respect_to_supergroup names an unknown or deactivated group first.
    checkSubgroup(graph, s);
    if (!subs.has(s)) throw new BadRequest(`User group ${s} is not a subgroup of this group.`);
  }
  // The people told of it may be new to this process's cache: read them too.
  const users = await services.cache.usersIncluding(realm.id, [...c.add, ...c.remove]);
  const audience = audienceOf(users);
  const notices = await membershipNotices(services, realm, caller, group.name, users, c.add, c.remove);
  await services.database.transaction(async (tx, onCommit) => {
    const emit = (event: UserGroupEvent) => publishAfterCommit(services, onCommit, { realmId: realm.id, userIds: audience, event, deactivatedGroup: !!group.deactivated });
    const tell = async (list: typeof notices.added) => {
      if (list.length) await postDirectsFromBot(services, tx, onCommit, { bot: list[0]!.bot, realm, users, items: list });
    };
    // As Zulip's add_members_to_group_backend and remove_members_from_group_backend run in turn:
    // each change's event, then the direct messages telling of it (events leave in this order).
    if (c.add.length) {
      await addGroupMembers(tx, id, c.add);
      emit({ type: 'user_group', op: 'add_members', group_id: id, user_ids: c.add });
      await tell(notices.added);
    }
    if (c.remove.length) {
      await removeGroupMembers(tx, id, c.remove);
      emit({ type: 'user_group', op: 'remove_members', group_id: id, user_ids: c.remove });
      await tell(notices.removed);
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
 * The Notification Bot's direct messages Zulip sends to people someone else added to a group or
 * removed from it ("… added you to the group @_*name*."); bots and the acting user get none.
 */
async function membershipNotices(services: Services, realm: Realm, caller: User, groupName: string, users: Map<number, User>, added: number[], removed: number[]) {
  type Notice = { bot: User; recipient: User; body: RenderedBody };
  const out: { added: Notice[]; removed: Notice[] } = { added: [], removed: [] };
  const told = (ids: number[]) => ids.map((x) => users.get(x)).filter((u): u is User => !!u && u.id !== caller.id && u.is_active && !u.is_bot);
  const lists = [
    { into: out.added, recipients: told(added), text: `${silentMention(caller).md} added you to the group @_*${groupName}*.` },
    { into: out.removed, recipients: told(removed), text: `${silentMention(caller).md} removed you from the group @_*${groupName}*.` },
  ].filter((l) => l.recipients.length);
  if (lists.length === 0) return out;
  const bot = await notificationBot(services, realm.id);
  for (const l of lists) {
    const body = await renderBotMessage(services, realm, bot, l.text);
    for (const recipient of l.recipients) l.into.push({ bot, recipient, body });
  }
  return out;
}

/**
 * What still uses a group, as Zulip's access_user_group_for_deactivation lists it: active named
 * groups holding it as a subgroup, and the settings (of unarchived channels, active groups and the
 * organization) whose value is the group or an anonymous group containing it.
 */
async function groupObjections(services: Services, realm: Realm, graph: GroupGraph, id: number): Promise<Record<string, unknown>[]> {
  const objections: Record<string, unknown>[] = [];
  const supergroups = [...graph.subgroups.entries()].filter(([, subs]) => subs.includes(id)).map(([g]) => g);
  const active = (g: number) => !!graph.groups.get(g)?.named && !graph.groups.get(g)?.deactivated;
  const named = supergroups.filter(active).sort((a, b) => a - b);
  if (named.length) objections.push({ type: 'subgroup', supergroup_ids: named });
  const using = new Set([id, ...supergroups.filter((g) => graph.groups.has(g) && !graph.groups.get(g)!.named)]);
  for (const c of await channelsUsingGroups(services.database.db, realm.id, [...using])) objections.push({ type: 'channel', ...c });
  for (const g of [...graph.groups.values()].filter((x) => active(x.id)).sort((a, b) => a.id - b.id)) {
    const settings = GROUP_SETTINGS.filter((k) => g[k] !== null && using.has(g[k]!));
    if (settings.length) objections.push({ type: 'user_group', group_id: g.id, settings });
  }
  const realmSettings = Object.keys(REALM_GROUP_SETTING_DEFAULTS).filter((k) => using.has((realm.settings as Record<string, unknown>)[k] as number));
  if (realmSettings.length) objections.push({ type: 'realm', settings: realmSettings });
  return objections;
}

/** Deactivates a group, which Zulip refuses while anything still uses it, saying what does. */
export async function deactivateUserGroup(services: Services, caller: User, realm: Realm, id: number): Promise<void> {
  const graph = await services.cache.groupGraph(realm.id, [id]);
  const existing = graph.groups.get(id);
  if (existing?.named && existing.deactivated) throw new BadRequest('User group is deactivated.');
  editableGroup(graph, id);
  if (!mayManage(graph, realm, caller, id)) throw new NotAllowed('Insufficient permission');
  const objections = await groupObjections(services, realm, graph, id);
  if (objections.length) throw new ApiError('Cannot deactivate user group in use.', 'CANNOT_DEACTIVATE_GROUP_IN_USE', 400, { objections });
  await updateUserGroup(services, caller, realm, id, { deactivated: true, settings: {} });
}
