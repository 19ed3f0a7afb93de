// Missed-message emails, as Zulip sends them. At send time (inside the send transaction) each
// recipient the message should reach by email gets a notice row: a direct message, a personal or
// group mention, an alert word, a wildcard mention or a message in a followed topic or a channel
// with email notifications on, per their settings, their channel and topic muting and the
// organization's. Nobody active at that moment (presence) gets one. The runner takes all of a
// person's notices once the first is due (their email_notifications_batching_period_seconds, or
// CONFAB_MISSED_MESSAGE_EMAIL_DELAY_SECONDS), drops the messages they have read meanwhile, and
// writes ONE email per conversation with what is left, through the email outbox.
import { randomBytes } from 'node:crypto';
import type { Transaction } from 'kysely';
import type { DB } from '../store/schema.js';
import type { Services } from '../services.js';
import type { Realm } from '../store/realms.js';
import type { Stream } from '../store/channels.js';
import { getStreamsByIds } from '../store/channels.js';
import type { User } from '../store/users.js';
import type { GroupGraph } from '../store/cache.js';
import { FLAG_BITS, flagsFor, getMessages, dmGroupMembers, type MessageRow } from '../store/messages.js';
import { VISIBILITY } from '../store/user_topics.js';
import { emailTrigger, pushTrigger, type TriggerInput } from './notify_triggers.js';
import { usersWithPushDevices } from '../store/push.js';
import { queuePushes } from './push_notifications.js';
import {
  claimNotices,
  deleteNotices,
  insertNotices,
  lastActiveTimes,
  subscriptionNotifyProps,
  topicPoliciesOfAll,
  usersWithDueNotices,
  type NewNotice,
  type Notice,
} from '../store/missed_messages.js';
import { userSettingsOf } from '../lib/user_settings.js';
import { escapeHtml } from '../lib/html.js';
import { composeEmail } from '../lib/email_templates.js';
import { encodeHashComponent, topicNarrow } from '../lib/narrow_urls.js';
import { runPeriodically, type Periodic } from '../lib/periodic.js';
import { realmUrl } from '../shapes/realm.js';
import { queueMails } from './email.js';

/** Zulip's presence threshold: someone seen active this recently is at their screen. */
export const ACTIVE_WITHIN_SECONDS = 140;
const CLAIM_MS = 5 * 60_000;
/** A resolved topic's prefix (Zulip's RESOLVED_TOPIC_PREFIX). */
const RESOLVED_PREFIX = '✔ ';

/** What the send hands over (a PreparedMessage has these fields). */
export interface SentMessage {
  sender: User;
  realm: Realm;
  stream: Stream | undefined;
  topic: string;
  dmParticipants: number[];
  everyone: Set<number>;
  flagsOf: (userId: number) => number;
  users: Map<number, User>;
  rendered: { mentionedUserIds: Set<number>; mentionedGroupIds: Set<number> };
}

/** Writes the email notices and pushes a new message causes, in the send transaction; a few queries for all recipients. */
export async function queueMissedMessageNotices(
  services: Services,
  tx: Transaction<DB>,
  onCommit: (hook: () => void) => void,
  m: SentMessage,
  messageId: number,
  nowSeconds: number,
): Promise<void> {
  await queueMissedMessageNoticesOfMany(services, tx, onCommit, [{ m, messageId }], nowSeconds);
}

/**
 * queueMissedMessageNotices for several messages written in one transaction (the Notification
 * Bot's direct messages of one request): who is active, the notices and the pushes are read and
 * written once for all of them.
 */
