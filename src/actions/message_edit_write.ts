// The write half of a message edit (actions/message_edit.ts checks and plans): inside one
// transaction, the message rows and their history, who holds them, mention flags, topic
// visibility policies and the Notification Bot's notices; every event after commit.
import type { Services } from '../services.js';
import type { Realm } from '../store/realms.js';
import type { User } from '../store/users.js';
import { ROLE } from '../store/users.js';
import { streamRecipientIds, subscriberIds, subscriptionsOf, type Stream } from '../store/channels.js';
import { deleteMessagesByIds, FLAG_BITS, flagNames, insertUserMessages, topicParticipants, type EditEntry, type MessageRow } from '../store/messages.js';
import { alertedUserIds, mentionedUserIds } from './message_mentions.js';
import {
  deleteTopicPolicies,
  deleteUserMessageRows,
  everSubscribedUserIds,
  insertTopicPolicies,
  latestTopicMessage,
  refreshFirstMessageIds,
  setUserMessageFlags,
  topicFollowerIds,
  topicHasMessages,
  topicMessages,
  topicVisibilityPolicies,
  userMessageRows,
  updateMessageColumns,
  updateMessagesAppendingHistory,
  type TopicMessage,
  type UserMessageRow,
} from '../store/message_edits.js';
import type { Executor } from '../store/db.js';
import type { Transaction } from 'kysely';
import type { DB } from '../store/schema.js';
import { setTopicPolicy, topicPolicies, VISIBILITY } from '../store/user_topics.js';
import { userSettingsOf } from '../lib/user_settings.js';
import { announceFirstMessageIds } from './first_message.js';
import { ON_INITIATION } from './message_write.js';
import { messageLink, paragraph, postChannelNotification, silentMention, text, topicLink } from './notification_bot.js';
import type { renderMarkdown } from '../markdown/render.js';
import { contentFlags } from '../markdown/content_flags.js';
import { updateMessageAttachments } from './attachments.js';
import { publishAfterCommit, type OnCommit } from '../events/publish.js';
import { deleteMessageEvent, type UpdateMessageEvent } from '../events/types.js';

export type PropagateMode = 'change_one' | 'change_later' | 'change_all';

/** Everything the checks established and the write needs: what changes, where, and who is involved. */
export interface EditPlan {
  editor: User;
  realm: Realm;
  message: MessageRow;
  graph: Awaited<ReturnType<Services['cache']['groupGraph']>>;
  users: Map<number, User>;
  propagateMode: PropagateMode;
  notifyOld: boolean;
  notifyNew: boolean;
  /** The new topic, when it changes. */
  topic: string | undefined;
  /** The new channel's id, when it changes. */
  streamId: number | undefined;
  content: string | undefined;
  rendered: ReturnType<typeof renderMarkdown> | undefined;
  /** The message's channel (undefined for a direct message) and the channel it ends up in. */
  orig: Stream | undefined;
  dest: Stream | undefined;
  resolved: boolean;
  unresolved: boolean;
  /** The topic or the channel changes. */
  moved: boolean;
  /** The Notification Bot, when the edit posts notices. */
  bot: User | undefined;
  /** The new topic's linkifier matches (the event's topic_links), when the topic changes. */
  topicLinks: Array<{ text: string; url: string }>;
  now: number;
}

/** The flags a content edit recomputes (group_mentioned stays as the send set it, as in Zulip). */
const EDIT_FLAG_BITS = FLAG_BITS.mentioned | FLAG_BITS.stream_wildcard_mentioned | FLAG_BITS.topic_wildcard_mentioned | FLAG_BITS.has_alert_word;
/** Resolving and unresolving again within this many seconds deletes the first notice instead. */
const RESOLVE_UNDO_GRACE_SECONDS = 60;
const RESOLVE_NOTICE = /^@_\*\*[^*]*\*\* has marked this topic as (un)?resolved\.$/;

