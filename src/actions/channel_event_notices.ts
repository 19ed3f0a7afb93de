// The Notification Bot's messages about a change to a channel, posted in the channel's own
// "channel events" topic as Zulip's zerver/actions/streams.py sends them (maybe_send_channel_events_notice):
// a rename, a new description, new access permissions, a new retention period, a new topics
// policy, archiving and unarchiving. Each is written in the change's transaction, after the
// change's events, so its message event follows them after the commit.
import type { Transaction } from 'kysely';
import type { DB } from '../store/schema.js';
import type { Services } from '../services.js';
import type { Realm } from '../store/realms.js';
import type { User } from '../store/users.js';
import type { Stream } from '../store/channels.js';
import type { OnCommit } from '../events/publish.js';
import { renderMarkdown } from '../markdown/render.js';
import { EMPTY_TOPIC_DISPLAY_NAME } from '../lib/message_text.js';
import { postChannelNotification, silentMention } from './notification_bot.js';
import { channelEventsTopic, channelPolicyName } from './subscription_notices.js';
import type { PreparedBotMessage } from './bot_messages.js';
import type { GroupGraph } from '../store/cache.js';
import type { GroupSettingValue } from '../access/group_settings.js';

type Policy = Pick<Stream, 'invite_only' | 'is_web_public' | 'history_public_to_subscribers'>;

/** "@_**Name|id** renamed channel **old** to **new**." */
export function renamedMarkdown(actor: User, oldName: string, newName: string): string {
  return `${silentMention(actor).md} renamed channel **${oldName}** to **${newName}**.`;
}

/** send_change_stream_description_notification: both descriptions quoted, an empty one as *No description.* */
export function descriptionChangedMarkdown(actor: User, oldDescription: string, newDescription: string): string {
  const shown = (d: string) => (d === '' ? '*No description.*' : d);
  return (
    `${silentMention(actor).md} changed the description for this channel.\n\n` +
    `* **Old description:**\n\`\`\`\` quote\n${shown(oldDescription)}\n\`\`\`\`\n` +
    `* **New description:**\n\`\`\`\` quote\n${shown(newDescription)}\n\`\`\`\``
  );
}

/** send_change_stream_permission_notification (sent even when the policy stays the same). */
export function permissionChangedMarkdown(actor: User, before: Policy, after: Policy): string {
  return `${silentMention(actor).md} changed the [access permissions](/help/channel-permissions) for this channel from **${channelPolicyName(before)}** to **${channelPolicyName(after)}**.`;
}

/** send_change_stream_message_retention_days_notification; null is the organization's default, -1 forever. */
export function retentionChangedMarkdown(actor: User, oldValue: number | null, newValue: number | null, realmDefault: number): string {
  const oldDays = oldValue ?? realmDefault;
  const newDays = newValue ?? realmDefault;
  let oldPeriod: string;
  let newPeriod: string;
  let summary: string;
  if (oldDays === -1) {
    oldPeriod = 'Forever';
    newPeriod = `${newDays} days`;
    summary = `Messages in this channel will now be automatically deleted ${newDays} days after they are sent.`;
  } else if (newDays === -1) {
    oldPeriod = `${oldDays} days`;
    newPeriod = 'Forever';
    summary = 'Messages in this channel will now be retained forever.';
  } else {
    oldPeriod = `${oldDays} days`;
    newPeriod = `${newDays} days`;
    summary = `Messages in this channel will now be automatically deleted ${newDays} days after they are sent.`;
  }
  return (
    `${silentMention(actor).md} has changed the [message retention period](/help/message-retention-policy) for this channel:\n` +
    `* **Old retention period**: ${oldPeriod}\n` +
    `* **New retention period**: ${newPeriod}\n\n` +
    summary
  );
}

/** do_set_stream_property's names for the topics policies. */
const TOPICS_POLICY_NAMES: Readonly<Record<string, string>> = {
  inherit: 'Automatic',
  allow_empty_topic: `*${EMPTY_TOPIC_DISPLAY_NAME}* topic allowed`,
  disable_empty_topic: `No *${EMPTY_TOPIC_DISPLAY_NAME}* topic`,
  empty_topic_only: `Only *${EMPTY_TOPIC_DISPLAY_NAME}* topic allowed`,
};

export function topicsPolicyChangedMarkdown(actor: User, oldPolicy: string, newPolicy: string): string {
  return `${silentMention(actor).md} changed the "Allow posting to the *${EMPTY_TOPIC_DISPLAY_NAME}* topic?" setting from **${TOPICS_POLICY_NAMES[oldPolicy] ?? oldPolicy}** to **${TOPICS_POLICY_NAMES[newPolicy] ?? newPolicy}**.`;
}

/**
 * Zulip's get_users_string_with_permission: a named group as its silent mention; an anonymous
 * value as its subgroups' silent mentions, then its members', each in id order, joined by ", ".
 * `value` is as stored (storeGroupSettingValue's reading: one subgroup alone is that group, none
 * at all role:nobody).
 */
export function groupSettingDescription(graph: GroupGraph, users: Map<number, User>, value: GroupSettingValue): string {
  const group = (id: number) => `@_*${graph.groups.get(id)?.name ?? id}*`;
  if (typeof value === 'number') return group(value);
  if (value.direct_members.length === 0 && value.direct_subgroups.length === 1) return group(value.direct_subgroups[0]!);
  if (value.direct_members.length === 0 && value.direct_subgroups.length === 0) return group(graph.systemIds['role:nobody']);
  const groups = [...value.direct_subgroups].sort((a, b) => a - b).map(group);
  const members = [...value.direct_members]
    .sort((a, b) => a - b)
    .map((id) => users.get(id))
    .filter((u): u is User => u !== undefined)
    .map((u) => silentMention(u).md);
  return [...groups, ...members].join(', ');
}

/** send_stream_posting_permission_update_notification: who may post, before and after (can_send_message_group). */
export function postingPermissionChangedMarkdown(actor: User, oldDescription: string, newDescription: string): string {
  return (
    `${silentMention(actor).md} changed the [posting permissions](/help/channel-posting-policy) for this channel:\n\n` +
    `* **Old**: ${oldDescription}\n` +
    `* **New**: ${newDescription}`
  );
}

export const archivedMarkdown = (name: string): string => `Channel #**${name}** has been archived.`;
export const unarchivedMarkdown = (name: string): string => `Channel #**${name}** has been unarchived.`;

/**
 * Posts a prepared notice to the channel's events topic (the empty topic where the channel allows
 * only that) inside the caller's transaction, rendered as any message (a description's mentions
 * count). `stream` is the channel as it is at that step of the change. Unread for every subscriber,
 * the one who made the change too, unless `allRead` (archiving: limit_unread_user_ids=set()).
 */
export async function postChannelEventNotice(
  services: Services,
  tx: Transaction<DB>,
  onCommit: OnCommit,
  o: { bot: User; realm: Realm; users: Map<number, User>; stream: Stream; notice: PreparedBotMessage; allRead?: boolean },
): Promise<void> {
  // Zulip's realm setting send_channel_events_messages, which Confab reports as always on.
  const rendered = renderMarkdown(o.notice.content, o.notice.ctx);
  await postChannelNotification(services, tx, onCommit, {
    bot: o.bot,
    realm: o.realm,
    users: o.users,
    stream: o.stream,
    topic: channelEventsTopic(o.stream),
    body: { content: o.notice.content, html: rendered.html },
    readFor: () => !!o.allRead,
    mentions: { rendered, graph: o.notice.ctx.graph },
  });
}