export async function queueMissedMessageNoticesOfMany(
  services: Services,
  tx: Transaction<DB>,
  onCommit: (hook: () => void) => void,
  sent: ReadonlyArray<{ m: SentMessage; messageId: number }>,
  nowSeconds: number,
): Promise<void> {
  const pushOn = services.config.pushBouncer !== null;
  const emails: Array<{ m: SentMessage; messageId: number; user: User; trigger: string }> = [];
  const pushes: Array<{ m: SentMessage; messageId: number; user: User; trigger: string }> = [];
  for (const { m, messageId } of sent) {
    const recipients: User[] = [];
    for (const id of m.everyone) {
      if (id === m.sender.id) continue;
      const u = m.users.get(id);
      if (!u || !u.is_active || u.is_bot) continue;
      // Read on arrival (a muted sender): nothing was missed.
      if (m.flagsOf(id) & FLAG_BITS.read) continue;
      recipients.push(u);
    }
    if (recipients.length === 0) continue;
    let subs = new Map<number, TriggerInput['sub'] & object>();
    let policies = new Map<number, number>();
    let considered = recipients;
    if (m.stream) {
      // Only recipients something might notify: those the message flags, those whose defaults ask
      // for email (or push) from every channel (stored settings hold only what differs from the
      // defaults), those with a policy for the topic, and (from the query) those with channel
      // email or push notifications on.
      const everyChannel = (u: User) => u.settings.enable_stream_email_notifications === true || (pushOn && u.settings.enable_stream_push_notifications === true);
      const flagged = new Set(recipients.filter((u) => m.flagsOf(u.id) !== 0 || everyChannel(u)).map((u) => u.id));
      policies = await topicPoliciesOfAll(tx, m.stream.id, m.topic);
      for (const id of policies.keys()) flagged.add(id);
      subs = await subscriptionNotifyProps(tx, m.stream.id, [...flagged]);
      considered = recipients.filter((u) => flagged.has(u.id) || subs.has(u.id));
    }
    for (const u of considered) {
      const input: TriggerInput = {
        settings: userSettingsOf(u.settings),
        flags: m.flagsOf(u.id),
        isDm: !m.stream,
        personal: m.rendered.mentionedUserIds.has(u.id),
        sub: subs.get(u.id),
        topicPolicy: policies.get(u.id) ?? VISIBILITY.inherit,
      };
      const trigger = emailTrigger(input);
      if (trigger) emails.push({ m, messageId, user: u, trigger });
      const push = pushOn ? pushTrigger(input) : null;
      if (push) pushes.push({ m, messageId, user: u, trigger: push });
    }
  }
  if (emails.length === 0 && pushes.length === 0) return;
  const active = await lastActiveTimes(tx, [...new Set([...emails, ...pushes].map((c) => c.user.id))]);
  const isActive = (id: number) => (active.get(id) ?? 0) >= nowSeconds - ACTIVE_WITHIN_SECONDS;
  const delay = services.config.missedMessageEmailDelaySeconds;
  const groupOf = (m: SentMessage) => (m.rendered.mentionedGroupIds.size ? [...m.rendered.mentionedGroupIds][0]! : null);
  const rows: NewNotice[] = [];
  for (const { m, messageId, user, trigger } of emails) {
    if (isActive(user.id)) continue;
    const wait = delay ?? userSettingsOf(user.settings).email_notifications_batching_period_seconds;
    rows.push({
      realm_id: m.realm.id,
      user_id: user.id,
      message_id: messageId,
      trigger,
      mentioned_group_id: trigger === 'group_mentioned' ? groupOf(m) : null,
      due_ms: nowSeconds * 1000 + wait * 1000,
    });
  }
  await insertNotices(tx, rows);
  // Pushes: at once, to people with a device, and to the active only if they asked for pushes
  // even while online (enable_online_push_notifications).
  const wanted = pushes.filter((p) => !isActive(p.user.id) || userSettingsOf(p.user.settings).enable_online_push_notifications);
  if (wanted.length) {
    const withDevices = await usersWithPushDevices(tx, [...new Set(wanted.map((p) => p.user.id))]);
    const pushRows = wanted
      .filter((p) => withDevices.has(p.user.id))
      .map((p) => ({
        realm_id: p.m.realm.id,
        user_id: p.user.id,
        message_id: p.messageId,
        trigger: p.trigger,
        mentioned_group_id: p.trigger === 'mentioned' && !p.m.rendered.mentionedUserIds.has(p.user.id) ? groupOf(p.m) : null,
        due_ms: nowSeconds * 1000,
      }));
    await queuePushes(services, tx, onCommit, pushRows);
  }
}

// ---- the runner ----

const TRIGGER_ORDER = [
  'private_message',
  'mentioned',
  'group_mentioned',
  'alert_word',
  'topic_wildcard_mentioned_in_followed_topic',
  'stream_wildcard_mentioned_in_followed_topic',
  'topic_wildcard_mentioned',
  'stream_wildcard_mentioned',
  'followed_topic_email_notify',
  'stream_email_notify',
];

/** "A and B", "A, B, and C", "A, B, and 3 others": Zulip's names of a group DM's other members. */
export function groupDmDisplayName(names: string[]): string {
  const n = [...names].sort((a, b) => a.localeCompare(b));
  if (n.length <= 1) return n.join('');
  if (n.length === 2) return `${n[0]} and ${n[1]}`;
  if (n.length === 3) return `${n[0]}, ${n[1]}, and ${n[2]}`;
  return `${n[0]}, ${n[1]}, and ${n.length - 2} others`;
}

/** Links in rendered messages point at the server: make relative ones absolute for a mail client. */
function absoluteLinks(html: string, base: string): string {
  return html.replace(/\b(href|src)="(\/(?!\/)[^"]*|#[^"]*)"/g, (_m, attr: string, url: string) => `${attr}="${escapeHtml(base)}${url.startsWith('#') ? '/' : ''}${url}"`);
}