/** The ids of a topic's messages the user may see (all of them unless history is protected), oldest first. */
export function visibleTopicMessages(
  db: Executor,
  user: User,
  stream: Stream,
  topic: string,
  o: { fromId?: number; limit?: number; excluding?: number[] } = {},
): Promise<TopicMessage[]> {
  return topicMessages(db, stream.id, topic, { ...o, holderId: stream.history_public_to_subscribers ? undefined : user.id });
}

/** The kept topic visibility of a user when two topics merge: the most visible one wins. */
function mergedVisibility(a: number, b: number): number {
  const both = new Set([a, b]);
  if (both.has(VISIBILITY.followed)) return VISIBILITY.followed;
  if (both.has(VISIBILITY.unmuted)) return VISIBILITY.unmuted;
  if (both.has(VISIBILITY.inherit)) return VISIBILITY.inherit;
  return VISIBILITY.muted;
}

/** Where the edit moves messages from and to (the same channel and topic when nothing moves). */
interface Move {
  origTopic: string;
  destTopic: string;
  /** The channel changes (then orig and dest are both set). */
  streamMoved: boolean;
  /** The edited message and the others that move with it, ascending. */
  ids: number[];
}

/** Write: the whole edit in the caller's transaction; returns the uploads the new content no longer links. */
export async function writeEdit(services: Services, tx: Transaction<DB>, onCommit: OnCommit, p: EditPlan): Promise<Record<string, unknown>[]> {
  const { message, orig, dest, moved, topic } = p;
  const origTopic = message.topic;
  const destTopic = topic ?? origTopic;
  const streamMoved = p.streamId !== undefined && orig !== undefined && dest !== undefined;
  // Whether the destination topic had messages before this move (for merging visibility policies).
  const destHadMessages = moved && dest ? await topicHasMessages(tx, dest.id, destTopic) : false;
  // The messages the edit touches: this one, or the topic's later/all messages (those the editor can see).
  let others: TopicMessage[] = [];
  if (moved && orig && p.propagateMode !== 'change_one') {
    others = (await visibleTopicMessages(tx, p.editor, orig, origTopic, { fromId: p.propagateMode === 'change_later' ? message.id : undefined })).filter((m) => m.id !== message.id);
  }
  const move: Move = { origTopic, destTopic, streamMoved, ids: [message.id, ...others.map((m) => m.id)].sort((a, b) => a - b) };
  const detached = await writeMessageRows(services, tx, onCommit, p, move, others);
  const losingAccess = streamMoved ? await moveUserMessages(services, tx, onCommit, p, move) : [];
  const rows = await updateMentionFlags(tx, p, move);
  await publishUpdateMessage(services, tx, onCommit, p, move, rows, new Set(losingAccess));
  // Whether the editor moved every message of the topic they can see.
  let movedAll = false;
  if (moved && orig) movedAll = p.propagateMode === 'change_all' || (await visibleTopicMessages(tx, p.editor, orig, origTopic, { limit: 1 })).length === 0;
  if (movedAll && orig && dest) await moveTopicPolicies(services, tx, onCommit, p, move, new Set(losingAccess), destHadMessages);
  else if (moved && orig && dest) await followStartedTopic(services, tx, onCommit, p, move, new Set(losingAccess));
  if (p.bot && orig && dest) await postMoveNotices(services, tx, onCommit, p, move, movedAll);
  if (streamMoved) await announceFirstMessageIds(services, tx, onCommit, { realmId: p.realm.id, users: p.users, graph: p.graph }, [{ ...orig! }, { ...dest! }]);
  return detached;
}

