// Writing a prepared message (actions/messages.ts checks, resolves and renders it): the message
// row and every recipient's flags row in the caller's transaction, the follow-ups a message
// brings (missed-message notices, attachments, a widget, topic visibility), and one message event
// to every recipient's queues after the commit. A send writes one message; the Notification Bot's
// notices of one request are written many at once, in the same shapes.
import type { Transaction } from 'kysely';
import type { DB } from '../store/schema.js';
import type { Services } from '../services.js';
import type { DeferredWrites } from '../store/db.js';
import { nowSeconds } from '../services.js';
import type { Realm } from '../store/realms.js';
import type { User } from '../store/users.js';
import { streamRecipientIds, subscriptionsOf, type Stream } from '../store/channels.js';
import { contentFlags } from '../markdown/content_flags.js';
import { dmKey, flagNames, getOrCreateDmGroup, getOrCreateDmGroups, insertMessage, insertMessages, insertUserMessages, setFirstMessageIdIfUnset, type NewMessage } from '../store/messages.js';
import type { LinkifierRule, Rendered } from '../markdown/render.js';
import { setTopicPolicy, topicExists, topicPolicies, VISIBILITY } from '../store/user_topics.js';
import { userSettingsOf } from '../lib/user_settings.js';
import { publishAfterCommit, type ClientBusEvent, type OnCommit } from '../events/publish.js';
import { queueMissedMessageNotices, queueMissedMessageNoticesOfMany } from './missed_messages.js';
import { shapeMessage } from '../shapes/messages.js';
import { insertSubmessage, submessageForClient } from '../store/submessages.js';
import { pythonJsonDumps, widgetFor } from '../lib/widgets.js';
import { claimMessageAttachments } from './attachments.js';
import { enqueueTriggered, type WebhookTrigger } from './outgoing_webhook_triggers.js';

/** A message checked and rendered, ready to be written: what a send and a scheduled delivery share. */
export interface PreparedMessage {
  sender: User;
  realm: Realm;
  content: string;
  rendered: Rendered;
  stream: Stream | undefined;
  topic: string;
  /** Direct messages: every participant, the sender included. */
  dmParticipants: number[];
  /** Everyone who gets a flags row: recipients, the sender, and mentioned generic bots. */
  everyone: Set<number>;
  flagsOf: (userId: number) => number;
  clientName: string;
  /** The organization's users and linkifiers, as loaded for rendering. */
  users: Map<number, User>;
  linkifiers: readonly LinkifierRule[];
  /** Outgoing-webhook bots this message triggers (queued in the message's transaction). */
  webhookTriggers?: WebhookTrigger[];
}

/**
 * Writes a prepared message and its flags rows in one transaction and publishes the event after
 * the commit. `alsoInTransaction` runs first in the same transaction (a scheduled delivery claims
 * its row there, so only one process ever sends it); `thenPublish` goes out at the same commit,
 * after the message's own events (a delivered reminder leaves its list), never a sync later.
 */
export async function commitMessage(
  services: Services,
  m: PreparedMessage,
  o: { queueId?: string; localId?: string; alsoInTransaction?: (tx: Transaction<DB>) => Promise<void>; thenPublish?: ClientBusEvent } = {},
): Promise<{ id: number; automatic_new_visibility_policy?: number }> {
  return services.database.transaction(async (tx, onCommit, deferred) => {
    if (o.alsoInTransaction) await o.alsoInTransaction(tx);
    // Nothing after writeMessage here reads the flags rows back: they may wait for the commit.
    const written = await writeMessage(services, tx, onCommit, m, { ...o, deferred });
    if (o.thenPublish) publishAfterCommit(services, onCommit, o.thenPublish);
    return written;
  });
}

