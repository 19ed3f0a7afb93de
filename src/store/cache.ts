// In-memory caches where Zulip keeps one: organizations, their users (the "realm user dicts"),
// users by email for authentication, the user-group graph for permission checks, the
// linkifiers and custom emoji every rendered message consults, and what every send reads about
// its people: the organization's alert words (alert_words_in_realm) and who muted the sender
// (get_muting_users).
// Actions call the invalidate* methods after a commit that changes what a cache holds.
//
// With several processes the others hear of an invalidation through Redis a moment after the
// commit, so a cached collection can lack a user or group another process has just made. A
// lookup by id or address that misses therefore reads that one row before answering "absent"
// (user, usersIncluding, usersAtAddress, usersByEmail, groupGraph's `including`), and a row
// found is added to the cached collection. Hits never query; a miss that is a real absence
// costs one indexed query and is not remembered, so garbage ids neither grow memory nor stick.
// Whole collections (users(), listing "all users") may still be a moment stale: that is accepted.
import type { Database } from './db.js';
import { getRealm, getRealmByStringId, SYSTEM_BOT_REALM, type Realm } from './realms.js';
import { getRealmUsersByAddress, getRealmUsersByIds, getUsersByEmail, listRealmUsers, type User } from './users.js';
import { maxMessageIdOf } from './unreads.js';
import { listLinkifiers } from './linkifiers.js';
import { listRealmEmoji, type RealmEmojiRow } from './emoji.js';
import { compilePattern, type CompiledPattern } from '../lib/linkifier_patterns.js';
import { realmAlertWords } from './alert_words.js';
import { mutersOf } from './muted_users.js';

export interface LinkifierRule {
  re: CompiledPattern;
  template: string;
}
import { existingGroupIds, listGroups, realmGroupGraph, type SystemGroupName, type UserGroupRow } from './groups.js';

export type CacheInvalidation =
  | { kind: 'realm' | 'users' | 'groups' | 'linkifiers' | 'emoji' | 'alert_words'; realmId: number }
  /** The users who muted `userId`. */
  | { kind: 'muters'; realmId: number; userId: number };

/** At most this many users' muters are kept (a send reads its sender's). */
const MAX_MUTERS_KEPT = 100_000;