/** The edited message (content, location, parsed and extended history) and the others that move with it. */
async function writeMessageRows(services: Services, tx: Transaction<DB>, onCommit: OnCommit, p: EditPlan, move: Move, others: TopicMessage[]): Promise<Record<string, unknown>[]> {
  const { message, rendered, content } = p;
  const destRecipientId = move.streamMoved ? (await streamRecipientIds(tx, [p.dest!.id])).get(p.dest!.id)! : undefined;
  const moveFields = (fromTopic: string) => {
    const entry: EditEntry = { timestamp: p.now, user_id: p.editor.id };
    const set: Record<string, unknown> = { last_edit_time: p.now };
    if (move.streamMoved) {
      entry.prev_stream = p.orig!.id;
      entry.stream = p.dest!.id;
      set.stream_id = p.dest!.id;
      set.recipient_id = destRecipientId;
    }
    if (p.topic !== undefined && p.topic !== fromTopic) {
      entry.prev_topic = fromTopic;
      entry.topic = p.topic;
      set.topic = p.topic;
    }
    return { entry, set };
  };
  let detached: Record<string, unknown>[] = [];
  const { entry, set } = moveFields(message.topic);
  if (content !== undefined) {
    entry.prev_content = message.content;
    entry.prev_rendered_content = message.rendered_content;
    set.content = content;
    set.rendered_content = rendered!.html;
    Object.assign(set, contentFlags(rendered!.html));
  }
  const history: EditEntry[] = message.edit_history ? (JSON.parse(message.edit_history) as EditEntry[]) : [];
  history.push(entry);
  set.edit_history = JSON.stringify(history);
  await updateMessageColumns(tx, message.id, set);
  if (rendered) {
    detached = await updateMessageAttachments(services, tx, onCommit, { id: message.id, realmId: p.realm.id, sender: p.editor, renderedHtml: rendered.html, previousHtml: message.rendered_content });
  }
  // The others move together: one UPDATE per original topic spelling (and 1000 ids).
  const byTopic = new Map<string, number[]>();
  for (const m of others) (byTopic.get(m.topic) ?? byTopic.set(m.topic, []).get(m.topic)!).push(m.id);
  for (const [fromTopic, group] of byTopic) {
    const moved = moveFields(fromTopic);
    await updateMessagesAppendingHistory(tx, group, moved.set, JSON.stringify(moved.entry));
  }
  return detached;
}

/** Moving to another channel: who keeps, loses and gains the messages; returns who loses access to them. */
async function moveUserMessages(services: Services, tx: Transaction<DB>, onCommit: OnCommit, p: EditPlan, move: Move): Promise<number[]> {
  const orig = p.orig!;
  const dest = p.dest!;
  const oldAll = await everSubscribedUserIds(tx, orig.id);
  const newActive = new Set(await subscriberIds(tx, dest.id));
  const losingRows = oldAll.filter((u) => !newActive.has(u));
  const losingAccess = dest.invite_only ? losingRows : losingRows.filter((u) => p.users.get(u)?.role === ROLE.guest);
  await deleteUserMessageRows(tx, move.ids, losingRows);
  if (!dest.history_public_to_subscribers) {
    // Protected history: every current subscriber of the destination must hold a row.
    const rows = [];
    for (const u of newActive) for (const mid of move.ids) rows.push({ user_id: u, message_id: mid, flags: FLAG_BITS.read });
    await insertUserMessages(tx, rows, true);
  }
  await refreshFirstMessageIds(tx, [orig.id, dest.id]);
  if (losingAccess.length) {
    publishAfterCommit(services, onCommit, {
      realmId: p.realm.id,
      userIds: losingAccess,
      event: { type: 'delete_message', message_ids: move.ids, message_type: 'stream', stream_id: orig.id, topic: move.origTopic },
    });
  }
  return losingAccess;
}

/**
 * The new content's flags, as Zulip's update_user_message_flags sets them on every holder:
 * mentioned (by name or as a mentioned group's member), the channel wildcard, the topic wildcard
 * for the topic's participants (the sender included), alert words. Returns every row of the moved messages.
 */
