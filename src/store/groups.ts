// User groups: the system groups every organization has, named groups, and the anonymous groups
// that hold a group-setting value given as direct members and subgroups.
import { sql } from 'kysely';
import type { Executor } from './db.js';
import type { Row, UserGroupTable } from './schema.js';
import { ROLE } from './users.js';

/** The system groups, in Zulip's order, with the roles whose holders are direct members. */
export const SYSTEM_GROUPS = [
  { name: 'role:internet', display: 'Everyone on the internet', description: 'Everyone on the Internet', roles: [] as number[] },
  { name: 'role:everyone', display: 'Everyone', description: 'Everyone including guests', roles: [ROLE.guest] },
  { name: 'role:members', display: 'Members', description: 'Everyone except guests', roles: [ROLE.member] },
  { name: 'role:fullmembers', display: 'Full members', description: 'Members of this organization, not including new accounts and guests', roles: [ROLE.member] },
  { name: 'role:moderators', display: 'Moderators', description: 'Moderators of this organization, including administrators', roles: [ROLE.moderator] },
  { name: 'role:administrators', display: 'Administrators', description: 'Administrators of this organization, including owners', roles: [ROLE.administrator] },
  { name: 'role:owners', display: 'Owners', description: 'Owners of this organization', roles: [ROLE.owner] },
  { name: 'role:nobody', display: 'Nobody', description: 'Nobody', roles: [] as number[] },
] as const;
export type SystemGroupName = (typeof SYSTEM_GROUPS)[number]['name'];

/**
 * How a group is shown where a person reads it (a mention, a notice): a system group by its
 * display name (Zulip's SystemGroups.GROUP_DISPLAY_NAME_MAP, "Administrators" for
 * role:administrators), any other by its name, as get_user_group_mention_display_name does.
 */
export function groupDisplayName(g: { name: string; is_system_group: boolean }): string {
  if (!g.is_system_group) return g.name;
  return SYSTEM_GROUPS.find((s) => s.name === g.name)?.display ?? g.name;
}

/** Each system group's subgroup: the next group up the ladder of roles. */
const SYSTEM_SUBGROUP: Partial<Record<SystemGroupName, SystemGroupName>> = {
  'role:internet': 'role:everyone',
  'role:everyone': 'role:members',
  'role:members': 'role:fullmembers',
  'role:fullmembers': 'role:moderators',
  'role:moderators': 'role:administrators',
  'role:administrators': 'role:owners',
};

export type UserGroupRow = Row<UserGroupTable>;

function groupFromRow(r: Record<string, any>): UserGroupRow {
  return {
    ...(r as UserGroupRow),
    date_created: Number(r.date_created),
    is_system_group: !!r.is_system_group,
    named: !!r.named,
    deactivated: !!r.deactivated,
  };
}