/** Ids read per query when looking up misses (well under PostgreSQL's bound on parameters). */
const MAX_IDS_PER_QUERY = 1000;

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
  /** Each organization's users' alert words, by user (only users with some; deactivated ones' too). */
  private alertWordsByRealm = new Map<number, ReadonlyMap<number, readonly string[]>>();
  /** Who muted each user, by the muted user's id. */
  private mutersByUser = new Map<number, ReadonlySet<number>>();
  /**
   * Bumped by every invalidation of alert words or muters: a load that began before one must not
   * keep what it read (it may predate the change the invalidation announced).
   */
  private generation = 0;

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
      else if (what.kind === 'alert_words') this.invalidateAlertWords(what.realmId);
      else if (what.kind === 'muters') this.invalidateMuters(what.realmId, what.userId);
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

  /**
   * All users and bots of an organization, active or not, by id. As a whole it may lack a user
   * another process made a moment ago (until that process's invalidation arrives): whoever
   * looks up ids or addresses a request names goes through user(), usersIncluding() or
   * usersAtAddress(), which read a missing one from the database.
   */
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
    const users = this.realmUsers.get(realmId) ?? (await this.users(realmId));
    return users.get(userId) ?? (await this.usersIncluding(realmId, [userId])).get(userId);
  }

  /**
   * The organization's users, with every one of `ids` that exists in it: ids the cached map lacks
   * are read in one query and added. The same map users() answers (no copy); a hit costs no query.
   */
  async usersIncluding(realmId: number, ids: Iterable<number>): Promise<Map<number, User>> {
    const users = this.realmUsers.get(realmId) ?? (await this.users(realmId));
    let missing: number[] | undefined;
    for (const id of ids) if (!users.has(id) && Number.isSafeInteger(id)) (missing ??= []).push(id);
    if (!missing) return users;
    const found: User[] = [];
    for (let i = 0; i < missing.length; i += MAX_IDS_PER_QUERY) {
      found.push(...(await getRealmUsersByIds(this.database.db, realmId, missing.slice(i, i + MAX_IDS_PER_QUERY))));
    }
    return this.adoptUsers(realmId, users, found);
  }

  /**
   * The organization's accounts an address (an email, or a placeholder "user<id>@…") may name,
   * read from the database: for an address the cached users did not match. The caller decides,
   * as for cached ones, which of them the viewer may name so. Those found join the cache.
   */
  async usersAtAddress(realmId: number, address: string): Promise<User[]> {
    const users = this.realmUsers.get(realmId) ?? (await this.users(realmId));
    const found = await getRealmUsersByAddress(this.database.db, realmId, address.trim());
    this.adoptUsers(realmId, users, found);
    // The rows as read: a cached copy of one may be older (its address changed elsewhere).
    return found;
  }

  /**
   * Adds users read from the database to the organization's cached map, unless the map was
   * dropped meanwhile (an invalidation: the next load reads them) or already has them (a newer
   * load). The group graph of an organization that gained a user is dropped here, not broadcast:
   * it lacks the new user's system-group memberships as well.
   */
  private adoptUsers(realmId: number, loaded: Map<number, User>, found: readonly User[]): Map<number, User> {
    const current = this.realmUsers.get(realmId);
    if (current === undefined) {
      // Dropped while reading: answer from what was read, without caching it.
      const answer = new Map(loaded);
      for (const u of found) if (!answer.has(u.id)) answer.set(u.id, u);
      return answer;
    }
    let added = false;
    for (const u of found) {
      if (current.has(u.id)) continue;
      current.set(u.id, u);
      added = true;
    }
    if (added) this.groupGraphs.delete(realmId);
    return current;
  }

  /** The organization's users if they are cached, without loading them (a caller then awaits users()). */
  cachedUsers(realmId: number): Map<number, User> | undefined {
    return this.realmUsers.get(realmId);
  }

  /** usersByEmail's answer if it is cached, without loading it. */
  cachedUsersByEmail(email: string): User[] | undefined {
    return this.byEmail.get(email.toLowerCase());
  }

  /**
   * Every account with this email, in any organization. Only non-empty answers are kept: an
   * address with no account (yet, in this process's view) is asked of the database each time,
   * so garbage addresses take no memory and a new account is never refused for a cached absence.
   * `fresh` reads past the cache (a caller whose candidates failed, e.g. a key changed elsewhere).
   */
  async usersByEmail(email: string, opts: { fresh?: boolean } = {}): Promise<User[]> {
    const key = email.toLowerCase();
    let users = opts.fresh ? undefined : this.byEmail.get(key);
    if (!users) {
      users = await getUsersByEmail(this.database.db, key);
      if (users.length === 0) {
        this.byEmail.delete(key);
        return users;
      }
      if (this.byEmail.size > 50_000) this.byEmail.clear();
      this.byEmail.set(key, users);
    }
    return users;
  }

  /**
   * The organization's group graph. `including`: group ids a request or a row names; if the
   * graph lacks one that exists in the database (made by another process a moment ago), the
   * graph is read again. Ids it has cost nothing; an unknown one one indexed query.
   */
  async groupGraph(realmId: number, including?: Iterable<number>): Promise<GroupGraph> {
    let graph = this.groupGraphs.get(realmId) ?? (await this.loadGroupGraph(realmId));
    if (including === undefined) return graph;
    let missing: number[] | undefined;
    for (const id of including) if (!graph.groups.has(id) && Number.isSafeInteger(id)) (missing ??= []).push(id);
    if (!missing) return graph;
    const exist = await existingGroupIds(this.database.db, realmId, missing.slice(0, MAX_IDS_PER_QUERY));
    if (exist.length === 0) return graph;
    // Reloaded unless a load newer than the one that lacked them has them already.
    const current = this.groupGraphs.get(realmId);
    if (current && current !== graph && exist.every((id) => current.groups.has(id))) return current;
    this.groupGraphs.delete(realmId);
    graph = await this.loadGroupGraph(realmId);
    return graph;
  }

  private async loadGroupGraph(realmId: number): Promise<GroupGraph> {
    const [groups, { members, subs }] = await Promise.all([
      listGroups(this.database.db, realmId),
      realmGroupGraph(this.database.db, realmId),
    ]);
    const graph: GroupGraph = { groups: new Map(), members: new Map(), subgroups: new Map(), systemIds: {} as Record<SystemGroupName, number> };
    for (const g of groups) {
      graph.groups.set(g.id, g);
      graph.members.set(g.id, new Set());
      graph.subgroups.set(g.id, []);
      if (g.is_system_group) graph.systemIds[g.name as SystemGroupName] = g.id;
    }
    for (const m of members) graph.members.get(m.group_id)?.add(m.user_id);
    for (const s of subs) graph.subgroups.get(s.group_id)?.push(s.subgroup_id);
    this.groupGraphs.set(realmId, graph);
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

  /** The organization's users' alert words, by user: what every send matches its content against. */
  async alertWords(realmId: number): Promise<ReadonlyMap<number, readonly string[]>> {
    let words = this.alertWordsByRealm.get(realmId);
    if (!words) {
      const generation = this.generation;
      words = await realmAlertWords(this.database.db, realmId);
      if (generation === this.generation) this.alertWordsByRealm.set(realmId, words);
    }
    return words;
  }

  /** The users who muted this user: a message from them arrives read for these. */
  async muters(userId: number): Promise<ReadonlySet<number>> {
    let muters = this.mutersByUser.get(userId);
    if (!muters) {
      const generation = this.generation;
      muters = await mutersOf(this.database.db, userId);
      if (generation === this.generation) {
        if (this.mutersByUser.size >= MAX_MUTERS_KEPT) this.mutersByUser.clear();
        this.mutersByUser.set(userId, muters);
      }
    }
    return muters;
  }

  invalidateAlertWords(realmId: number): void {
    this.generation++;
    this.alertWordsByRealm.delete(realmId);
    this.broadcast?.({ kind: 'alert_words', realmId });
  }

  invalidateMuters(realmId: number, mutedUserId: number): void {
    this.generation++;
    this.mutersByUser.delete(mutedUserId);
    this.broadcast?.({ kind: 'muters', realmId, userId: mutedUserId });
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
    this.generation++;
    this.alertWordsByRealm.clear();
    this.mutersByUser.clear();
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