async function updateMentionFlags(tx: Transaction<DB>, p: EditPlan, move: Move): Promise<UserMessageRow[]> {
  const rows = await userMessageRows(tx, move.ids);
  const { rendered, message, content } = p;
  if (rendered && content !== undefined) {
    const own = rows.filter((x) => x.message_id === message.id);
    const mentioned = mentionedUserIds(p.graph, rendered);
    const participants = new Set<number>();
    if (rendered.topicWildcard && p.orig) {
      for (const id of await topicParticipants(tx, p.orig.id, move.destTopic)) participants.add(id);
      participants.add(message.sender_id);
    }
    const alerted = await alertedUserIds(tx, content, own.map((r) => r.user_id), message.sender_id);
    for (const r of own) {
      let flags = r.flags & ~EDIT_FLAG_BITS;
      if (mentioned.has(r.user_id)) flags |= FLAG_BITS.mentioned;
      if (rendered.streamWildcard) flags |= FLAG_BITS.stream_wildcard_mentioned;
      if (participants.has(r.user_id)) flags |= FLAG_BITS.topic_wildcard_mentioned;
      if (alerted.has(r.user_id)) flags |= FLAG_BITS.has_alert_word;
      if (flags !== r.flags) {
        await setUserMessageFlags(tx, r.user_id, message.id, flags);
        r.flags = flags;
      }
    }
  }
  return rows;
}

/**
 * The update_message event. Who is told: everyone holding one of the messages, and (open history)
 * the subscribers of both channels who can read them; not those who lost them, nor guests new to them.
 */
async function publishUpdateMessage(
  services: Services,
  tx: Transaction<DB>,
  onCommit: OnCommit,
  p: EditPlan,
  move: Move,
  rows: UserMessageRow[],
  losing: Set<number>,
): Promise<void> {
  const { message, orig, dest, users, content } = p;
  const told = new Set(rows.map((r) => r.user_id));
  if (orig?.history_public_to_subscribers && dest) {
    const destSubs = await subscriberIds(tx, dest.id);
    const origSubs = move.streamMoved ? new Set(await subscriberIds(tx, orig.id)) : new Set<number>();
    for (const u of destSubs) {
      if (move.streamMoved && !origSubs.has(u) && users.get(u)?.role === ROLE.guest) continue;
      told.add(u);
    }
    for (const u of origSubs) told.add(u);
  }
  const recipients = [...told].filter((u) => !losing.has(u) && users.get(u)?.is_active !== false);
  const perUser: Record<number, Record<string, unknown>> = {};
  for (const r of rows) if (r.message_id === message.id) perUser[r.user_id] = { flags: flagNames(r.flags) };
  for (const u of recipients) perUser[u] ??= { flags: ['read'] };
  const event: UpdateMessageEvent = {
    type: 'update_message',
    user_id: p.editor.id,
    message_id: message.id,
    message_ids: move.ids,
    edit_timestamp: p.now,
    rendering_only: false,
  };
  if (content !== undefined) {
    Object.assign(event, {
      orig_content: message.content,
      orig_rendered_content: message.rendered_content,
      content,
      rendered_content: p.rendered!.html,
      is_me_message: content.startsWith('/me '),
    });
  }
  if (orig) Object.assign(event, { stream_id: orig.id, stream_name: orig.name });
  if (p.moved) event.propagate_mode = p.propagateMode;
  if (move.streamMoved) Object.assign(event, { new_stream_id: dest!.id, orig_subject: move.origTopic });
  if (p.topic !== undefined) Object.assign(event, { orig_subject: move.origTopic, subject: p.topic, topic_links: p.topicLinks });
  publishAfterCommit(services, onCommit, { realmId: p.realm.id, userIds: recipients, event, perUser });
}

/**
 * A whole topic moved: users who lose the messages lose their visibility policy; the others carry
 * theirs over (merged with any they had for the destination topic). Three statements whatever the number of users.
 */