function reasonLine(trigger: string, channel: string, topic: string, groupName: string | undefined): string {
  switch (trigger) {
    case 'private_message':
      return '';
    case 'mentioned':
      return 'You got this email because you were mentioned by name.';
    case 'group_mentioned':
      return groupName ? `You got this email because @${groupName} was mentioned.` : 'You got this email because a group you belong to was mentioned.';
    case 'alert_word':
      return 'You got this email because the message contains one of your alert words.';
    case 'topic_wildcard_mentioned':
    case 'topic_wildcard_mentioned_in_followed_topic':
      return `You got this email because all participants of #${channel} > ${topic} were mentioned.`;
    case 'stream_wildcard_mentioned_in_followed_topic':
      return 'You got this email because you asked for wildcard mention notifications in topics you follow.';
    case 'stream_wildcard_mentioned':
      return `You got this email because everyone in #${channel} was mentioned.`;
    case 'followed_topic_email_notify':
      return 'You got this email because you asked for email notifications for topics you follow.';
    default:
      return `You got this email because you asked for email notifications for #${channel}.`;
  }
}

/** One conversation's unread messages in a batch, what made them notify, and the group mentioned. */
interface Conversation {
  messages: MessageRow[];
  triggers: Set<string>;
  groupId: number | null;
}

/** What one conversation's email needs besides its messages: the reader, the organization, names. */
interface MailContext {
  user: User;
  realm: Realm;
  streams: Map<number, { name: string }>;
  dmMembers: Map<number, number[]>;
  graph: GroupGraph;
  showContent: boolean;
  realmInSubject: boolean;
  base: string;
  name: (id: number) => string;
}

/** The email for one conversation's unread messages: subject, link back, content (or why not). */
function conversationMail(ctx: MailContext, c: Conversation) {
  const { user, realm, streams, dmMembers, graph, showContent, realmInSubject, base, name } = ctx;
  c.messages.sort((a, b) => a.id - b.id);
  const head = c.messages[0]!;
  const trigger = TRIGGER_ORDER.find((t) => c.triggers.has(t)) ?? [...c.triggers][0]!;
  let subject: string;
  let narrow: string;
  let channel = '';
  let topic = '';
  if (head.stream_id !== null) {
    const stream = streams.get(head.stream_id);
    channel = stream?.name ?? 'unknown channel';
    topic = head.topic;
    const resolved = topic.startsWith(RESOLVED_PREFIX);
    subject = resolved ? `[resolved] #${channel} > ${topic.slice(RESOLVED_PREFIX.length)}` : `#${channel} > ${topic}`;
    narrow = `${base}/${topicNarrow(head.stream_id, channel, topic)}/near/${head.id}`;
  } else {
    const others = (dmMembers.get(head.dm_group_id!) ?? []).filter((id) => id !== user.id);
    if (others.length <= 1) {
      const other = others[0] ?? head.sender_id;
      subject = `DMs with ${name(head.sender_id === user.id ? other : head.sender_id)}`;
      narrow = `${base}/#narrow/dm/${other}-${encodeHashComponent(name(other).replace(/ /g, '-'))}/near/${head.id}`;
    } else {
      subject = `Group DMs with ${groupDmDisplayName(others.map(name))}`;
      narrow = `${base}/#narrow/dm/${[...others].sort((a, b) => a - b).join(',')}-group/near/${head.id}`;
    }
  }
  if (!showContent) subject = 'New messages';
  if (realmInSubject) subject = `${subject} [${realm.name}]`;

  const blocks: Parameters<typeof composeEmail>[1] = [];
  if (showContent) {
    // Consecutive messages of one sender under one name, as Zulip lays them out.
    let i = 0;
    while (i < c.messages.length) {
      const sender = c.messages[i]!.sender_id;
      const run: MessageRow[] = [];
      while (i < c.messages.length && c.messages[i]!.sender_id === sender) run.push(c.messages[i++]!);
      blocks.push({
        html:
          `<div class="sender"><b>${escapeHtml(name(sender))}</b>` +
          run.map((msg) => `<div class="message_content">${absoluteLinks(msg.rendered_content, base)}</div>`).join('') +
          '</div>',
        text: `${name(sender)}:\n${run.map((msg) => msg.content).join('\n\n')}`,
      });
    }
  } else {
    const byRealm = realm.settings.message_content_allowed_in_email_notifications === false;
    blocks.push({
      p: byRealm
        ? 'This email does not include the message content: your organization hides message content in email notifications.'
        : 'This email does not include the message content, as your notification settings ask.',
    });
  }
  const groupName = c.groupId !== null ? graph.groups.get(c.groupId)?.name : undefined;
  const reason = reasonLine(trigger, channel, topic, groupName);
  if (reason) blocks.push({ p: reason });
  blocks.push({ link: narrow, label: `Reply in ${realm.name}` });
  blocks.push({ p: `Manage email preferences: ${base}/#settings/notifications` });
  const mail = composeEmail(subject, blocks, 'Do not reply to this email: this server does not accept incoming email.');
  return mail;
}

