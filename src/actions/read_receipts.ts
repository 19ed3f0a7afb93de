// GET /messages/{message_id}/read_receipts: who has read a message, as far as they share it.
import type { Services } from '../services.js';
import type { Realm } from '../store/realms.js';
import type { User } from '../store/users.js';
import { messageReaderIds } from '../store/messages.js';
import { userSettingsOf } from '../lib/user_settings.js';
import { BadRequest } from '../errors.js';
import { accessibleMessage } from '../queries/message_access.js';

/**
 * The ids of active users who have read the message, without its sender, users who turned off
 * send_read_receipts, and users the viewer muted or who muted the viewer. A message the viewer
 * cannot read is as missing as one that does not exist.
 */
export async function readReceipts(services: Services, viewer: User, realm: Realm, messageId: number): Promise<number[]> {
  // Zulip looks the message up first: a message one cannot read is missing even when receipts are off.
  const message = await accessibleMessage(services, viewer, messageId);
  if (!realm.settings.enable_read_receipts) throw new BadRequest('Read receipts are disabled in this organization.');
  const db = services.database.db;
  const [rows, users] = await Promise.all([
    // Readers come from the message's rows (user_messages_message index), read bit set.
    messageReaderIds(db, message.id, message.sender_id, viewer.id),
    services.cache.users(realm.id),
  ]);
  return rows
    .filter((id) => {
      const u = users.get(id);
      return !!u && u.is_active && userSettingsOf(u.settings).send_read_receipts;
    });
}
