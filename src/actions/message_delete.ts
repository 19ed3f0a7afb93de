// Deleting a message: Zulip's own-message and any-message permissions (organization and channel)
// and time limit; delete_message events to everyone who had it.
import type { Services } from '../services.js';
import { nowSeconds } from '../services.js';
import type { Realm } from '../store/realms.js';
import type { User } from '../store/users.js';
import { getStream } from '../store/channels.js';
import { deleteMessagesByIds } from '../store/messages.js';
import { isUserInGroup } from '../store/cache.js';
import { BadRequest } from '../errors.js';
import { publishAfterCommit } from '../events/publish.js';
import { modifiableMessage } from '../queries/message_access.js';
import { deleteMessageEvent } from '../events/types.js';

/** Whether a message sent at sentAt is still within a time limit (null: no limit). */
export function withinLimit(sentAt: number, limit: number | null): boolean {
  return limit === null || nowSeconds() - sentAt <= limit;
}

export async function deleteMessage(services: Services, user: User, realm: Realm, id: number): Promise<void> {
  const message = await modifiableMessage(services, user, id);
  const graph = await services.cache.groupGraph(realm.id);
  const s = realm.settings;
  const stream = message.stream_id === null ? undefined : await getStream(services.database.db, realm.id, message.stream_id);
  const mayDeleteAny =
    isUserInGroup(graph, user.id, s.can_delete_any_message_group) || (stream !== undefined && isUserInGroup(graph, user.id, stream.can_delete_any_message_group));
  const mayDeleteOwn =
    message.sender_id === user.id &&
    (isUserInGroup(graph, user.id, s.can_delete_own_message_group) || (stream !== undefined && isUserInGroup(graph, user.id, stream.can_delete_own_message_group))) &&
    withinLimit(message.date_sent, s.message_content_delete_limit_seconds);
  if (!mayDeleteAny && !mayDeleteOwn) throw new BadRequest("You don't have permission to delete this message");
  await services.database.transaction(async (tx, onCommit) => {
    const recipients = await deleteMessagesByIds(tx, realm.id, [message.id]);
    publishAfterCommit(services, onCommit, { realmId: realm.id, userIds: recipients.get(message.id) ?? [], event: deleteMessageEvent(message) });
  });
}
