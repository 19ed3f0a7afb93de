// Who may see a channel (metadata access) and who may read its messages (content access),
// following Zulip's rules. Missing and inaccessible channels must look the same to the caller.
import type { GroupGraph } from '../store/cache.js';
import { isUserInGroup } from '../store/cache.js';
import type { Stream } from '../store/channels.js';
import { ROLE, type User } from '../store/users.js';

export interface ChannelAccess {
  /** May see that the channel exists, its name, settings and subscribers. */
  metadata: boolean;
  /** May read its messages (subject to protected history) and subscribe to it. */
  content: boolean;
}

export function isRealmAdmin(user: User): boolean {
  return user.role === ROLE.owner || user.role === ROLE.administrator;
}

/**
 * The caller's access to a channel, given whether they are subscribed. Guests see only channels
 * they are subscribed to and web-public ones; members see every public channel; a private
 * channel is visible to its subscribers, to organization administrators (metadata only), and to
 * those its group settings let administer, add subscribers or subscribe.
 */
export function channelAccess(graph: GroupGraph, user: User, stream: Stream, subscribed: boolean): ChannelAccess {
  if (stream.realm_id !== user.realm_id) return { metadata: false, content: false };
  if (subscribed) return { metadata: true, content: true };
  if (stream.is_web_public) return { metadata: true, content: true };
  if (user.role === ROLE.guest) return { metadata: false, content: false };
  if (!stream.invite_only) return { metadata: true, content: true };
  const inGroup = (groupId: number) => isUserInGroup(graph, user.id, groupId);
  const canJoin = inGroup(stream.can_subscribe_group) || inGroup(stream.can_add_subscribers_group);
  if (canJoin) return { metadata: true, content: true };
  const metadata = isRealmAdmin(user) || inGroup(stream.can_administer_channel_group);
  return { metadata, content: false };
}

/**
 * Zulip's event_recipient_ids_for_action_on_messages: who hears of a deletion, reaction or vote on
 * messages of one conversation. A direct message: who received it. A channel with protected
 * history: its subscribers who received them; a private one with shared history: its subscribers;
 * a public one: its subscribers and anyone else holding the messages, guests aside.
 */
export function messageActionAudience(holders: Iterable<number>, stream: Stream | undefined, subscribers: readonly number[], users: ReadonlyMap<number, User>): Set<number> {
  if (!stream) return new Set(holders);
  const subs = new Set(subscribers);
  if (!stream.history_public_to_subscribers) return new Set([...holders].filter((u) => subs.has(u)));
  if (stream.invite_only) return subs;
  for (const u of holders) if (users.get(u)?.role !== ROLE.guest) subs.add(u);
  return subs;
}
