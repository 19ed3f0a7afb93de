// In-memory caches where Zulip keeps one: organizations, their users (the "realm user dicts"),
// users by email for authentication, the user-group graph for permission checks, and the
// linkifiers and custom emoji every rendered message consults.
// Actions call the invalidate* methods after a commit that changes what a cache holds.
import type { Database } from './db.js';
import { getRealm, getRealmByStringId, SYSTEM_BOT_REALM, type Realm } from './realms.js';
import { getUsersByEmail, listRealmUsers, type User } from './users.js';
import { maxMessageIdOf } from './unreads.js';
import { listLinkifiers } from './linkifiers.js';
import { listRealmEmoji, type RealmEmojiRow } from './emoji.js';
import { compilePattern, type CompiledPattern } from '../lib/linkifier_patterns.js';

export interface LinkifierRule {
  re: CompiledPattern;
  template: string;
}
import { listGroups, realmGroupGraph, type SystemGroupName, type UserGroupRow } from './groups.js';

export interface CacheInvalidation {
  kind: 'realm' | 'users' | 'groups' | 'linkifiers' | 'emoji';
  realmId: number;
}

export interface GroupGraph {
  groups: Map<number, UserGroupRow>;
  members: Map<number, Set<number>>;
  subgroups: Map<number, number[]>;
  systemIds: Record<SystemGroupName, number>;
}

export class Cache {
  private realms = new Map<number, Realm>();
  private realmUsers = new Map<number, Map<number, User>>();
  private byEmail = new Map<string, User[]>();
  private groupGraphs = new Map<number, GroupGraph>();
  private linkifierRules = new Map<number, LinkifierRule[]>();
  private realmEmojiRows = new Map<number, RealmEmojiRow[]>();
  /** Each user's newest message id, kept current from the message events every process receives. */
  private maxMessageIds = new Map<number, number>();

  /** Set when several processes share the database: tells the others what this one invalidated. */
  broadcast: ((what: CacheInvalidation) => void) | null = null;

  constructor(private readonly database: Database) {}

  /** Applies an invalidation another process made, without passing it on again. */
  applyRemote(what: CacheInvalidation): void {
    const keep = this.broadcast;
    this.broadcast = null;
    try {
      if (what.kind === 'realm') this.invalidateRealm(what.realmId);
      else if (what.kind === 'users') this.invalidateUsers(what.realmId);
      else if (what.kind === 'groups') this.invalidateGroups(what.realmId);
      else if (what.kind === 'emoji') this.invalidateRealmEmoji(what.realmId);
      else this.invalidateLinkifiers(what.realmId);
    } finally {
      this.broadcast = keep;
    }
  }

  private systemRealmId: number | null = null;

  /**
   * The system bots every organization shares (the users of Zulip's internal organization,
   * SYSTEM_BOT_REALM), by id; empty before they are made.
   */
  async systemBots(): Promise<Map<number, User>> {
    if (this.systemRealmId === null) {
      const realm = await getRealmByStringId(this.database.db, SYSTEM_BOT_REALM);
      if (!realm) return new Map();
      this.systemRealmId = realm.id;
    }
    return this.users(this.systemRealmId);
  }

  /** The cached organization, without loading it. */
  cachedRealm(id: number): Realm | undefined {
    return this.realms.get(id);
  }

  async realm(id: number): Promise<Realm | undefined> {
    let realm = this.realms.get(id);
    if (!realm) {
      realm = await getRealm(this.database.db, id);
      if (realm) this.realms.set(id, realm);
    }
    return realm;
  }

  /** All users and bots of an organization, active or not, by id. */
  async users(realmId: number): Promise<Map<number, User>> {
    let users = this.realmUsers.get(realmId);
    if (!users) {
      const list = await listRealmUsers(this.database.db, realmId);
      users = new Map(list.map((u) => [u.id, u]));
      this.realmUsers.set(realmId, users);
    }
    return users;
  }

  /** A user of the given organization; undefined for an unknown id or one from elsewhere. */
  async user(realmId: number, userId: number): Promise<User | undefined> {
    return (await this.users(realmId)).get(userId);
  }

  /** The organization's users if they are cached, without loading them (a caller then awaits users()). */
  cachedUsers(realmId: number): Map<number, User> | undefined {
    return this.realmUsers.get(realmId);
  }

  /** usersByEmail's answer if it is cached, without loading it. */
  cachedUsersByEmail(email: string): User[] | undefined {
    return this.byEmail.get(email.toLowerCase());
  }

  async usersByEmail(email: string): Promise<User[]> {
    const key = email.toLowerCase();
    let users = this.byEmail.get(key);
    if (!users) {
      users = await getUsersByEmail(this.database.db, key);
      if (this.byEmail.size > 50_000) this.byEmail.clear();
      this.byEmail.set(key, users);
    }
    return users;
  }

