// DELETE /users/me/subscriptions: leaving channels, or removing others from them.
import type { Services } from '../services.js';
import type { Realm } from '../store/realms.js';
import { ROLE, type User } from '../store/users.js';
import { deactivateSubscriptions, getStreamByName, subscriberIdsByStream, type Stream } from '../store/channels.js';
import { isUserInGroup } from '../store/cache.js';
import { BadRequest, NotAllowed } from '../errors.js';
import { validateChannelName } from './channels.js';
import { channelAccess, isRealmAdmin } from '../access/channel_access.js';
import { peerEventBatches, usersWhoCanSee } from '../shapes/channels.js';
import type { Executor } from '../store/db.js';
import { publishAfterCommit, type OnCommit } from '../events/publish.js';
import { readFlagsEvent, type ConfabEvent } from '../events/types.js';
import { unreadMessageIdsByStream } from '../store/unreads.js';
import { setReadFlag } from '../store/messages.js';

/**
 * Who may remove a subscriber (the founding document's three rules): organization administrators
 * anyone from any channel; users themselves and the bots they own from channels they can access;
 * and users with access who are in the channel's can_remove_subscribers_group.
 */
function mayRemove(caller: User, target: User, stream: Stream, callerHasAccess: boolean, inRemoveGroup: boolean): boolean {
  // Leaving is always allowed (Zulip checks no right when one unsubscribes only oneself); without
  // access one is not subscribed, so it answers not_removed.
  if (isRealmAdmin(caller) || target.id === caller.id) return true;
  if (!callerHasAccess) return false;
  if (target.is_bot && target.bot_owner_id === caller.id) return true;
  return inRemoveGroup;
}

export interface UnsubscribeResult {
  removed: string[];
  not_removed: string[];
}

export async function unsubscribe(
  services: Services,
  caller: User,
  realm: Realm,
  names: string[],
  principals: User[] | undefined,
): Promise<UnsubscribeResult> {
  const write = await prepareUnsubscribe(services, caller, realm, names, principals);
  return services.database.transaction(write);
}

/**
 * Every check of DELETE /users/me/subscriptions, before anything is written; the returned
 * function does the writes inside the caller's transaction and queues the events on its commit.
 */
export async function prepareUnsubscribe(
  services: Services,
  caller: User,
  realm: Realm,
  names: string[],
  principals: User[] | undefined,
): Promise<(tx: Executor, onCommit: OnCommit) => Promise<UnsubscribeResult>> {
  const db = services.database.db;
  const graph = await services.cache.groupGraph(realm.id);
  const targets = principals ?? [caller];
  // As Zulip's list_to_streams: every name is checked (check_stream_name), the rights are checked
  // on the channels that exist, and then the missing ones are named together. Zulip finds a private
  // channel the caller may not see as it finds any other: leaving it oneself answers not_removed,
  // removing others from it 'Insufficient permission' (can_remove_subscribers_from_stream). That
  // tells a member only what subscribing already does ('Unable to access channel'); a guest, who
  // may not subscribe, would learn a hidden channel's name from it, so for guests such a channel
  // stays as missing as one that does not exist.
  const trimmed = names.map((name) => name.trim());
  for (const name of new Set(trimmed)) validateChannelName(name);
  const streams: Stream[] = [];
  const missing: string[] = [];
  for (const name of trimmed) {
    const stream = await getStreamByName(db, realm.id, name);
    const subs = stream ? (await subscriberIdsByStream(db, [stream.id])).get(stream.id)! : [];
    const hidden = stream !== undefined && caller.role === ROLE.guest && !channelAccess(graph, caller, stream, subs.includes(caller.id)).metadata;
    if (!stream || hidden) missing.push(name);
    else if (!streams.some((s) => s.id === stream.id)) streams.push(stream);
  }
  const before = await subscriberIdsByStream(db, streams.map((s) => s.id));
  for (const stream of streams) {
    const current = new Set(before.get(stream.id) ?? []);
    const access = channelAccess(graph, caller, stream, current.has(caller.id)).metadata;
    const inGroup = isUserInGroup(graph, caller.id, stream.can_remove_subscribers_group);
    for (const target of targets) {
      if (!mayRemove(caller, target, stream, access, inGroup)) throw new NotAllowed('Insufficient permission');
    }
  }
  if (missing.length) throw new BadRequest(`Channel(s) (${missing.join(', ')}) do not exist`);

  const users = [...(await services.cache.users(realm.id)).values()];
  return async (tx, onCommit) => {
    const removed: string[] = [];
    const notRemoved: string[] = [];
    const removedBy = new Map<number, number[]>();
    for (const stream of streams) {
      const current = new Set(before.get(stream.id) ?? []);
      const leaving = targets.filter((t) => current.has(t.id)).map((t) => t.id);
      for (const t of targets) (current.has(t.id) ? removed : notRemoved).push(stream.name);
      await deactivateSubscriptions(tx, stream.id, leaving);
      removedBy.set(stream.id, leaving);
    }
    // After the commit, as Zulip's send_subscription_remove_events: each leaver gets one remove event
    // naming every channel they left, then a delete for the private ones they may no longer see;
    // then the rest of each channel's audience sees them go (peer_remove, one event for channels
    // with the same leavers and the same audience).
    const publish = (userIds: number[], event: ConfabEvent) => publishAfterCommit(services, onCommit, { realmId: realm.id, userIds, event });
    const viewersOf = new Map<number, number[]>();
    for (const stream of streams) {
      const leaving = removedBy.get(stream.id) ?? [];
      const remaining = new Set((before.get(stream.id) ?? []).filter((id) => !leaving.includes(id)));
      viewersOf.set(stream.id, usersWhoCanSee(graph, users, stream, remaining));
    }
    for (const target of targets) {
      const left = streams.filter((s) => removedBy.get(s.id)?.includes(target.id));
      if (left.length === 0) continue;
      publish([target.id], { type: 'subscription', op: 'remove', subscriptions: left.map((s) => ({ stream_id: s.id, name: s.name })) });
      const gone = left.filter((s) => !viewersOf.get(s.id)!.includes(target.id));
      if (gone.length) publish([target.id], { type: 'stream', op: 'delete', streams: gone.map((s) => ({ stream_id: s.id })), stream_ids: gone.map((s) => s.id) });
    }
    for (const b of peerEventBatches(streams, (id) => removedBy.get(id), viewersOf)) {
      publish(b.peers, { type: 'subscription', op: 'peer_remove', stream_ids: b.streamIds, user_ids: b.userIds });
    }
    // Zulip's send_subscription_remove_events then queues mark_stream_messages_as_read: a leaver's
    // unread messages in each channel left become read (do_mark_stream_messages_as_read, one flags
    // event per channel that had any).
    // One read of each leaver's unread messages in all the channels they left, one update.
    for (const target of targets) {
      const left = streams.filter((s) => removedBy.get(s.id)?.includes(target.id));
      if (left.length === 0) continue;
      const unreadIn = await unreadMessageIdsByStream(tx, services.database.dialect, target.id, left.map((s) => s.id));
      if (unreadIn.size === 0) continue;
      await setReadFlag(tx, target.id, [...unreadIn.values()].flat());
      for (const stream of left) {
        const ids = unreadIn.get(stream.id);
        if (ids) publish([target.id], readFlagsEvent(ids));
      }
    }
    return { removed, not_removed: notRemoved };
  };
}