async function moveTopicPolicies(services: Services, tx: Transaction<DB>, onCommit: OnCommit, p: EditPlan, move: Move, losing: Set<number>, destHadMessages: boolean): Promise<void> {
  const orig = p.orig!;
  const dest = p.dest!;
  const { origTopic, destTopic } = move;
  const before = await topicVisibilityPolicies(tx, orig.id, origTopic);
  const after = await topicVisibilityPolicies(tx, dest.id, destTopic);
  const sameTopic = dest.id === orig.id && destTopic.toLowerCase() === origTopic.toLowerCase();
  const clearOrig: number[] = [];
  const setDest = new Map<number, number>();
  for (const u of new Set([...before.keys(), ...after.keys()])) {
    const from = before.get(u);
    if (from !== undefined && from !== VISIBILITY.inherit) clearOrig.push(u);
    if (move.streamMoved && losing.has(u)) continue;
    const to = after.get(u) ?? VISIBILITY.inherit;
    const next = destHadMessages ? mergedVisibility(from ?? VISIBILITY.inherit, to) : (from ?? VISIBILITY.inherit);
    // Clearing the original topic also cleared the destination when they are one and the same.
    if (next !== to || (sameTopic && clearOrig.includes(u))) setDest.set(u, next);
  }
  const userTopicEvents: Array<{ userId: number; streamId: number; topic: string; policy: number }> = [];
  if (clearOrig.length) {
    await deleteTopicPolicies(tx, clearOrig, orig.id, origTopic);
    for (const u of clearOrig) userTopicEvents.push({ userId: u, streamId: orig.id, topic: origTopic, policy: VISIBILITY.inherit });
  }
  if (setDest.size) {
    await deleteTopicPolicies(tx, [...setDest.keys()], dest.id, destTopic);
    const inserts = [...setDest].filter(([, policy]) => policy !== VISIBILITY.inherit);
    await insertTopicPolicies(tx, inserts.map(([u, policy]) => ({ user_id: u, stream_id: dest.id, topic_name: destTopic, visibility_policy: policy, last_updated: p.now })));
    for (const [u, policy] of setDest) userTopicEvents.push({ userId: u, streamId: dest.id, topic: destTopic, policy });
  }
  for (const e of userTopicEvents) {
    publishAfterCommit(services, onCommit, {
      realmId: p.realm.id,
      userIds: [e.userId],
      event: { type: 'user_topic', stream_id: e.streamId, topic_name: e.topic, last_updated: p.now, visibility_policy: e.policy },
    });
  }
}

/**
 * Zulip's apply_automatic_unmute_follow_topics_policy after a partial move: when the edited
 * message now starts its topic (as its sender can see the topic), a sender whose policy acts "on
 * initiation" follows it, or else unmutes it in a muted channel.
 */
async function followStartedTopic(services: Services, tx: Transaction<DB>, onCommit: OnCommit, p: EditPlan, move: Move, losing: Set<number>): Promise<void> {
  const sender = p.users.get(p.message.sender_id);
  if (!sender || sender.is_bot || losing.has(sender.id)) return;
  const settings = userSettingsOf(sender.settings);
  const follow = settings.automatically_follow_topics_policy === ON_INITIATION;
  if (!follow && settings.automatically_unmute_topics_in_muted_streams_policy !== ON_INITIATION) return;
  const dest = p.dest!;
  const [first] = await visibleTopicMessages(tx, sender, dest, move.destTopic, { limit: 1, excluding: move.ids });
  if (first && first.id < p.message.id) return;
  let policy: number = VISIBILITY.followed;
  if (!follow) {
    const sub = (await subscriptionsOf(tx, sender.id, [dest.id])).get(dest.id);
    if (!sub?.active || !sub.is_muted) return;
    policy = VISIBILITY.unmuted;
  }
  if ((await topicPolicies(tx, [sender.id], dest.id, move.destTopic)).get(sender.id) === policy) return;
  await setTopicPolicy(tx, sender.id, dest.id, move.destTopic, policy, p.now);
  publishAfterCommit(services, onCommit, {
    realmId: p.realm.id,
    userIds: [sender.id],
    event: { type: 'user_topic', stream_id: dest.id, topic_name: move.destTopic, last_updated: p.now, visibility_policy: policy },
  });
}

