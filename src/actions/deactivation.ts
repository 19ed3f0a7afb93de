// Deactivating and reactivating accounts. A deactivated account's key stops working at once (the
// user cache is invalidated on commit) and its open event queues are closed.
import type { Services } from '../services.js';
import type { Realm } from '../store/realms.js';
import type { User } from '../store/users.js';
import { BOT_TYPE, ROLE, updateUser } from '../store/users.js';
import { ApiError, BadRequest, NoSuchUser, NotAllowed, OwnerRequired } from '../errors.js';
import { mayCreateBot } from './users.js';
import { publishAfterCommit } from '../events/publish.js';
import { isRealmAdmin } from '../access/channel_access.js';
import type { Executor } from '../store/db.js';
import { deleteMessagesByIds, messagesSentBy } from '../store/messages.js';
import { deleteMessageEvent, type ConfabEvent } from '../events/types.js';
import { userSettingsOf } from '../lib/user_settings.js';
import type { GroupGraph } from '../store/cache.js';
import { activeUserSubscriberIds, allSubscriptionsOf, getStreamsByIds } from '../store/channels.js';
import { usersWhoCanSee } from '../shapes/channels.js';

export interface DeactivationActions {
  delete_profile?: boolean;
  delete_public_channel_messages?: boolean;
  delete_private_channel_messages?: boolean;
  delete_direct_messages?: boolean;
}

export class CannotDeactivateLastUser extends ApiError {
  constructor(isLastOwner: boolean) {
    super(
      isLastOwner ? 'Cannot deactivate the only organization owner' : 'Cannot deactivate the only user.',
      'CANNOT_DEACTIVATE_LAST_USER',
      400,
      { entity: isLastOwner ? 'organization owner' : 'user', is_last_owner: isLastOwner },
    );
  }
}

function activeOwners(users: Iterable<User>): User[] {
  return [...users].filter((u) => u.is_active && !u.is_bot && u.role === ROLE.owner);
}

/** Deletes the user's messages of the chosen kinds; returns them with their recipients. */
async function deleteMessagesOf(tx: Executor, user: User, a: DeactivationActions) {
  const rows = await messagesSentBy(tx, user.id);
  const chosen = rows.filter((m) =>
    m.recipient_type === 'direct' ? a.delete_direct_messages : m.invite_only ? a.delete_private_channel_messages : a.delete_public_channel_messages,
  );
  const recipients = await deleteMessagesByIds(tx, user.realm_id, chosen.map((m) => m.id));
  return { chosen, recipients };
}

export async function deactivateUser(
  services: Services,
  caller: User,
  realm: Realm,
  targetId: number,
  o: { actions: DeactivationActions; self: boolean },
): Promise<void> {
  const users = await services.cache.usersIncluding(realm.id, [targetId]);
  const target = users.get(targetId);
  if (!target || (!o.self && target.is_bot)) throw new NoSuchUser();
  if (!o.self) {
    // Zulip's access_user_by_id(for_admin=True): a deactivated target first, then can_admin_user.
    if (!target.is_active) throw new BadRequest('User is deactivated');
    if (!isRealmAdmin(caller)) throw new NotAllowed('Insufficient permission');
    if (target.role === ROLE.owner && caller.role !== ROLE.owner) throw new OwnerRequired();
    if (target.role === ROLE.owner && activeOwners(users.values()).length <= 1) throw new BadRequest('Cannot deactivate the only organization owner');
  } else {
    // Zulip's deactivate_user_own_backend: the only active account (bots count) first, then the only owner.
    if ([...users.values()].filter((u) => u.is_active).length <= 1) throw new CannotDeactivateLastUser(false);
    if (target.role === ROLE.owner && activeOwners(users.values()).length <= 1) throw new CannotDeactivateLastUser(true);
  }
  const bots = [...users.values()].filter((u) => u.is_bot && u.is_active && u.bot_owner_id === target.id);

  await writeDeactivation(services, realm, users, target, [...bots, target], o.actions);
}

/**
 * Deactivates the accounts (a user's bots first, then the user) in one transaction, with the
 * deletions the actions ask for. `owner` is the person whose deactivation this is (or a lone bot's
 * owner): the bots' realm_bot removal goes to them and the administrators.
 */