  async groupGraph(realmId: number): Promise<GroupGraph> {
    let graph = this.groupGraphs.get(realmId);
    if (!graph) {
      const [groups, { members, subs }] = await Promise.all([
        listGroups(this.database.db, realmId),
        realmGroupGraph(this.database.db, realmId),
      ]);
      graph = { groups: new Map(), members: new Map(), subgroups: new Map(), systemIds: {} as Record<SystemGroupName, number> };
      for (const g of groups) {
        graph.groups.set(g.id, g);
        graph.members.set(g.id, new Set());
        graph.subgroups.set(g.id, []);
        if (g.is_system_group) graph.systemIds[g.name as SystemGroupName] = g.id;
      }
      for (const m of members) graph.members.get(m.group_id)?.add(m.user_id);
      for (const s of subs) graph.subgroups.get(s.group_id)?.push(s.subgroup_id);
      this.groupGraphs.set(realmId, graph);
    }
    return graph;
  }

  async maxMessageId(userId: number): Promise<number> {
    let id = this.maxMessageIds.get(userId);
    if (id === undefined) {
      id = await maxMessageIdOf(this.database.db, userId);
      if (this.maxMessageIds.size > 100_000) this.maxMessageIds.clear();
      this.maxMessageIds.set(userId, Math.max(id, this.maxMessageIds.get(userId) ?? 0));
    }
    return this.maxMessageIds.get(userId)!;
  }

  /** A message reached these users: only users already cached need updating. */
  noteMessage(messageId: number, userIds: Iterable<number>): void {
    for (const u of userIds) {
      const known = this.maxMessageIds.get(u);
      if (known !== undefined && known < messageId) this.maxMessageIds.set(u, messageId);
    }
  }

  /** The organization's linkifiers compiled for rendering, in order. */
  async linkifiers(realmId: number): Promise<LinkifierRule[]> {
    let rules = this.linkifierRules.get(realmId);
    if (!rules) {
      rules = [];
      for (const l of await listLinkifiers(this.database.db, realmId)) {
        const re = compilePattern(l.pattern);
        if (re) rules.push({ re, template: l.url_template });
      }
      this.linkifierRules.set(realmId, rules);
    }
    return rules;
  }

  /** The organization's custom emoji (deactivated ones included), for rendering :name:. */
  async realmEmoji(realmId: number): Promise<RealmEmojiRow[]> {
    let rows = this.realmEmojiRows.get(realmId);
    if (!rows) {
      rows = await listRealmEmoji(this.database.db, realmId);
      this.realmEmojiRows.set(realmId, rows);
    }
    return rows;
  }

  invalidateRealmEmoji(realmId: number): void {
    this.realmEmojiRows.delete(realmId);
    this.broadcast?.({ kind: 'emoji', realmId });
  }

  invalidateLinkifiers(realmId: number): void {
    this.linkifierRules.delete(realmId);
    this.broadcast?.({ kind: 'linkifiers', realmId });
  }

  invalidateRealm(realmId: number): void {
    this.realms.delete(realmId);
    this.broadcast?.({ kind: 'realm', realmId });
  }

  invalidateUsers(realmId: number): void {
    this.realmUsers.delete(realmId);
    this.byEmail.clear();
    this.broadcast?.({ kind: 'users', realmId });
  }

  invalidateGroups(realmId: number): void {
    this.groupGraphs.delete(realmId);
    this.broadcast?.({ kind: 'groups', realmId });
  }

  clear(): void {
    this.realms.clear();
    this.realmUsers.clear();
    this.byEmail.clear();
    this.groupGraphs.clear();
    this.maxMessageIds.clear();
    this.linkifierRules.clear();
    this.realmEmojiRows.clear();
  }
}

/** The group and all its subgroups, recursively (each once, cycles tolerated). */
function* groupAndSubgroups(graph: GroupGraph, groupId: number): Generator<number> {
  const seen = new Set<number>();
  const stack = [groupId];
  while (stack.length) {
    const id = stack.pop()!;
    if (seen.has(id)) continue;
    seen.add(id);
    yield id;
    for (const sub of graph.subgroups.get(id) ?? []) stack.push(sub);
  }
}

/** Whether the user is in the group, directly or through its subgroups. */
export function isUserInGroup(graph: GroupGraph, userId: number, groupId: number): boolean {
  for (const id of groupAndSubgroups(graph, groupId)) if (graph.members.get(id)?.has(userId)) return true;
  return false;
}

/** Every user in the group, directly or through subgroups. */
export function groupMembersRecursive(graph: GroupGraph, groupId: number): Set<number> {
  const out = new Set<number>();
  for (const id of groupAndSubgroups(graph, groupId)) for (const u of graph.members.get(id) ?? []) out.add(u);
  return out;
}
