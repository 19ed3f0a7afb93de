// Reporting a message: the Notification Bot posts the report, with a quote of the reason and the
// reported message in a spoiler, to the organization's moderation request channel.
import type { Services } from '../services.js';
import type { Realm } from '../store/realms.js';
import type { User } from '../store/users.js';
import { getStream } from '../store/channels.js';
import { dmGroupMembers } from '../store/messages.js';
import { BadRequest } from '../errors.js';
import { realmUrl } from '../shapes/realm.js';
import { accessibleMessage } from '../queries/message_access.js';
import { effectiveTopicsPolicy } from './messages.js';
import { notificationBot, postChannelNotification } from './notification_bot.js';
import { topicNarrow } from '../lib/narrow_urls.js';
import { renderBotMessage } from './bot_messages.js';

/** Zulip's REPORT_MESSAGE_REASONS. */
export const REPORT_REASONS: Record<string, string> = {
  spam: 'Spam',
  harassment: 'Harassment',
  inappropriate: 'Inappropriate content',
  norms: 'Violates community norms',
  other: 'Other reason',
};
export const MAX_REPORT_DESCRIPTION_LENGTH = 1000;
/** Room left in a message for the reporter's note and the template around the quoted message. */
const MAX_SNIPPET_LENGTH = 10000 - MAX_REPORT_DESCRIPTION_LENGTH - 500;

const silent = (u: Pick<User, 'full_name' | 'id'>) => `@_**${u.full_name}|${u.id}**`;

/** A fence of backticks longer than any run inside the text. */
function unusedFence(text: string): string {
  let longest = 0;
  for (const m of text.matchAll(/^ {0,3}(`{3,})/gm)) longest = Math.max(longest, m[1]!.length);
  return '`'.repeat(Math.max(3, longest + 1));
}

/** Zulip's global time syntax for a timestamp. */
function globalTime(seconds: number): string {
  return `<time:${new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, '+00:00')}>`;
}

/** Zulip's message link: #**channel>topic@id**, or a plain link when names would break that syntax. */
function messageLinkSyntax(base: string, streamId: number, streamName: string, topic: string, messageId: number): string {
  const special = /[`>*&]|\$\$|\r|\n/;
  if (special.test(streamName) || special.test(topic) || topic === '') {
    const url = `${base}/${topicNarrow(streamId, streamName, topic)}/near/${messageId}`;
    const esc = (s: string) => s.replace(/([\\[\]])/g, '\\$1');
    return `[#${esc(streamName)} > ${esc(topic)} @ 💬](${url})`;
  }
  return `#**${streamName}>${topic}@${messageId}**`;
}

function truncate(s: string, max: number, marker: string): string {
  const points = Array.from(s);
  return points.length <= max ? s : points.slice(0, max - marker.length).join('') + marker;
}

export async function reportMessage(services: Services, user: User, realm: Realm, messageId: number, reportType: string, description: string): Promise<void> {
  if (!(reportType in REPORT_REASONS)) throw new BadRequest('Invalid report_type');
  if (description.length > MAX_REPORT_DESCRIPTION_LENGTH) throw new BadRequest(`description is too long (limit: ${MAX_REPORT_DESCRIPTION_LENGTH} characters)`);
  // As Zulip's report_message_backend (zerver/views/message_report.py, with report_type and
  // description): the explanation first, then whether reporting is on at all.
  if (reportType === 'other' && description.trim() === '') throw new BadRequest('An explanation is required.');
  const channelId = realm.settings.moderation_request_channel_id;
  const channel = channelId > 0 ? await getStream(services.database.db, realm.id, channelId) : undefined;
  if (!channel || channel.is_archived) throw new BadRequest('Message reporting is not enabled in this organization.');
  const message = await accessibleMessage(services, user, messageId);

  const users = await services.cache.users(realm.id);
  const sender = users.get(message.sender_id);
  const senderRef = { id: message.sender_id, full_name: sender?.full_name ?? 'Unknown user' };
  const when = globalTime(Number(message.date_sent));
  const base = realmUrl(realm, services.config.externalUrl);
  let header: string;
  let original: string;
  if (message.stream_id !== null && message.stream_id !== undefined) {
    const stream = await getStream(services.database.db, realm.id, message.stream_id);
    header = `${silent(user)} reported a message sent by ${silent(senderRef)} at ${when}.`;
    original = `Original message at ${messageLinkSyntax(base, message.stream_id, stream?.name ?? '', message.topic, message.id)}`;
  } else {
    const members = message.dm_group_id !== null && message.dm_group_id !== undefined ? ((await dmGroupMembers(services.database.db, [message.dm_group_id])).get(message.dm_group_id) ?? []) : [];
    const others = members.filter((id) => id !== senderRef.id);
    if (members.length <= 2) {
      if (senderRef.id !== user.id) {
        header = `${silent(user)} reported a message sent by ${silent(senderRef)} at ${when}.`;
      } else {
        const to = others.length ? users.get(others[0]!) : user;
        header = `${silent(user)} reported a message sent by ${silent(senderRef)} to ${silent(to ?? user)} at ${when}.`;
      }
    } else {
      const names = others.map((id) => users.get(id)).filter((u): u is User => !!u).map(silent);
      const list = names.length <= 1 ? names.join('') : `${names.slice(0, -1).join(', ')}, and ${names[names.length - 1]}`;
      header = `${silent(user)} reported a message sent by ${silent(senderRef)} to ${list} at ${when}.`;
    }
    const suffix = members.length >= 3 ? 'group' : 'dm';
    original = `[Original message](${base}/#narrow/dm/${members.join(',')}-${suffix}/near/${message.id})`;
  }
  const snippet = truncate(message.content, MAX_SNIPPET_LENGTH, '\n[message truncated]');
  const fence = unusedFence(snippet);
  const content = `${header}\n\`\`\`quote\n**${REPORT_REASONS[reportType]}**. ${description}\n\`\`\`\n\n${fence} spoiler ${original}\n${snippet}\n${fence}\n`;

  const bot = await notificationBot(services, realm.id);
  const body = await renderBotMessage(services, realm, bot, content);
  const topic = effectiveTopicsPolicy(channel, realm) === 'empty_topic_only' ? '' : `${senderRef.full_name} moderation`;
  const allUsers = await services.cache.users(realm.id);
  // Zulip's send_message_report posts through internal_send_stream_message, which treats the report
  // as any message: those the reporter's note or the quoted message mention (not the silent
  // mentions of the header) get the mention flags, and a report with mentions the Notification Bot
  // may not make is not sent (the request still succeeds there).
  const graph = await services.cache.groupGraph(realm.id);
  await services.database.transaction((tx, onCommit) =>
    postChannelNotification(services, tx, onCommit, { bot, realm, users: allUsers, stream: channel, topic, body, readFor: () => false, mentions: { rendered: body.rendered, graph } }),
  );
}