/** The writes of commitMessage, inside a transaction the caller holds (events after its commit). */
export async function writeMessage(
  services: Services,
  tx: Transaction<DB>,
  onCommit: OnCommit,
  m: PreparedMessage,
  o: { queueId?: string; localId?: string; automated?: boolean; deferred?: DeferredWrites } = {},
): Promise<{ id: number; automatic_new_visibility_policy?: number }> {
  const { sender, realm, stream, topic, content, rendered } = m;
  const now = nowSeconds();
  // Automated messages (the Notification Bot's) change their sender's topic visibility never,
  // but users they mention follow the topic by their setting, as for any message.
  const visibility = stream ? await automaticVisibility(tx, m, !o.automated) : new Map<number, number>();
  let recipientId: number;
  let dmGroupId: number | null = null;
  if (stream) {
    recipientId = (await streamRecipientIds(tx, [stream.id])).get(stream.id)!;
  } else {
    const group = await getOrCreateDmGroup(tx, realm.id, m.dmParticipants);
    recipientId = group.recipientId;
    dmGroupId = group.id;
  }
  const row = messageRow(m, recipientId, dmGroupId, now);
  const id = await insertMessage(tx, row);
  if (m.webhookTriggers?.length) await enqueueTriggered(services, tx, onCommit, realm.id, id, m.webhookTriggers);
  const { rows, perUser } = recipientFlags(m, id);
  if (o.deferred) o.deferred.userMessages(rows);
  else await insertUserMessages(tx, rows);
  if (stream && stream.first_message_id === null) await setFirstMessageIdIfUnset(tx, stream.id, id);
  await queueMissedMessageNotices(services, tx, onCommit, m, id, now);
  await claimMessageAttachments(services, tx, onCommit, { id, realmId: realm.id, sender, renderedHtml: rendered.html });
  // A message starting with /poll or /todo is a widget: Zulip writes its definition as the
  // message's first submessage, and the message event already carries it.
  const widget = widgetFor(content);
  const submessages: Record<string, unknown>[] = [];
  if (widget) {
    const sub = { message_id: id, sender_id: sender.id, msg_type: 'widget', content: pythonJsonDumps(widget) };
    submessages.push(submessageForClient({ id: await insertSubmessage(tx, sub), ...sub }));
  }
  const perQueue = o.queueId && o.localId ? { [o.queueId]: { local_message_id: o.localId } } : undefined;
  publishNewMessage(services, onCommit, m, { ...row, id }, perUser, submessages, perQueue);
  for (const [userId, policy] of visibility) {
    await setTopicPolicy(tx, userId, stream!.id, topic, policy, now);
    publishAfterCommit(services, onCommit, {
      realmId: realm.id,
      userIds: [userId],
      event: { type: 'user_topic', stream_id: stream!.id, topic_name: topic, last_updated: now, visibility_policy: policy },
    });
  }
  const senderPolicy = visibility.get(sender.id);
  return senderPolicy === undefined ? { id } : { id, automatic_new_visibility_policy: senderPolicy };
}

/**
 * writeMessage for many automated direct messages at once (the Notification Bot's notices of one
 * request), in a fixed number of queries whatever their number: the conversations resolved or
 * made together, the messages and their flags rows inserted together, the missed-message notices
 * written together; each message's event as writeMessage publishes it, in the order given. Only
 * for what such notices are: direct messages with no widget, no outgoing-webhook trigger (an uploaded file linked costs its queries).
 * Returns the ids, in the order given.
 */
export async function writeAutomatedDirectMessages(services: Services, tx: Transaction<DB>, onCommit: OnCommit, ms: readonly PreparedMessage[]): Promise<number[]> {
  if (ms.length === 0) return [];
  const now = nowSeconds();
  for (const m of ms) {
    if (m.stream || m.webhookTriggers?.length || widgetFor(m.content)) throw new Error('writeAutomatedDirectMessages: a direct message with no widget or trigger only');
  }
  const groups = await getOrCreateDmGroups(tx, ms[0]!.realm.id, ms.map((m) => m.dmParticipants));
  const rows = ms.map((m) => {
    const group = groups.get(dmKey(m.dmParticipants))!;
    return messageRow(m, group.recipientId, group.id, now);
  });
  const ids = await insertMessages(tx, rows);
  const flags = ms.map((m, i) => recipientFlags(m, ids[i]!));
  await insertUserMessages(tx, flags.flatMap((f) => f.rows));
  await queueMissedMessageNoticesOfMany(services, tx, onCommit, ms.map((m, i) => ({ m, messageId: ids[i]! })), now);
  // No query for a message that links no uploaded file, as these do.
  for (const [i, m] of ms.entries()) await claimMessageAttachments(services, tx, onCommit, { id: ids[i]!, realmId: m.realm.id, sender: m.sender, renderedHtml: m.rendered.html });
  ms.forEach((m, i) => publishNewMessage(services, onCommit, m, { ...rows[i]!, id: ids[i]! }, flags[i]!.perUser, []));
  return ids;
}

/** The messages row of a prepared message, sent now to the recipient (a channel's, or a direct-message group's). */
function messageRow(m: PreparedMessage, recipientId: number, dmGroupId: number | null, now: number): NewMessage {
  return {
    realm_id: m.realm.id,
    sender_id: m.sender.id,
    recipient_type: m.stream ? 'stream' : 'direct',
    recipient_id: recipientId,
    stream_id: m.stream?.id ?? null,
    dm_group_id: dmGroupId,
    topic: m.topic,
    content: m.content,
    rendered_content: m.rendered.html,
    date_sent: now,
    last_edit_time: null,
    sending_client: m.clientName,
    edit_history: null,
    ...contentFlags(m.rendered.html),
  };
}

