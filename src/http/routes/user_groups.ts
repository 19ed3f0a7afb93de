// User groups: create, update, members and subgroups, membership queries, deactivation.
import type { Router } from '../router.js';
import { pathInt } from '../router.js';
import { check } from '../../lib/params.js';
import { BadRequest, NoSuchUser } from '../../errors.js';
import { parseGroupSettingUpdate, parseGroupSettingValue, type GroupSettingValue } from '../../access/group_settings.js';
import { changeGroupMembers, createUserGroup, deactivateUserGroup, GROUP_SETTINGS, updateUserGroup, type GroupSetting } from '../../actions/user_groups.js';
import { groupMembersRecursive, isUserInGroup, type GroupGraph } from '../../store/cache.js';
import { requireMemberOrAdmin } from '../../access/roles.js';

const invalidGroup = () => new BadRequest('Invalid user group');

/** A group whose membership may be read (Zulip's access_user_group_to_read_membership). */
function readableGroup(graph: GroupGraph, id: number): void {
  const g = graph.groups.get(id);
  if (!g?.named) throw invalidGroup();
  if (g.deactivated) throw new BadRequest('User group is deactivated.');
}

export function registerUserGroupRoutes(r: Router): void {
  r.post('/user_groups/create', async ({ params, services, user, realm }) => {
    requireMemberOrAdmin(user);
    const settings: Partial<Record<GroupSetting, GroupSettingValue>> = {};
    for (const key of GROUP_SETTINGS) {
      const v = params.optJson(key, parseGroupSettingValue);
      if (v !== undefined) settings[key] = v;
    }
    return createUserGroup(services, user, realm, {
      name: params.str('name'),
      description: params.optStr('description') ?? '',
      members: params.json('members', check.intList),
      subgroups: params.optJson('subgroups', check.intList) ?? [],
      settings,
    });
  });

  r.patch('/user_groups/{user_group_id}', async (ctx) => {
    const { params } = ctx;
    requireMemberOrAdmin(ctx.user);
    const settings: Partial<Record<GroupSetting, { new: GroupSettingValue; old?: GroupSettingValue }>> = {};
    for (const key of GROUP_SETTINGS) {
      const v = params.optJson(key, parseGroupSettingUpdate);
      if (v !== undefined) settings[key] = v;
    }
    const update = {
      name: params.optStr('name'),
      description: params.optStr('description'),
      deactivated: params.optBool('deactivated'),
      settings,
    };
    // Zulip refuses an update naming nothing, before looking at the group or the permission.
    if (update.name === undefined && update.description === undefined && update.deactivated === undefined && Object.keys(settings).length === 0) {
      throw new BadRequest('No new data supplied');
    }
    // Here deactivated=false reactivates; true does nothing, as in Zulip: deactivating is POST
    // /user_groups/{id}/deactivate, which first checks that nothing uses the group.
    if (update.deactivated === true) update.deactivated = undefined;
    await updateUserGroup(ctx.services, ctx.user, ctx.realm, pathInt(ctx, 'user_group_id', invalidGroup), update);
    return {};
  });

  r.post('/user_groups/{user_group_id}/members', async (ctx) => {
    const p = ctx.params;
    requireMemberOrAdmin(ctx.user);
    const change = {
      add: p.optJson('add', check.intList) ?? [],
      remove: p.optJson('delete', check.intList) ?? [],
      addSubgroups: p.optJson('add_subgroups', check.intList) ?? [],
      removeSubgroups: p.optJson('delete_subgroups', check.intList) ?? [],
    };
    // Empty lists count as absent, as in Zulip.
    if (!change.add.length && !change.remove.length && !change.addSubgroups.length && !change.removeSubgroups.length) {
      throw new BadRequest('Nothing to do. Specify at least one of "add", "delete", "add_subgroups" or "delete_subgroups".');
    }
    await changeGroupMembers(ctx.services, ctx.user, ctx.realm, pathInt(ctx, 'user_group_id', invalidGroup), change);
    return {};
  });

  r.post('/user_groups/{user_group_id}/subgroups', async (ctx) => {
    requireMemberOrAdmin(ctx.user);
    const addSubgroups = ctx.params.optJson('add', check.intList) ?? [];
    const removeSubgroups = ctx.params.optJson('delete', check.intList) ?? [];
    if (!addSubgroups.length && !removeSubgroups.length) throw new BadRequest('Nothing to do. Specify at least one of "add" or "delete".');
    await changeGroupMembers(ctx.services, ctx.user, ctx.realm, pathInt(ctx, 'user_group_id', invalidGroup), { add: [], remove: [], addSubgroups, removeSubgroups });
    return {};
  });

  r.post('/user_groups/{user_group_id}/deactivate', async (ctx) => {
    await deactivateUserGroup(ctx.services, ctx.user, ctx.realm, pathInt(ctx, 'user_group_id', invalidGroup));
    return {};
  });

  r.get('/user_groups/{user_group_id}/members', async (ctx) => {
    requireMemberOrAdmin(ctx.user);
    const id = pathInt(ctx, 'user_group_id', invalidGroup);
    const graph = await ctx.services.cache.groupGraph(ctx.realm.id, [id]);
    readableGroup(graph, id);
    const direct = ctx.params.bool('direct_member_only', false);
    const members = direct ? [...(graph.members.get(id) ?? [])] : [...groupMembersRecursive(graph, id)];
    return { members: members.sort((a, b) => a - b) };
  });

  r.get('/user_groups/{user_group_id}/subgroups', async (ctx) => {
    requireMemberOrAdmin(ctx.user);
    const id = pathInt(ctx, 'user_group_id', invalidGroup);
    const graph = await ctx.services.cache.groupGraph(ctx.realm.id, [id]);
    readableGroup(graph, id);
    const direct = ctx.params.bool('direct_subgroup_only', false);
    const out = new Set<number>();
    const stack = [...(graph.subgroups.get(id) ?? [])];
    while (stack.length) {
      const s = stack.pop()!;
      if (out.has(s)) continue;
      out.add(s);
      if (!direct) stack.push(...(graph.subgroups.get(s) ?? []));
    }
    return { subgroups: [...out].sort((a, b) => a - b) };
  });

  r.get('/user_groups/{user_group_id}/members/{user_id}', async (ctx) => {
    requireMemberOrAdmin(ctx.user);
    const id = pathInt(ctx, 'user_group_id', invalidGroup);
    readableGroup(await ctx.services.cache.groupGraph(ctx.realm.id, [id]), id);
    const userId = pathInt(ctx, 'user_id', () => new NoSuchUser());
    // access_user_by_id(for_admin=False): bots are no such user, and deactivated users are refused.
    const target = await ctx.services.cache.user(ctx.realm.id, userId);
    if (!target || target.is_bot) throw new NoSuchUser();
    if (!target.is_active) throw new BadRequest('User is deactivated');
    // Read after the user: a user the cache lacked joins it, and the graph then has their groups.
    const graph = await ctx.services.cache.groupGraph(ctx.realm.id);
    const direct = ctx.params.bool('direct_member_only', false);
    return { is_user_group_member: direct ? (graph.members.get(id)?.has(userId) ?? false) : isUserInGroup(graph, userId, id) };
  });
}
