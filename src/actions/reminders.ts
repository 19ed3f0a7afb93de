// Reminders: a direct message to oneself about a message, sent by the Notification Bot at the
// chosen time. They are scheduled messages (the same table and the same delivery worker) that
// name the message they are about; GET /scheduled_messages does not list them.
import type { Transaction } from 'kysely';
import type { DB } from '../store/schema.js';
import { escapeHtml } from '../lib/html.js';
import type { Services } from '../services.js';
import { formatScheduled } from '../shapes/scheduled.js';
import { nowSeconds } from '../services.js';
import type { Realm } from '../store/realms.js';
import type { User } from '../store/users.js';
import { getStream } from '../store/channels.js';
import { dmGroupMembers } from '../store/messages.js';
import { deleteScheduled, getSendersScheduled, insertScheduled, listPendingScheduled, type ScheduledMessage } from '../store/scheduled.js';
import { BadRequest, ResourceNotFound } from '../errors.js';
import { publishAfterCommit } from '../events/publish.js';
import { renderMarkdown } from '../markdown/render.js';
import { realmUrl } from '../shapes/realm.js';
import { EMPTY_TOPIC_DISPLAY_NAME } from '../lib/message_text.js';
import { accessibleMessage } from '../queries/message_access.js';
import { commitMessage } from './message_write.js';
import { botDirectMessage } from './bot_messages.js';
import { alertedUserIds } from './message_mentions.js';
import { MAX_MESSAGE_LENGTH } from '../lib/message_text.js';
import { notificationBot, silentMention, text, type Piece } from './notification_bot.js';
import { topicNarrow } from '../lib/narrow_urls.js';

export const MAX_REMINDER_NOTE_LENGTH = 1000;
const NOT_FOUND = 'Reminder does not exist';


/** The API object (GET /reminders, reminders events). */
export function formatReminder(m: ScheduledMessage): Record<string, unknown> {
  return {
    reminder_id: m.id,
    type: 'private',
    to: m.to_user_ids,
    content: m.content,
    rendered_content: m.rendered_content,
    scheduled_delivery_timestamp: m.scheduled_timestamp,
    failed: m.failed,
    reminder_target_message_id: m.reminder_target_message_id,
  };
}