export async function writeDeactivation(
  services: Services,
  realm: Realm,
  users: ReadonlyMap<number, User>,
  owner: User,
  accounts: User[],
  actions: DeactivationActions,
): Promise<void> {
  const audience = [...users.values()].filter((u) => u.is_active).map((u) => u.id);
  const admins = [...users.values()].filter((u) => u.is_active && isRealmAdmin(u)).map((u) => u.id);
  const graph = await services.cache.groupGraph(realm.id);
  await services.database.transaction(async (tx, onCommit) => {
    const gone = new Set<number>();
    // The user's bots go first, then the user; the deletion actions apply to bots first too.
    for (const account of accounts) {
      if (actions.delete_public_channel_messages || actions.delete_private_channel_messages || actions.delete_direct_messages) {
        const { chosen, recipients } = await deleteMessagesOf(tx, account, actions);
        for (const m of chosen) {
          publishAfterCommit(services, onCommit, { realmId: realm.id, userIds: recipients.get(m.id) ?? [], event: deleteMessageEvent(m) });
        }
      }
      const fields: Parameters<typeof updateUser>[2] = { is_active: false };
      if (actions.delete_profile && account.id === owner.id) {
        fields.full_name = 'Deleted user';
        fields.avatar_version = account.avatar_version + 1;
      }
      await updateUser(tx, account.id, fields);
      gone.add(account.id);
      // send_events_for_user_deactivation: those who see the account's channels' subscribers see it go
      // (peer_remove, its subscriptions stay), then everyone hears it is no longer active.
      for (const e of await peerEventsFor(tx, graph, users, gone, account.id, 'peer_remove', true)) publishAfterCommit(services, onCommit, { realmId: realm.id, ...e });
      publishAfterCommit(services, onCommit, { realmId: realm.id, userIds: audience, event: { type: 'realm_user', op: 'update', person: { user_id: account.id, is_active: false } } });
      if (fields.full_name) {
        publishAfterCommit(services, onCommit, { realmId: realm.id, userIds: audience, event: { type: 'realm_user', op: 'update', person: { user_id: account.id, full_name: fields.full_name } } });
      }
      if (account.is_bot) {
        // do_deactivate_user: realm_bot/update with is_active (realm_bot/remove is no longer sent since feature level 222).
        publishAfterCommit(services, onCommit, { realmId: realm.id, userIds: [...new Set([owner.id, ...admins])], event: { type: 'realm_bot', op: 'update', bot: { user_id: account.id, is_active: false } } });
      }
    }
    onCommit(() => {
      services.cache.invalidateUsers(realm.id);
      // Open long-polls end now: their queues are deleted (a parked poll is answered, then gone).
      for (const account of accounts) for (const q of services.queues.queuesOf(account.id)) services.queues.delete(q);
    });
  });
}

/**
 * The peer events for an account just deactivated (peer_remove, Zulip's send_peer_remove_events)
 * or reactivated (peer_add): for each channel it is subscribed to, those who may see the channel's
 * subscribers, other than the account and those already deactivated; channels with the same
 * audience share one event.
 */
async function peerEventsFor(
  tx: Executor,
  graph: GroupGraph,
  users: ReadonlyMap<number, User>,
  gone: ReadonlySet<number>,
  accountId: number,
  op: 'peer_add' | 'peer_remove',
  includeArchived: boolean,
): Promise<Array<{ userIds: number[]; event: ConfabEvent }>> {
  const streamIds = (await allSubscriptionsOf(tx, accountId)).filter((s) => s.active).map((s) => s.stream_id);
  if (streamIds.length === 0) return [];
  const realmId = users.get(accountId)!.realm_id;
  const streams = (await getStreamsByIds(tx, realmId, streamIds)).filter((s) => includeArchived || !s.is_archived);
  const subscribers = await activeUserSubscriberIds(tx, streamIds);
  const stillActive = [...users.values()].filter((u) => !gone.has(u.id));
  const batches = new Map<string, { streamIds: number[]; peers: number[] }>();
  for (const stream of streams) {
    const peers = usersWhoCanSee(graph, stillActive, stream, new Set(subscribers.get(stream.id) ?? [])).filter((id) => id !== accountId);
    if (peers.length === 0) continue;
    const key = peers.join(',');
    const batch = batches.get(key) ?? batches.set(key, { streamIds: [], peers }).get(key)!;
    batch.streamIds.push(stream.id);
  }
  return [...batches.values()].map((b) => ({
    userIds: b.peers,
    event: { type: 'subscription', op, stream_ids: b.streamIds.sort((x, y) => x - y), user_ids: [accountId] },
  }));
}

