// Typing notifications: nothing is stored, the event goes to the other people in the conversation.
import { apiEmail } from '../shapes/users.js';
import type { Services } from '../services.js';
import type { Realm } from '../store/realms.js';
import type { User } from '../store/users.js';
import { getStream, subscriberIds } from '../store/channels.js';
import { BadRequest, InvalidStreamId } from '../errors.js';
import { channelAccess } from '../access/channel_access.js';
import { userSettingsOf } from '../lib/user_settings.js';
import { dmGroupMembers } from '../store/messages.js';
import { checkContentEditAllowed } from './message_edit.js';
import { accessibleMessage } from '../queries/message_access.js';
import type { TypingEditMessageEvent } from '../events/types.js';

export type TypingTarget = { kind: 'stream'; streamId: number; topic: string; op: 'start' | 'stop' } | { kind: 'direct'; userIds: number[]; op: 'start' | 'stop' };

/** Zulip caps typing notifications to large groups: nobody is told. */
const MAX_TYPING_RECIPIENTS = 100;

export async function sendTyping(services: Services, sender: User, realm: Realm, t: TypingTarget): Promise<void> {
  const users = await services.cache.usersIncluding(realm.id, t.kind === 'direct' ? t.userIds : []);
  const sender_ = { user_id: sender.id, email: apiEmail(sender, services.emailDomains) };
  const receives = (id: number) => {
    const u = users.get(id);
    return !!u && u.is_active && id !== sender.id && userSettingsOf(u.settings).receives_typing_notifications;
  };
  // As in Zulip, a notification the sender's own settings turn off is refused, not dropped; for a
  // channel that refusal comes before the channel lookup.
  const settings = userSettingsOf(sender.settings);
  if (t.kind === 'stream') {
    if (!settings.send_stream_typing_notifications) throw new BadRequest('User has disabled typing notifications for channel messages');
    const stream = await getStream(services.database.db, realm.id, t.streamId);
    const subs = stream ? await subscriberIds(services.database.db, stream.id) : [];
    const graph = await services.cache.groupGraph(realm.id);
    if (!stream || !channelAccess(graph, sender, stream, subs.includes(sender.id)).content) throw new InvalidStreamId();
    const to = subs.filter(receives);
    if (to.length === 0 || to.length > MAX_TYPING_RECIPIENTS) return;
    services.bus.publish({ realmId: realm.id, userIds: to, event: { type: 'typing', op: t.op, message_type: 'stream', sender: sender_, stream_id: stream.id, topic: t.topic } });
    return;
  }
  if (t.userIds.length === 0) throw new BadRequest("Empty 'to' list");
  if (!settings.send_private_typing_notifications) throw new BadRequest('User has disabled typing notifications for direct messages');
  // As Zulip's check_send_typing_notification: any account of the organization may be named,
  // deactivated ones and the system bots included (get_user_by_id_in_realm_including_cross_realm);
  // only active people who take typing notifications are told.
  const bots = t.userIds.some((id) => !users.has(id)) ? await services.cache.systemBots() : new Map<number, User>();
  const named = (id: number) => users.get(id) ?? bots.get(id);
  for (const id of t.userIds) if (!named(id)) throw new BadRequest(`Invalid user ID ${id}`);
  const everyone = [...new Set([sender.id, ...t.userIds])];
  const recipients = everyone.map((id) => ({ user_id: id, email: apiEmail(named(id)!, services.emailDomains) }));
  const to = everyone.filter(receives);
  if (to.length === 0 || to.length > MAX_TYPING_RECIPIENTS) return;
  services.bus.publish({ realmId: realm.id, userIds: to, event: { type: 'typing', op: t.op, message_type: 'direct', sender: sender_, recipients } });
}

/**
 * "Someone is editing this message": allowed to whoever could save a content edit now (the
 * sender, within the edit time limit); told to everyone who would see the edit (the channel's
 * subscribers, or the conversation's participants) who takes typing notifications.
 */
export async function sendMessageEditTyping(services: Services, editor: User, realm: Realm, messageId: number, op: 'start' | 'stop'): Promise<void> {
  const message = await accessibleMessage(services, editor, messageId);
  checkContentEditAllowed(editor, realm, message);
  const settings = userSettingsOf(editor.settings);
  const users = await services.cache.users(realm.id);
  const receives = (id: number) => {
    const u = users.get(id);
    return !!u && u.is_active && userSettingsOf(u.settings).receives_typing_notifications;
  };
  let recipient: TypingEditMessageEvent['recipient'];
  let audience: number[];
  if (message.stream_id !== null) {
    if (!settings.send_stream_typing_notifications) throw new BadRequest('User has disabled typing notifications for channel messages');
    recipient = { type: 'channel', channel_id: message.stream_id, topic: message.topic };
    audience = await subscriberIds(services.database.db, message.stream_id);
  } else {
    if (!settings.send_private_typing_notifications) throw new BadRequest('User has disabled typing notifications for direct messages');
    const members = message.dm_group_id === null ? [] : ((await dmGroupMembers(services.database.db, [message.dm_group_id])).get(message.dm_group_id) ?? []);
    audience = [...new Set([editor.id, ...members])].sort((a, b) => a - b);
    recipient = { type: 'direct', user_ids: audience };
  }
  if (audience.length > MAX_TYPING_RECIPIENTS) return;
  const to = audience.filter(receives);
  if (to.length === 0) return;
  services.bus.publish({ realmId: realm.id, userIds: to, event: { type: 'typing_edit_message', op, sender_id: editor.id, message_id: message.id, recipient } });
}