/** A fence of backticks longer than any that starts a line of the text (Zulip's get_unused_fence). */
function unusedFence(s: string): string {
  let n = 3;
  for (const m of s.matchAll(/^\s*(`{3,})/gm)) n = Math.max(n, m[1]!.length + 1);
  return '`'.repeat(n);
}

/** The reminder's text, as Zulip words it: a link to the message, the note, the message quoted. */
async function reminderBody(services: Services, user: User, realm: Realm, messageId: number, note: string): Promise<{ content: string; html: string }> {
  const message = await accessibleMessage(services, user, messageId);
  const users = await services.cache.users(realm.id);
  const linkifiers = await services.cache.linkifiers(realm.id);
  const render = (md: string) => renderMarkdown(md, { users: users.values(), linkifiers }).html;
  const base = realmUrl(realm, services.config.externalUrl);
  let intro: Piece[];
  let conversationUrl: string;
  if (message.stream_id !== null) {
    const stream = (await getStream(services.database.db, realm.id, message.stream_id))!;
    const path = topicNarrow(stream.id, stream.name, message.topic);
    conversationUrl = `${base}/${path}/near/${message.id}`;
    const shownTopic = message.topic === '' ? `<em>${EMPTY_TOPIC_DISPLAY_NAME}</em>` : escapeHtml(message.topic);
    const html = `<a class="message-link" href="/${path}/near/${message.id}">#${escapeHtml(stream.name)} &gt; ${shownTopic} @ 💬</a>`;
    const special = /[`>*&]|\$\$|\r|\n/;
    const md =
      special.test(stream.name) || special.test(message.topic)
        ? `[#${stream.name.replace(/([\\[\]])/g, '\\$1')} > ${message.topic.replace(/([\\[\]])/g, '\\$1')} @ 💬](${path}/near/${message.id})`
        : `#**${stream.name}>${message.topic}@${message.id}**`;
    intro = [text('You requested a reminder for '), { md, html }, text(note ? '. Note:' : '.')];
  } else {
    const members = (await dmGroupMembers(services.database.db, [message.dm_group_id!])).get(message.dm_group_id!) ?? [];
    const others = members.filter((id) => id !== user.id).sort((a, b) => a - b);
    const slug = others.length === 0 ? `${user.id}-user` : others.length === 1 ? `${others[0]}-user` : `${others.join(',')}-group`;
    conversationUrl = `${base}/#narrow/dm/${slug}/near/${message.id}`;
    intro = [text(note ? 'You requested a reminder for the following direct message. Note:' : 'You requested a reminder for the following direct message.')];
  }
  let content = intro.map((p) => p.md).join('');
  let html = `<p>${intro.map((p) => p.html).join('')}</p>`;
  if (note) {
    content += `\n > ${note}`;
    html += `\n<blockquote>\n${render(note)}\n</blockquote>`;
  }
  // The sender may be a system bot (a Notification Bot notice), which no organization lists.
  const sender = users.get(message.sender_id) ?? (await services.cache.systemBots()).get(message.sender_id)!;
  const mention = silentMention(sender);
  const link = (label: string) => ({ md: `[${label}](${conversationUrl})`, html: `<a href="${escapeHtml(conversationUrl)}">${label}</a>` });
  content += '\n\n';
  if (message.content.startsWith('/poll') || message.content.startsWith('/todo')) {
    const what = message.content.startsWith('/poll') ? ' a poll.' : ' a todo list.';
    const pieces = [mention, text(' '), link('sent'), text(what)];
    content += pieces.map((p) => p.md).join('');
    html += `\n<p>${pieces.map((p) => p.html).join('')}</p>`;
  } else {
    const pieces = [mention, text(' '), link('said'), text(':')];
    content += pieces.map((p) => p.md).join('') + '\n';
    const fence = unusedFence(content + message.content);
    const room = MAX_MESSAGE_LENGTH - (content.length + `${fence}quote\n\n${fence}`.length);
    const marker = '\n[message truncated]';
    const quoted = message.content.length > room ? message.content.slice(0, Math.max(0, room - marker.length)) + marker : message.content;
    content += `${fence}quote\n${quoted}\n${fence}`;
    html += `\n<p>${pieces.map((p) => p.html).join('')}</p>\n<blockquote>\n${render(quoted)}\n</blockquote>`;
  }
  return { content, html };
}

export async function createReminder(
  services: Services,
  user: User,
  realm: Realm,
  r: { messageId: number; scheduledTimestamp: number; note: string; clientName: string },
): Promise<{ reminder_id: number }> {
  if (r.scheduledTimestamp <= nowSeconds()) throw new BadRequest('Scheduled delivery time must be in the future.');
  const note = r.note.trimEnd().replace(/^\n+/, '');
  if (note.length > MAX_REMINDER_NOTE_LENGTH) throw new BadRequest(`Maximum reminder note length: ${MAX_REMINDER_NOTE_LENGTH} characters`);
  const body = await reminderBody(services, user, realm, r.messageId, note);
  return services.database.transaction(async (tx, onCommit) => {
    const row = {
      realm_id: realm.id,
      sender_id: user.id,
      recipient_type: 'direct',
      stream_id: null,
      to_user_ids: [user.id],
      topic: '',
      content: body.content,
      rendered_content: body.html,
      scheduled_timestamp: r.scheduledTimestamp,
      read_by_sender: false,
      sending_client: r.clientName,
      reminder_target_message_id: r.messageId,
    };
    const id = await insertScheduled(tx, row);
    const shaped = formatReminder({ ...row, id, failed: false, delivered: false, delivered_message_id: null });
    publishAfterCommit(services, onCommit, { realmId: realm.id, userIds: [user.id], event: { type: 'reminders', op: 'add', reminders: [shaped] } });
    return { reminder_id: id };
  });
}

export async function listReminders(services: Services, user: User): Promise<Record<string, unknown>[]> {
  return (await listPendingScheduled(services.database.db, user.id, true)).map(formatReminder);
}

/** /register's reminders: the same undelivered reminders in the scheduled-message shape. */
export async function listPendingReminders(services: Services, user: User): Promise<Record<string, unknown>[]> {
  return (await listPendingScheduled(services.database.db, user.id, true)).map(formatScheduled);
}

export async function deleteReminder(services: Services, user: User, id: number): Promise<void> {
  await services.database.transaction(async (tx, onCommit) => {
    // Zulip's delete_reminder finds it with access_reminder, which does not ask whether it was
    // delivered: deleting one already delivered succeeds.
    if (!(await getSendersScheduled(tx, user.id, id, true))) throw new ResourceNotFound(NOT_FOUND);
    await deleteScheduled(tx, id);
    publishAfterCommit(services, onCommit, { realmId: user.realm_id, userIds: [user.id], event: { type: 'reminders', op: 'remove', reminder_id: id } });
  });
}

/**
 * Sends a due reminder (called by the scheduled-message worker): a direct message from the
 * Notification Bot to the user, unread for them (read if they muted the bot). `claim` marks the
 * row delivered inside the same transaction. Returns false when the reminder cannot be sent (its user is gone).
 */
export async function deliverReminder(services: Services, m: ScheduledMessage, claim: (tx: Transaction<DB>) => Promise<void>): Promise<boolean> {
  const realm = await services.cache.realm(m.realm_id);
  const user = realm ? await services.cache.user(realm.id, m.sender_id) : undefined;
  if (!realm || realm.deactivated || !user || !user.is_active) return false;
  const bot = await notificationBot(services, realm.id);
  // Sent as any message is (Zulip's send_scheduled_message goes through check_message): an alert
  // word of the user's in the reminder flags it, and a user who muted the Notification Bot gets it
  // already read (muters read outside the transaction, from the cache prepareMessage reads too).
  const alerted = await alertedUserIds(services.database.db, m.content, [user.id], bot.id);
  const muters = await services.cache.muters(bot.id);
  const body = { content: m.content, html: m.rendered_content };
  const prepared = botDirectMessage({ bot, realm, users: await services.cache.users(realm.id), recipient: user, body, clientName: m.sending_client }, alerted, muters);
  await commitMessage(services, prepared, {
    alsoInTransaction: claim,
    thenPublish: { realmId: m.realm_id, userIds: [m.sender_id], event: { type: 'reminders', op: 'remove', reminder_id: m.id } },
  });
  return true;
}
