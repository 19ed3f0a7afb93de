// Deleting a message: Zulip's validate_can_delete_message (any-message and own-message permissions of
// the organization and the channel, one's bots' messages, the time limit); delete_message events to everyone who had it.
import type { Services } from '../services.js';
import { nowSeconds } from '../services.js';
import type { Realm } from '../store/realms.js';
import type { User } from '../store/users.js';
import { getStream, subscriberIds, type Stream } from '../store/channels.js';
import { deleteMessagesByIds, type MessageRow } from '../store/messages.js';
import { isUserInGroup, type GroupGraph } from '../store/cache.js';
import { BadRequest } from '../errors.js';
import { publishAfterCommit } from '../events/publish.js';
import { modifiableMessage } from '../queries/message_access.js';
import { messageActionAudience } from '../access/channel_access.js';
import { deleteMessageEvent } from '../events/types.js';

/** Whether a message sent at sentAt is still within a time limit (null: no limit). */
export function withinLimit(sentAt: number, limit: number | null): boolean {
  return limit === null || nowSeconds() - sentAt <= limit;
}

export async function deleteMessage(services: Services, user: User, realm: Realm, id: number): Promise<void> {
  const message = await modifiableMessage(services, user, id);
  const graph = await services.cache.groupGraph(realm.id);
  const stream = message.stream_id === null ? undefined : await getStream(services.database.db, realm.id, message.stream_id);
  const users = await services.cache.users(realm.id);
  checkCanDelete(graph, user, realm, message, stream, users.get(message.sender_id));
  await services.database.transaction(async (tx, onCommit) => {
    const subscribers = stream ? await subscriberIds(tx, stream.id) : [];
    const holders = (await deleteMessagesByIds(tx, realm.id, [message.id])).get(message.id) ?? [];
    // Zulip's do_delete_messages: those who can see the message, and always the one deleting it.
    const told = messageActionAudience(holders, stream, subscribers, users).add(user.id);
    publishAfterCommit(services, onCommit, { realmId: realm.id, userIds: [...told], event: deleteMessageEvent(message) });
  });
}

/**
 * Zulip's validate_can_delete_message: anyone allowed to delete any message (organization or
 * channel) may; otherwise only one's own messages or one's bots', with the permission to delete
 * one's own (organization or channel), and within the time limit, which has its own error.
 */
function checkCanDelete(graph: GroupGraph, user: User, realm: Realm, message: MessageRow, stream: Stream | undefined, sender: User | undefined): void {
  const s = realm.settings;
  const inGroup = (g: number) => isUserInGroup(graph, user.id, g);
  if (inGroup(s.can_delete_any_message_group) || (stream !== undefined && inGroup(stream.can_delete_any_message_group))) return;
  const denied = () => new BadRequest("You don't have permission to delete this message");
  if (message.sender_id !== user.id && sender?.bot_owner_id !== user.id) throw denied();
  if (!inGroup(s.can_delete_own_message_group) && (stream === undefined || !inGroup(stream.can_delete_own_message_group))) throw denied();
  if (!withinLimit(message.date_sent, s.message_content_delete_limit_seconds)) throw new BadRequest('The time limit for deleting this message has passed');
}