/** The Notification Bot's notices: resolving, and where messages moved to and from. */
async function postMoveNotices(services: Services, tx: Transaction<DB>, onCommit: OnCommit, p: EditPlan, move: Move, movedAll: boolean): Promise<void> {
  const { realm, users, message, editor, topic } = p;
  const bot = p.bot!;
  const orig = p.orig!;
  const dest = p.dest!;
  const { origTopic, destTopic, ids, streamMoved } = move;
  const editorMention = silentMention(editor);
  const readForEditor = (u: number) => u === editor.id;
  let resolveNoticeId: number | undefined;
  if ((p.resolved || p.unresolved) && p.content === undefined && !streamMoved) resolveNoticeId = await postResolveNotice(services, tx, onCommit, p, move);
  const count = ids.length;
  if (p.notifyNew && (streamMoved || (topic !== undefined && !p.resolved && !p.unresolved))) {
    const preexisting = await visibleTopicMessages(tx, editor, dest, destTopic, { limit: 1, excluding: [...ids, ...(resolveNoticeId ? [resolveNoticeId] : [])] });
    const from = topicLink(orig, origTopic);
    let body;
    if (preexisting.length === 0 && movedAll) body = paragraph([text('This topic was moved here from '), from, text(' by '), editorMention, text('.')]);
    else if (count === 1) {
      body = paragraph([messageLink(services, realm, dest, destTopic, message.id, 'A message'), text(' was moved here from '), from, text(' by '), editorMention, text('.')]);
    } else body = paragraph([text(`${count} messages were moved here from `), from, text(' by '), editorMention, text('.')]);
    await postChannelNotification(services, tx, onCommit, { bot, realm, users, stream: dest, topic: destTopic, body, readFor: readForEditor });
  }
  if (p.notifyOld) {
    const to = topicLink(dest, destTopic);
    let body;
    if (movedAll) body = paragraph([text('This topic was moved to '), to, text(' by '), editorMention, text('.')]);
    else if (count === 1) body = paragraph([text('A message was moved from this topic to '), to, text(' by '), editorMention, text('.')]);
    else body = paragraph([text(`${count} messages were moved from this topic to `), to, text(' by '), editorMention, text('.')]);
    await postChannelNotification(services, tx, onCommit, { bot, realm, users, stream: orig, topic: origTopic, body, readFor: readForEditor });
  }
}

/**
 * Resolving or unresolving a topic (and nothing else) is announced in it, unless it undoes a
 * notice posted moments ago, which is then deleted instead. Returns the notice's id, if posted.
 */
async function postResolveNotice(services: Services, tx: Transaction<DB>, onCommit: OnCommit, p: EditPlan, move: Move): Promise<number | undefined> {
  const { realm, users, editor } = p;
  const bot = p.bot!;
  const dest = p.dest!;
  const last = await latestTopicMessage(tx, dest.id, move.destTopic);
  if (last && last.sender_id === bot.id && RESOLVE_NOTICE.test(last.content) && p.now - Number(last.date_sent) <= RESOLVE_UNDO_GRACE_SECONDS) {
    const holders = await deleteMessagesByIds(tx, realm.id, [last.id]);
    publishAfterCommit(services, onCommit, { realmId: realm.id, userIds: holders.get(last.id) ?? [], event: deleteMessageEvent(last) });
    return undefined;
  }
  // Who finds the notice unread follows their resolved_topic_notice_auto_read_policy.
  const followers = await topicFollowerIds(tx, dest.id, move.destTopic);
  const unreadFor = (u: number) => {
    const policy = userSettingsOf(users.get(u)?.settings ?? {}).resolved_topic_notice_auto_read_policy;
    return policy === 'never' || (policy === 'except_followed' && followers.has(u));
  };
  return postChannelNotification(services, tx, onCommit, {
    bot,
    realm,
    users,
    stream: dest,
    topic: move.destTopic,
    body: paragraph([silentMention(editor), text(p.resolved ? ' has marked this topic as resolved.' : ' has marked this topic as unresolved.')]),
    readFor: (u) => u === editor.id || users.get(u)?.is_bot === true || !unreadFor(u),
  });
}