/** Creates the system groups of a new organization; returns their ids by name. */
export async function createSystemGroups(db: Executor, realmId: number, now: number): Promise<Record<SystemGroupName, number>> {
  const ids = {} as Record<SystemGroupName, number>;
  for (const g of SYSTEM_GROUPS) {
    const row = await db
      .insertInto('user_groups')
      .values({
        realm_id: realmId,
        name: g.name,
        description: g.description,
        is_system_group: true,
        named: true,
        deactivated: false,
        date_created: now,
        creator_id: null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    ids[g.name] = row.id;
  }
  const subgroupRows = Object.entries(SYSTEM_SUBGROUP).map(([group, sub]) => ({
    group_id: ids[group as SystemGroupName],
    subgroup_id: ids[sub as SystemGroupName],
  }));
  await db.insertInto('group_subgroups').values(subgroupRows).execute();
  // Zulip's system groups are managed by the organization itself: every setting points at
  // role:nobody, can_mention_group too (default_for_system_groups), so only their silent
  // mentions may be sent.
  const nobody = ids['role:nobody'];
  await db
    .updateTable('user_groups')
    .set({
      can_add_members_group: nobody,
      can_join_group: nobody,
      can_leave_group: nobody,
      can_manage_group: nobody,
      can_mention_group: nobody,
      can_remove_members_group: nobody,
    })
    .where('realm_id', '=', realmId)
    .where('is_system_group', '=', true)
    .execute();
  return ids;
}

export async function getSystemGroupIds(db: Executor, realmId: number): Promise<Record<SystemGroupName, number>> {
  const rows = await db
    .selectFrom('user_groups')
    .select(['id', 'name'])
    .where('realm_id', '=', realmId)
    .where('is_system_group', '=', true)
    .execute();
  const out = {} as Record<SystemGroupName, number>;
  for (const r of rows) out[r.name as SystemGroupName] = r.id;
  return out;
}

/** Names of the system groups a holder of this role is a direct member of. */
function systemGroupsForRole(role: number, isFullMember = true): SystemGroupName[] {
  if (role === ROLE.member) return isFullMember ? ['role:members', 'role:fullmembers'] : ['role:members'];
  return SYSTEM_GROUPS.filter((g) => (g.roles as readonly number[]).includes(role)).map((g) => g.name);
}

/**
 * Puts a user in the system groups of their role (role:fullmembers only when isFullMember),
 * taking them out of the others; returns the system groups the user left and joined.
 */
export async function setSystemGroupMembership(
  db: Executor,
  realmId: number,
  userId: number,
  role: number,
  isFullMember = true,
): Promise<{ removed: number[]; added: number[] }> {
  const ids = await getSystemGroupIds(db, realmId);
  const allIds = Object.values(ids);
  const before = new Set(
    (await db.selectFrom('group_members').select('group_id').where('user_id', '=', userId).where('group_id', 'in', allIds).execute()).map((r) => r.group_id),
  );
  const after = new Set(systemGroupsForRole(role, isFullMember).map((name) => ids[name]));
  const removed = [...before].filter((g) => !after.has(g));
  const added = [...after].filter((g) => !before.has(g));
  if (removed.length) await db.deleteFrom('group_members').where('user_id', '=', userId).where('group_id', 'in', removed).execute();
  if (added.length) await db.insertInto('group_members').values(added.map((group_id) => ({ group_id, user_id: userId }))).execute();
  return { removed, added };
}

/**
 * Brings role:fullmembers in line with the waiting period: a member is a full member once their
 * account is at least `thresholdDays` old. Returns the group id and the users added and removed.
 */
export async function syncFullMembers(
  db: Executor,
  realmId: number,
  thresholdDays: number,
  now: number,
): Promise<{ groupId: number; added: number[]; removed: number[] }> {
  const groupId = (await getSystemGroupIds(db, realmId))['role:fullmembers'];
  const [members, current] = await Promise.all([
    db.selectFrom('users').select(['id', 'date_joined']).where('realm_id', '=', realmId).where('role', '=', ROLE.member).execute(),
    db.selectFrom('group_members').select('user_id').where('group_id', '=', groupId).execute(),
  ]);
  const cutoff = now - thresholdDays * 86400;
  const should = new Set(members.filter((m) => Number(m.date_joined) <= cutoff).map((m) => m.id));
  const have = new Set(current.map((r) => r.user_id));
  const added = [...should].filter((u) => !have.has(u)).sort((a, b) => a - b);
  const removed = [...have].filter((u) => !should.has(u)).sort((a, b) => a - b);
  if (removed.length) await db.deleteFrom('group_members').where('group_id', '=', groupId).where('user_id', 'in', removed).execute();
  // Another process's pass may have added some already: those rows stay as they are.
  if (added.length) await db.insertInto('group_members').values(added.map((user_id) => ({ group_id: groupId, user_id }))).onConflict((oc) => oc.doNothing()).execute();
  return { groupId, added, removed };
}

export async function listGroups(db: Executor, realmId: number, opts: { named?: boolean } = {}): Promise<UserGroupRow[]> {
  let q = db.selectFrom('user_groups').selectAll().where('realm_id', '=', realmId);
  if (opts.named !== undefined) q = q.where('named', '=', opts.named);
  const rows = await q.orderBy('id').execute();
  return rows.map(groupFromRow);
}

/** Which of these ids are groups of the organization (one indexed query). */
export async function existingGroupIds(db: Executor, realmId: number, ids: readonly number[]): Promise<number[]> {
  if (ids.length === 0) return [];
  const rows = await db.selectFrom('user_groups').select('id').where('realm_id', '=', realmId).where('id', 'in', ids).execute();
  return rows.map((r) => r.id);
}

/** Every group membership row of an organization, for building the in-memory group cache. */
export async function realmGroupGraph(db: Executor, realmId: number) {
  const [members, subs] = await Promise.all([
    db
      .selectFrom('group_members')
      .innerJoin('user_groups', 'user_groups.id', 'group_members.group_id')
      .select(['group_members.group_id', 'group_members.user_id'])
      .where('user_groups.realm_id', '=', realmId)
      .execute(),
    db
      .selectFrom('group_subgroups')
      .innerJoin('user_groups', 'user_groups.id', 'group_subgroups.group_id')
      .select(['group_subgroups.group_id', 'group_subgroups.subgroup_id'])
      .where('user_groups.realm_id', '=', realmId)
      .execute(),
  ]);
  return { members, subs };
}

/** Creates an anonymous group holding a group-setting value of direct members and subgroups. */
export async function insertAnonymousGroup(
  db: Executor,
  realmId: number,
  members: readonly number[],
  subgroups: readonly number[],
  now: number,
): Promise<number> {
  const row = await db
    .insertInto('user_groups')
    .values({
      realm_id: realmId,
      name: '',
      description: '',
      is_system_group: false,
      named: false,
      deactivated: false,
      date_created: now,
      creator_id: null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await addGroupMembers(db, row.id, members);
  await addSubgroups(db, row.id, subgroups);
  return row.id;
}

/**
 * Whether another active named group of the organization has this name, in any case (a unique
 * index on lower(name) over active named groups makes a racing second one a UniqueConflict).
 */
export async function groupNameTaken(db: Executor, realmId: number, name: string, exceptId?: number): Promise<boolean> {
  let q = db
    .selectFrom('user_groups')
    .select('id')
    .where('realm_id', '=', realmId)
    .where('named', '=', true)
    .where('deactivated', '=', false)
    .where(sql<boolean>`lower(name) = lower(${name})`);
  if (exceptId !== undefined) q = q.where('id', '<>', exceptId);
  return !!(await q.executeTakeFirst());
}

/** The permission settings of a group, each the id of the group holding it. */
export type GroupSettingIds = Record<'can_add_members_group' | 'can_join_group' | 'can_leave_group' | 'can_manage_group' | 'can_mention_group' | 'can_remove_members_group', number>;

/** Creates a named group with its settings, direct members and subgroups. */
export async function insertNamedGroup(
  db: Executor,
  realmId: number,
  g: { name: string; description: string; creatorId: number; now: number; settings: GroupSettingIds; members: readonly number[]; subgroups: readonly number[] },
): Promise<number> {
  const row = await db
    .insertInto('user_groups')
    .values({ realm_id: realmId, name: g.name, description: g.description, is_system_group: false, named: true, deactivated: false, date_created: g.now, creator_id: g.creatorId, ...g.settings })
    .returning('id')
    .executeTakeFirstOrThrow();
  await addGroupMembers(db, row.id, g.members);
  await addSubgroups(db, row.id, g.subgroups);
  return row.id;
}

export async function updateGroupRow(
  db: Executor,
  id: number,
  set: Partial<GroupSettingIds> & { name?: string; description?: string; deactivated?: boolean },
): Promise<void> {
  await db.updateTable('user_groups').set(set).where('id', '=', id).execute();
}

export async function addGroupMembers(db: Executor, groupId: number, userIds: readonly number[]): Promise<void> {
  if (userIds.length) await db.insertInto('group_members').values(userIds.map((user_id) => ({ group_id: groupId, user_id }))).execute();
}

export async function removeGroupMembers(db: Executor, groupId: number, userIds: readonly number[]): Promise<void> {
  if (userIds.length) await db.deleteFrom('group_members').where('group_id', '=', groupId).where('user_id', 'in', userIds).execute();
}

export async function addSubgroups(db: Executor, groupId: number, subgroupIds: readonly number[]): Promise<void> {
  if (subgroupIds.length) await db.insertInto('group_subgroups').values(subgroupIds.map((subgroup_id) => ({ group_id: groupId, subgroup_id }))).execute();
}

export async function removeSubgroups(db: Executor, groupId: number, subgroupIds: readonly number[]): Promise<void> {
  if (subgroupIds.length) await db.deleteFrom('group_subgroups').where('group_id', '=', groupId).where('subgroup_id', 'in', subgroupIds).execute();
}

/** Makes the user a direct member of each of these groups. */
export async function addUserToGroups(db: Executor, userId: number, groupIds: readonly number[]): Promise<void> {
  if (groupIds.length) await db.insertInto('group_members').values(groupIds.map((group_id) => ({ group_id, user_id: userId }))).execute();
}