/**
 * POST /users/{id}/reactivate, as Zulip's reactivate_user_backend: the user is looked up first
 * (access_user_by_id with deactivated users and bots allowed), then the caller must be able to
 * administer them (an administrator, or the bot's owner); a bot also needs its owner's right to
 * create such a bot and a name no active account holds (check_bot_name_available, which an
 * active bot's own name fails).
 */
export async function reactivateUser(services: Services, caller: User, realm: Realm, targetId: number): Promise<void> {
  const users = await services.cache.usersIncluding(realm.id, [targetId]);
  const target = users.get(targetId);
  if (!target) throw new NoSuchUser();
  const ownsBot = target.is_bot && target.bot_owner_id === caller.id;
  if (!isRealmAdmin(caller) && !ownsBot) throw new NotAllowed('Insufficient permission');
  if (target.is_bot) {
    if (!mayCreateBot(await services.cache.groupGraph(realm.id), realm, caller, target.bot_type ?? BOT_TYPE.generic)) throw new NotAllowed('Insufficient permission');
    const name = target.full_name.trim();
    if ([...users.values()].some((u) => u.is_active && u.full_name === name)) {
      throw new BadRequest(`There is already an active bot named "${target.full_name}" in this organization. To reactivate this bot, you must rename or deactivate the other one first.`);
    }
  }
  // Zulip's do_reactivate_user does not refuse an active account: it runs again, its events
  // (is_active, export consent or realm_bot, peer_add, add_members) sent again as for a return.
  const audience = [...users.values()].filter((u) => u.is_active && u.id !== target.id).map((u) => u.id);
  const graph = await services.cache.groupGraph(realm.id);
  await services.database.transaction(async (tx, onCommit) => {
    await updateUser(tx, target.id, { is_active: true });
    const everyone = [...audience, target.id];
    const publish = (userIds: number[], event: ConfabEvent) => {
      if (userIds.length) publishAfterCommit(services, onCommit, { realmId: realm.id, userIds, event });
    };
    // do_reactivate_user's events, in its order.
    publish(everyone, { type: 'realm_user', op: 'update', person: { user_id: target.id, is_active: true } });
    const humanAdmins = [...users.values()].filter((u) => u.is_active && !u.is_bot && isRealmAdmin(u)).map((u) => u.id);
    if (!target.is_bot) {
      publish(humanAdmins, { type: 'realm_export_consent', user_id: target.id, consented: !!userSettingsOf(target.settings).allow_private_data_export });
    } else {
      const owners = new Set(humanAdmins);
      if (target.bot_owner_id !== null && users.get(target.bot_owner_id)?.is_active) owners.add(target.bot_owner_id);
      publish([...owners], { type: 'realm_bot', op: 'update', bot: { user_id: target.id, is_active: true } });
    }
    // Its channels' audiences see it back (peer_add, for channels not archived).
    const now = new Map(users);
    now.set(target.id, { ...target, is_active: true });
    for (const e of await peerEventsFor(tx, graph, now, new Set(), target.id, 'peer_add', false)) publish(e.userIds, e.event);
    // And its groups get it back (do_send_user_group_members_update_event for each named group it is directly in).
    const groupIds = [...graph.members.entries()].filter(([id, members]) => members.has(target.id) && graph.groups.get(id)?.named).map(([id]) => id).sort((a, b) => a - b);
    for (const groupId of groupIds) publish(everyone, { type: 'user_group', op: 'add_members', group_id: groupId, user_ids: [target.id] });
    onCommit(() => services.cache.invalidateUsers(realm.id));
  });
}
