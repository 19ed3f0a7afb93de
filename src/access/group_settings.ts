// Group-setting values: a permission held by a user group. The API shows a named group by its id
// and an anonymous one as {direct_members, direct_subgroups}; both forms are accepted as input.
import type { Cache, GroupGraph } from '../store/cache.js';
import { isUserInGroup } from '../store/cache.js';
import { BadRequest } from '../errors.js';

export type GroupSettingValue = number | { direct_members: number[]; direct_subgroups: number[] };

/** The API form of the group stored as a setting's value. */
export function groupSettingValue(graph: GroupGraph, groupId: number): GroupSettingValue {
  const group = graph.groups.get(groupId);
  if (!group || group.named) return groupId;
  return {
    direct_members: [...(graph.members.get(groupId) ?? [])].sort((a, b) => a - b),
    direct_subgroups: [...(graph.subgroups.get(groupId) ?? [])].sort((a, b) => a - b),
  };
}

/**
 * The users and groups some values name, for the cache to read any it lacks (made by another
 * process a moment ago) before the values are checked against it.
 */
export function idsNamedBy(values: Iterable<GroupSettingValue | undefined>): { userIds: number[]; groupIds: number[] } {
  const userIds: number[] = [];
  const groupIds: number[] = [];
  for (const v of values) {
    if (v === undefined) continue;
    if (typeof v === 'number') groupIds.push(v);
    else {
      userIds.push(...v.direct_members);
      groupIds.push(...v.direct_subgroups);
    }
  }
  return { userIds, groupIds };
}

/** Whether the user holds the permission stored as this group-setting value. */
export async function userHasGroupPermission(cache: Cache, realmId: number, userId: number, groupId: number): Promise<boolean> {
  return isUserInGroup(await cache.groupGraph(realmId), userId, groupId);
}

/** Checks a client-supplied value (already JSON-decoded) and returns it in canonical form. */
export function parseGroupSettingValue(v: unknown, name: string): GroupSettingValue {
  if (typeof v === 'number' && Number.isSafeInteger(v)) return v;
  if (typeof v === 'object' && v !== null && !Array.isArray(v)) {
    const o = v as Record<string, unknown>;
    const members = o.direct_members;
    const subgroups = o.direct_subgroups;
    const ints = (x: unknown) => Array.isArray(x) && x.every((i) => typeof i === 'number' && Number.isSafeInteger(i));
    if (ints(members) && ints(subgroups) && Object.keys(o).every((k) => k === 'direct_members' || k === 'direct_subgroups')) {
      return { direct_members: [...new Set(members as number[])], direct_subgroups: [...new Set(subgroups as number[])] };
    }
  }
  throw new BadRequest(`${name} is not a valid group setting value`);
}

/** A group-setting update as clients send it: {new, old?}, both in either value form. */
export function parseGroupSettingUpdate(v: unknown, name: string): { new: GroupSettingValue; old?: GroupSettingValue } {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new BadRequest(`${name} is not a dict`);
  const o = v as Record<string, unknown>;
  if (!('new' in o)) throw new BadRequest(`${name} must have a 'new' value`);
  for (const k of Object.keys(o)) if (k !== 'new' && k !== 'old') throw new BadRequest(`Invalid ${name}`);
  return { new: parseGroupSettingValue(o.new, `${name}.new`), ...('old' in o ? { old: parseGroupSettingValue(o.old, `${name}.old`) } : {}) };
}

/** Whether two values denote the same setting (for the `old` check of an update). */
export function sameGroupSettingValue(a: GroupSettingValue, b: GroupSettingValue): boolean {
  if (typeof a === 'number' || typeof b === 'number') return a === b;
  const eq = (x: number[], y: number[]) => x.length === y.length && [...x].sort().every((v, i) => v === [...y].sort()[i]);
  return eq(a.direct_members, b.direct_members) && eq(a.direct_subgroups, b.direct_subgroups);
}