/** Builds and queues the emails of one person's claimed notices; deletes the notices in the same transaction. */
async function handleUserNotices(services: Services, notices: Notice[]): Promise<void> {
  const db = services.database.db;
  const first = notices[0]!;
  const realm = await services.cache.realm(first.realm_id);
  const users = await services.cache.users(first.realm_id);
  const user = users.get(first.user_id);
  const done = notices.map((n) => n.id);
  const finish = (mails: Parameters<typeof queueMails>[3]) =>
    services.database.transaction(async (tx, onCommit) => {
      await queueMails(services, tx, onCommit, mails);
      await deleteNotices(tx, done);
    });
  if (!realm || realm.deactivated || !user || !user.is_active) return void (await finish([]));
  const ids = [...new Set(notices.map((n) => n.message_id))];
  const messages = new Map((await getMessages(db, realm.id, ids)).map((msg) => [msg.id, msg]));
  const flags = await flagsFor(db, user.id, ids);
  // Messages deleted, no longer received, or read meanwhile: dropped from the batch.
  const unread = notices.filter((n) => messages.has(n.message_id) && flags.has(n.message_id) && !(flags.get(n.message_id)! & FLAG_BITS.read));
  const conversations = new Map<string, Conversation>();
  for (const n of unread) {
    const msg = messages.get(n.message_id)!;
    const key = msg.stream_id !== null ? `s:${msg.stream_id}:${msg.topic.toLowerCase()}` : `d:${msg.dm_group_id}`;
    let c = conversations.get(key);
    if (!c) conversations.set(key, (c = { messages: [], triggers: new Set(), groupId: null }));
    if (!c.messages.includes(msg)) c.messages.push(msg);
    c.triggers.add(n.trigger);
    c.groupId ??= n.mentioned_group_id;
  }
  if (conversations.size === 0) return void (await finish([]));
  const streamIds = [...new Set(unread.map((n) => messages.get(n.message_id)!.stream_id).filter((id): id is number => id !== null))];
  const streams = new Map((await getStreamsByIds(db, realm.id, streamIds)).map((s) => [s.id, s]));
  const dmIds = [...new Set(unread.map((n) => messages.get(n.message_id)!.dm_group_id).filter((id): id is number => id !== null))];
  const dmMembers = await dmGroupMembers(db, dmIds);
  const graph = await services.cache.groupGraph(realm.id);
  const settings = userSettingsOf(user.settings);
  const showContent = settings.message_content_in_email_notifications && realm.settings.message_content_allowed_in_email_notifications !== false;
  const policy = settings.realm_name_in_email_notifications_policy;
  const realmInSubject = policy === 2 || (policy === 1 && (await services.cache.usersByEmail(user.email)).filter((u) => u.is_active).length > 1);
  const base = realmUrl(realm, services.config.externalUrl);
  // The system bots (the Notification Bot's direct messages) are in no organization's user list.
  const bots = await services.cache.systemBots();
  const name = (id: number) => (users.get(id) ?? bots.get(id))?.full_name ?? 'Unknown user';

  const ctx: MailContext = { user, realm, streams, dmMembers, graph, showContent, realmInSubject, base, name };
  const mails: Parameters<typeof queueMails>[3] = [...conversations.values()].map((c) => ({
    realmId: realm.id,
    kind: 'missed_message',
    to: user.email,
    ...conversationMail(ctx, c),
  }));
  await finish(mails);
}

/** One pass: every person with a due notice gets their emails. Several processes may run it. */
export async function sendMissedMessageEmails(services: Services, self?: Periodic): Promise<void> {
  const db = services.database.db;
  for (const userId of await usersWithDueNotices(db, Date.now(), 100)) {
    if (self?.stopped) return;
    const token = randomBytes(12).toString('hex');
    const notices = await services.database.transaction((tx) => claimNotices(tx, userId, token, Date.now(), Date.now() + CLAIM_MS));
    if (notices.length === 0) continue;
    try {
      await handleUserNotices(services, notices);
    } catch (err) {
      // The claim lapses and a later pass tries again.
      console.error(`missed-message email for user ${userId}:`, err);
    }
  }
}

export function startMissedMessageEmails(services: Services, intervalMs = 1000): Periodic {
  return runPeriodically('missed-message emails', intervalMs, (self) => sendMissedMessageEmails(services, self));
}