type PerUser = Record<number, Record<string, unknown>>;

/** Every recipient's flags row of a message, and the flags each one's event carries. */
function recipientFlags(m: PreparedMessage, messageId: number): { rows: Array<{ user_id: number; message_id: number; flags: number }>; perUser: PerUser } {
  const perUser: PerUser = {};
  // Recipients with the same flags share one object (the queues serialize each object once).
  const byFlags = new Map<number, Record<string, unknown>>();
  const rows = [...m.everyone].map((userId) => {
    const flags = m.flagsOf(userId);
    let extra = byFlags.get(flags);
    if (!extra) byFlags.set(flags, (extra = { flags: flagNames(flags) }));
    perUser[userId] = extra;
    return { user_id: userId, message_id: messageId, flags };
  });
  return { rows, perUser };
}

/** The message event, after the commit, to everyone with a flags row (and a public channel's other listeners). */
function publishNewMessage(
  services: Services,
  onCommit: OnCommit,
  m: PreparedMessage,
  row: NewMessage & { id: number },
  perUser: PerUser,
  submessages: Record<string, unknown>[],
  perQueue?: Record<string, Record<string, unknown>>,
): void {
  const { stream } = m;
  const message = shapeMessage(
    row,
    m.realm,
    m.users,
    services.emailDomains,
    new Map(stream ? [[stream.id, stream.name]] : []),
    new Map(row.dm_group_id !== null ? [[row.dm_group_id, m.dmParticipants]] : []),
    { applyMarkdown: true, clientGravatar: false, allowEmptyTopicName: true, linkifiers: m.linkifiers },
  );
  message.submessages = submessages;
  publishAfterCommit(services, onCommit, {
    realmId: m.realm.id,
    event: { type: 'message', message },
    userIds: [...m.everyone],
    perUser,
    perQueue,
    publicStreamId: stream && !stream.invite_only ? stream.id : undefined,
    rawContent: m.content,
  });
}

// Zulip's automatically_follow_topics_policy / automatically_unmute_topics_in_muted_streams_policy values.
const ON_PARTICIPATION = 1;
const ON_SEND = 2;
export const ON_INITIATION = 3;
const NEVER = 4;

/**
 * The topic visibility changes a send makes by the users' automatic settings: the sender follows
 * (or, in a muted channel, unmutes) the topic when their policy says so, and mentioned users who
 * asked to follow topics they are mentioned in follow it. Returns the new policy by user.
 */
async function automaticVisibility(tx: Transaction<DB>, m: PreparedMessage, forSender: boolean): Promise<Map<number, number>> {
  const { sender, stream, topic, rendered } = m;
  const out = new Map<number, number>();
  if (!stream) return out;
  if (!forSender && rendered.mentionedUserIds.size === 0) return out;
  // Mentioned users who follow topics they are mentioned in.
  const mentioned = [...rendered.mentionedUserIds].filter((id) => {
    const user = id !== sender.id && m.everyone.has(id) ? m.users.get(id) : undefined;
    return user !== undefined && userSettingsOf(user.settings).automatically_follow_topics_where_mentioned;
  });
  const settings = userSettingsOf(sender.settings);
  const follow = forSender ? settings.automatically_follow_topics_policy : NEVER;
  const unmute = forSender ? settings.automatically_unmute_topics_in_muted_streams_policy : NEVER;
  // Whether the topic is new matters only to a policy that acts on initiation.
  const isNew = (follow === ON_INITIATION || unmute === ON_INITIATION) && !(await topicExists(tx, stream.id, topic));
  const triggers = (policy: number) => policy === ON_SEND || policy === ON_PARTICIPATION || (policy === ON_INITIATION && isNew);
  const followNow = triggers(follow);
  const unmuteNow = !followNow && triggers(unmute);
  // Current policies, only of the users whose policy may change.
  const ids = followNow || unmuteNow ? [sender.id, ...mentioned] : mentioned;
  const current = ids.length ? await topicPolicies(tx, ids, stream.id, topic) : new Map<number, number>();
  const senderNow = current.get(sender.id) ?? VISIBILITY.inherit;
  if (followNow) {
    if (senderNow !== VISIBILITY.followed) out.set(sender.id, VISIBILITY.followed);
  } else if (unmuteNow && senderNow === VISIBILITY.inherit) {
    const sub = (await subscriptionsOf(tx, sender.id, [stream.id])).get(stream.id);
    if (sub?.active && sub.is_muted) out.set(sender.id, VISIBILITY.unmuted);
  }
  for (const id of mentioned) {
    if (current.get(id) !== VISIBILITY.followed) out.set(id, VISIBILITY.followed);
  }
  return out;
}
