// Editing messages: content, topic and channel moves with Zulip's permissions and time limits,
// notices from the Notification Bot, the edit history, and update_message / delete_message events.
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { Services } from '../services.js';
import { nowSeconds } from '../services.js';
import type { Realm } from '../store/realms.js';
import type { User } from '../store/users.js';
import { ROLE } from '../store/users.js';
import { getStream, isSubscribed, streamRecipientIds, subscriberIds, type Stream } from '../store/channels.js';
import { deleteMessageEvent, deleteMessagesByIds, FLAG_BITS, flagNames, insertUserMessages, type MessageRow } from '../store/messages.js';
import { isUserInGroup } from '../store/cache.js';
import type { Executor } from '../store/db.js';
import { VISIBILITY } from '../store/user_topics.js';
import { ApiError, BadRequest, InvalidMessage, InvalidStreamId } from '../errors.js';
import { channelAccess, isRealmAdmin } from '../access/channel_access.js';
import { userSettingsOf } from '../lib/user_settings.js';
import { EMPTY_TOPIC_DISPLAY_NAME } from '../lib/message_text.js';
import { announceFirstMessageIds } from './first_message.js';
import { messageLink, notificationBot, paragraph, postChannelNotification, silentMention, text, topicLink } from './notification_bot.js';
import { renderMarkdown } from '../markdown/render.js';
import { contentFlags } from '../markdown/content_flags.js';
import { messageRenderContext } from './render_context.js';
import { updateMessageAttachments } from './attachments.js';
import { publishAfterCommit } from '../events/publish.js';
import { effectiveTopicsPolicy } from './messages.js';
import { normalizeContent, normalizeTopic } from '../lib/message_text.js';
import { hasSubmessages } from '../store/submessages.js';
import { accessibleMessage } from '../queries/message_access.js';
import type { EditEntry } from '../store/messages.js';
import { withinLimit } from './message_delete.js';



export type PropagateMode = 'change_one' | 'change_later' | 'change_all';

export interface EditRequest {
  content?: string;
  topic?: string;
  /** Move to this channel. */
  streamId?: number;
  propagateMode: PropagateMode;
  prevContentSha256?: string;
  notifyOld: boolean;
  notifyNew: boolean;
}

const MENTION_BITS = FLAG_BITS.mentioned | FLAG_BITS.stream_wildcard_mentioned | FLAG_BITS.topic_wildcard_mentioned;



/** Zulip's rule for changing a message's content: its sender, while editing is on and in time. */
export function checkContentEditAllowed(editor: User, realm: Realm, message: MessageRow, bufferSeconds = 0): void {
  if (!realm.settings.allow_message_editing) throw new BadRequest('Your organization has turned off message editing');
  if (message.sender_id !== editor.id) throw new BadRequest("You don't have permission to edit this message");
  const limit = realm.settings.message_content_edit_limit_seconds;
  if (!withinLimit(message.date_sent, limit === null ? null : limit + bufferSeconds)) throw new BadRequest('The time limit for editing this message has passed');
}

/** Zulip's grace on its edit and move time limits (clients round their countdowns). */
const EDIT_LIMIT_BUFFER = 20;
export const RESOLVED_TOPIC_PREFIX = '✔ ';
/** Resolving and unresolving again within this many seconds deletes the first notice instead. */
const RESOLVE_UNDO_GRACE_SECONDS = 60;
const RESOLVE_NOTICE = /^@_\*\*[^*]*\*\* has marked this topic as (un)?resolved\.$/;

function withinEditLimit(sentAt: number, limit: number | null): boolean {
  return limit === null || nowSeconds() - sentAt <= limit + EDIT_LIMIT_BUFFER;
}

/** The kept topic visibility of a user when two topics merge: the most visible one wins. */
function mergedVisibility(a: number, b: number): number {
  const both = new Set([a, b]);
  if (both.has(VISIBILITY.followed)) return VISIBILITY.followed;
  if (both.has(VISIBILITY.unmuted)) return VISIBILITY.unmuted;
  if (both.has(VISIBILITY.inherit)) return VISIBILITY.inherit;
  return VISIBILITY.muted;
}

/** The ids of a topic's messages the user may see (all of them unless history is protected), oldest first. */
async function visibleTopicMessages(
  tx: Executor,
  user: User,
  stream: Stream,
  topic: string,
  o: { fromId?: number; limit?: number; excluding?: number[] } = {},
): Promise<Array<{ id: number; date_sent: number; topic: string }>> {
  let q = tx
    .selectFrom('messages')
    .select(['messages.id', 'messages.date_sent', 'messages.topic'])
    .where('messages.stream_id', '=', stream.id)
    .where(sql<boolean>`lower(messages.topic) = lower(${topic})`);
  if (!stream.history_public_to_subscribers) q = q.innerJoin('user_messages', 'user_messages.message_id', 'messages.id').where('user_messages.user_id', '=', user.id);
  if (o.fromId !== undefined) q = q.where('messages.id', '>=', o.fromId);
  if (o.excluding?.length) q = q.where('messages.id', 'not in', o.excluding);
  q = q.orderBy('messages.id');
  if (o.limit !== undefined) q = q.limit(o.limit);
  return (await q.execute()).map((r) => ({ id: r.id, date_sent: Number(r.date_sent), topic: r.topic }));
}

export async function editMessage(services: Services, editor: User, realm: Realm, id: number, req: EditRequest): Promise<{ detachedUploads: Record<string, unknown>[] }> {
  const message = await accessibleMessage(services, editor, id);
  const settings = realm.settings;
  const db = services.database.db;
  const graph = await services.cache.groupGraph(realm.id);
  const inGroup = (g: number) => isUserInGroup(graph, editor.id, g);
  if (req.content !== undefined) {
    checkContentEditAllowed(editor, realm, message, EDIT_LIMIT_BUFFER);
    // A poll or to-do list is defined by its submessages; its text cannot change under them.
    if (await hasSubmessages(services.database.db, message.id)) throw new BadRequest('Widgets cannot be edited.');
  }

  // What actually changes: a topic or channel equal to the current one is no change.
  let topic = req.topic === undefined ? undefined : normalizeTopic(req.topic);
  if (topic === message.topic) topic = undefined;
  let streamId = req.streamId;
  if (streamId !== undefined && streamId === message.stream_id) streamId = undefined;
  if (topic === undefined && req.content === undefined && streamId === undefined) throw new BadRequest('Nothing to change');
  if (message.stream_id === null) {
    if (streamId !== undefined) throw new BadRequest('Direct messages cannot be moved to channels.');
    if (topic !== undefined) throw new BadRequest('Direct messages cannot have topics.');
  }
  if (req.propagateMode !== 'change_one' && topic === undefined && streamId === undefined) throw new BadRequest('Invalid propagate_mode without topic edit');
  if (topic === RESOLVED_TOPIC_PREFIX.trim() || topic === `${RESOLVED_TOPIC_PREFIX}${EMPTY_TOPIC_DISPLAY_NAME}`) throw new BadRequest('General chat cannot be marked as resolved');
  if (streamId !== undefined && req.content !== undefined) throw new BadRequest('Cannot change message content while changing channel');
  if (req.prevContentSha256 !== undefined && createHash('sha256').update(message.content).digest('hex') !== req.prevContentSha256) {
    throw new BadRequest("'prev_content_sha256' value does not match the expected value.");
  }

  let content: string | undefined;
  let rendered: ReturnType<typeof renderMarkdown> | undefined;
  if (req.content !== undefined) {
    content = normalizeContent(req.content);
    rendered = renderMarkdown(content, await messageRenderContext(services, realm, editor, content));
  }

  let origStream: Stream | undefined;
  let target: Stream | undefined;
  let resolved = false;
  let unresolved = false;
  if (message.stream_id !== null) {
    origStream = await getStream(db, realm.id, message.stream_id);
    if (!origStream) throw new InvalidMessage();
    target = origStream;
    if (streamId !== undefined) {
      target = await getStream(db, realm.id, streamId);
      const subscribed = target ? await isSubscribed(db, editor.id, target.id) : false;
      // Archived channels take no messages: they look missing, as in Zulip.
      if (!target || target.is_archived || !channelAccess(graph, editor, target, subscribed).content) throw new InvalidStreamId();
    }
    const targetTopic = topic ?? message.topic;
    const policy = effectiveTopicsPolicy(target, realm);
    if (targetTopic === '' && (topic !== undefined || streamId !== undefined) && policy === 'disable_empty_topic') {
      throw new BadRequest(`Sending messages to the ${EMPTY_TOPIC_DISPLAY_NAME} is not allowed in this channel.`);
    }
    if (targetTopic !== '' && policy === 'empty_topic_only') throw new BadRequest(`Only the ${EMPTY_TOPIC_DISPLAY_NAME} topic is allowed in this channel.`);
    if (topic !== undefined) {
      resolved = topic.startsWith(RESOLVED_TOPIC_PREFIX) && !message.topic.startsWith(RESOLVED_TOPIC_PREFIX) && topic.slice(RESOLVED_TOPIC_PREFIX.length) === message.topic;
      unresolved = message.topic.startsWith(RESOLVED_TOPIC_PREFIX) && !topic.startsWith(RESOLVED_TOPIC_PREFIX) && message.topic.replace(/^[✔ ]+/, '') === topic;
    }
  }
  const moderator = editor.role <= ROLE.moderator;
  const channelAdmin = (s: Stream) => isRealmAdmin(editor) || inGroup(s.can_administer_channel_group);
  if (topic !== undefined && origStream && target) {
    const orig = origStream;
    const other = target.id !== orig.id ? target : undefined;
    if (resolved || unresolved) {
      const may = inGroup(settings.can_resolve_topics_group) || inGroup(orig.can_resolve_topics_group) || (other !== undefined && inGroup(other.can_resolve_topics_group));
      if (!may) throw new BadRequest("You don't have permission to resolve topics in this channel.");
    } else {
      const mayWithin = (s: Stream) => channelAdmin(s) || inGroup(s.can_move_messages_within_channel_group);
      const may = inGroup(settings.can_move_messages_between_topics_group) || mayWithin(orig) || (other !== undefined && mayWithin(other));
      if (!may) throw new BadRequest("You don't have permission to edit this message");
      if (!moderator && !withinEditLimit(message.date_sent, settings.move_messages_within_stream_limit_seconds)) {
        throw new BadRequest("The time limit for editing this message's topic has passed.");
      }
    }
  }
  if (streamId !== undefined && origStream && target) {
    const may =
      isRealmAdmin(editor) || inGroup(settings.can_move_messages_between_channels_group) || channelAdmin(origStream) || inGroup(origStream.can_move_messages_out_of_channel_group);
    if (!may) throw new BadRequest("You don't have permission to move this message");
    if (!inGroup(target.can_send_message_group)) throw new BadRequest('You do not have permission to post in this channel.');
    if (!moderator && !withinEditLimit(message.date_sent, settings.move_messages_between_streams_limit_seconds)) {
      throw new BadRequest("The time limit for editing this message's channel has passed");
    }
  }
  const moved = topic !== undefined || streamId !== undefined;
  if (origStream && moved && req.propagateMode === 'change_all' && !moderator && !resolved && !unresolved) {
    await checkWholeTopicTimeLimit(db, editor, realm, origStream, message.topic, topic !== undefined, streamId !== undefined);
  }

  // Automated notices: the Notification Bot must exist before the transaction that posts them.
  const notices = origStream !== undefined && moved && (req.notifyOld || req.notifyNew || resolved || unresolved);
  const bot = notices ? await notificationBot(services, realm.id) : undefined;
  const users = await services.cache.users(realm.id);

  const now = nowSeconds();
  let detached: Record<string, unknown>[] = [];
  await services.database.transaction(async (tx, onCommit) => {
    const orig = origStream;
    const dest = target;
    const origTopic = message.topic;
    const destTopic = topic ?? origTopic;
    const streamMoved = streamId !== undefined && orig !== undefined && dest !== undefined;
    // Whether the destination topic had messages before this move (for merging visibility policies).
    const destHadMessages =
      moved && dest ? !!(await tx.selectFrom('messages').select('id').where('stream_id', '=', dest.id).where(sql<boolean>`lower(topic) = lower(${destTopic})`).limit(1).executeTakeFirst()) : false;

    // The messages the edit touches: this one, or the topic's later/all messages (those the editor can see).
    let others: Array<{ id: number; topic: string }> = [];
    if (moved && orig && req.propagateMode !== 'change_one') {
      others = (await visibleTopicMessages(tx, editor, orig, origTopic, { fromId: req.propagateMode === 'change_later' ? message.id : undefined })).filter(
        (m) => m.id !== message.id,
      );
    }
    const ids = [message.id, ...others.map((m) => m.id)].sort((a, b) => a - b);
    const destRecipientId = streamMoved ? (await streamRecipientIds(tx, [dest.id])).get(dest.id)! : undefined;
    const moveFields = (fromTopic: string) => {
      const entry: EditEntry = { timestamp: now, user_id: editor.id };
      const set: Record<string, unknown> = { last_edit_time: now };
      if (streamMoved) {
        entry.prev_stream = orig.id;
        entry.stream = dest.id;
        set.stream_id = dest.id;
        set.recipient_id = destRecipientId;
      }
      if (topic !== undefined && topic !== fromTopic) {
        entry.prev_topic = fromTopic;
        entry.topic = topic;
        set.topic = topic;
      }
      return { entry, set };
    };
    {
      // The edited message: content and location, its history parsed and extended.
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
      await tx.updateTable('messages').set(set).where('id', '=', message.id).execute();
      if (rendered) detached = await updateMessageAttachments(services, tx, onCommit, { id: message.id, realmId: realm.id, sender: editor, renderedHtml: rendered.html, previousHtml: message.rendered_content });
    }
    // The others move together: one UPDATE per original topic spelling (and 1000 ids), the
    // history entry appended to each row's JSON list in SQL.
    const byTopic = new Map<string, number[]>();
    for (const m of others) (byTopic.get(m.topic) ?? byTopic.set(m.topic, []).get(m.topic)!).push(m.id);
    for (const [fromTopic, group] of byTopic) {
      const { entry, set } = moveFields(fromTopic);
      const json = JSON.stringify(entry);
      set.edit_history = sql<string>`CASE WHEN edit_history IS NULL OR edit_history = '' THEN ${'[' + json + ']'} ELSE substr(edit_history, 1, length(edit_history) - 1) || ${',' + json + ']'} END`;
      for (let i = 0; i < group.length; i += 1000) await tx.updateTable('messages').set(set).where('id', 'in', group.slice(i, i + 1000)).execute();
    }

    // Moving to another channel: who keeps, loses and gains the messages.
    let losingRows: number[] = [];
    let losingAccess: number[] = [];
    if (streamMoved) {
      const oldAll = (await tx.selectFrom('subscriptions').select('user_id').distinct().where('stream_id', '=', orig.id).execute()).map((r) => r.user_id);
      const newActive = new Set(await subscriberIds(tx, dest.id));
      losingRows = oldAll.filter((u) => !newActive.has(u));
      losingAccess = dest.invite_only ? losingRows : losingRows.filter((u) => users.get(u)?.role === ROLE.guest);
      for (let i = 0; i < ids.length; i += 1000) {
        const part = ids.slice(i, i + 1000);
        for (let j = 0; j < losingRows.length; j += 1000) {
          await tx.deleteFrom('user_messages').where('message_id', 'in', part).where('user_id', 'in', losingRows.slice(j, j + 1000)).execute();
        }
      }
      if (!dest.history_public_to_subscribers) {
        // Protected history: every current subscriber of the destination must hold a row.
        const rows = [];
        for (const u of newActive) for (const mid of ids) rows.push({ user_id: u, message_id: mid, flags: FLAG_BITS.read });
        await insertUserMessages(tx, rows, true);
      }
      await sql`UPDATE streams SET first_message_id = (SELECT min(id) FROM messages WHERE messages.stream_id = streams.id) WHERE id IN (${orig.id}, ${dest.id})`.execute(tx);
      if (losingAccess.length) {
        publishAfterCommit(services, onCommit, {
          realmId: realm.id,
          userIds: losingAccess,
          event: { type: 'delete_message', message_ids: ids, message_type: 'stream', stream_id: orig.id, topic: origTopic },
        });
      }
    }

    // Mentions follow the new content: recipients gain or lose the mention flags.
    const rows: Array<{ user_id: number; message_id: number; flags: number }> = [];
    for (let i = 0; i < ids.length; i += 1000) {
      rows.push(...(await tx.selectFrom('user_messages').select(['user_id', 'message_id', 'flags']).where('message_id', 'in', ids.slice(i, i + 1000)).execute()));
    }
    if (rendered) {
      for (const r of rows.filter((x) => x.message_id === message.id)) {
        let flags = r.flags & ~MENTION_BITS;
        if (rendered.mentionedUserIds.has(r.user_id)) flags |= FLAG_BITS.mentioned;
        if (rendered.wildcard === 'stream' || (rendered.wildcard && !orig)) flags |= FLAG_BITS.stream_wildcard_mentioned;
        if (flags !== r.flags) {
          await tx.updateTable('user_messages').set({ flags }).where('user_id', '=', r.user_id).where('message_id', '=', message.id).execute();
          r.flags = flags;
        }
      }
    }
    // Who is told: everyone holding one of the messages, and (open history) the subscribers of
    // both channels who can read them; not those who lost them, nor guests new to them.
    const losing = new Set(losingAccess);
    const told = new Set(rows.map((r) => r.user_id));
    if (orig?.history_public_to_subscribers && dest) {
      const destSubs = await subscriberIds(tx, dest.id);
      const origSubs = streamMoved ? new Set(await subscriberIds(tx, orig.id)) : new Set<number>();
      for (const u of destSubs) {
        if (streamMoved && !origSubs.has(u) && users.get(u)?.role === ROLE.guest) continue;
        told.add(u);
      }
      for (const u of origSubs) told.add(u);
    }
    const recipients = [...told].filter((u) => !losing.has(u) && users.get(u)?.is_active !== false);
    const perUser: Record<number, Record<string, unknown>> = {};
    for (const r of rows) if (r.message_id === message.id) perUser[r.user_id] = { flags: flagNames(r.flags) };
    for (const u of recipients) perUser[u] ??= { flags: ['read'] };
    const event: Record<string, unknown> = {
      type: 'update_message',
      user_id: editor.id,
      message_id: message.id,
      message_ids: ids,
      edit_timestamp: now,
      rendering_only: false,
    };
    if (content !== undefined) {
      Object.assign(event, {
        orig_content: message.content,
        orig_rendered_content: message.rendered_content,
        content,
        rendered_content: rendered!.html,
        is_me_message: content.startsWith('/me '),
      });
    }
    if (orig) Object.assign(event, { stream_id: orig.id, stream_name: orig.name });
    if (moved) event.propagate_mode = req.propagateMode;
    if (streamMoved) Object.assign(event, { new_stream_id: dest.id, orig_subject: origTopic });
    if (topic !== undefined) Object.assign(event, { orig_subject: origTopic, subject: topic, topic_links: [] });

    // Whether the editor moved every message of the topic they can see.
    let movedAll = false;
    if (moved && orig) movedAll = req.propagateMode === 'change_all' || (await visibleTopicMessages(tx, editor, orig, origTopic, { limit: 1 })).length === 0;
    const userTopicEvents: Array<{ userId: number; streamId: number; topic: string; policy: number }> = [];
    if (movedAll && orig && dest) {
      const policiesOf = async (s: Stream, t: string) =>
        new Map(
          (
            await tx
              .selectFrom('user_topics')
              .select(['user_id', 'visibility_policy'])
              .where('stream_id', '=', s.id)
              .where(sql<boolean>`lower(topic_name) = lower(${t})`)
              .execute()
          ).map((r) => [r.user_id, Number(r.visibility_policy)]),
        );
      const before = await policiesOf(orig, origTopic);
      const after = await policiesOf(dest, destTopic);
      // Users who lose the messages lose the policy; the others carry theirs over (merged with
      // any they had for the destination topic). Three statements whatever the number of users.
      const sameTopic = dest.id === orig.id && destTopic.toLowerCase() === origTopic.toLowerCase();
      const clearOrig: number[] = [];
      const setDest = new Map<number, number>();
      for (const u of new Set([...before.keys(), ...after.keys()])) {
        const from = before.get(u);
        if (from !== undefined && from !== VISIBILITY.inherit) clearOrig.push(u);
        if (streamMoved && losing.has(u)) continue;
        const to = after.get(u) ?? VISIBILITY.inherit;
        const next = destHadMessages ? mergedVisibility(from ?? VISIBILITY.inherit, to) : (from ?? VISIBILITY.inherit);
        // Clearing the original topic also cleared the destination when they are one and the same.
        if (next !== to || (sameTopic && clearOrig.includes(u))) setDest.set(u, next);
      }
      const topicRows = (s: Stream, t: string, userIds: number[]) =>
        tx.deleteFrom('user_topics').where('user_id', 'in', userIds).where('stream_id', '=', s.id).where(sql<boolean>`lower(topic_name) = lower(${t})`);
      if (clearOrig.length) {
        await topicRows(orig, origTopic, clearOrig).execute();
        for (const u of clearOrig) userTopicEvents.push({ userId: u, streamId: orig.id, topic: origTopic, policy: VISIBILITY.inherit });
      }
      if (setDest.size) {
        await topicRows(dest, destTopic, [...setDest.keys()]).execute();
        const inserts = [...setDest].filter(([, p]) => p !== VISIBILITY.inherit);
        if (inserts.length) {
          await tx
            .insertInto('user_topics')
            .values(inserts.map(([u, p]) => ({ user_id: u, stream_id: dest.id, topic_name: destTopic, visibility_policy: p, last_updated: now })))
            .execute();
        }
        for (const [u, p] of setDest) userTopicEvents.push({ userId: u, streamId: dest.id, topic: destTopic, policy: p });
      }
    }
    publishAfterCommit(services, onCommit, { realmId: realm.id, userIds: recipients, event, perUser });
    for (const e of userTopicEvents) {
      publishAfterCommit(services, onCommit, {
        realmId: realm.id,
        userIds: [e.userId],
        event: { type: 'user_topic', stream_id: e.streamId, topic_name: e.topic, last_updated: now, visibility_policy: e.policy },
      });
    }

    if (bot && orig && dest) {
      const editorMention = silentMention(editor);
      const readForEditor = (u: number) => u === editor.id;
      // Resolving or unresolving a topic (and nothing else) is announced in it, unless it undoes a
      // notice posted moments ago, which is then deleted instead.
      let resolveNoticeId: number | undefined;
      if ((resolved || unresolved) && content === undefined && !streamMoved) {
        const last = await tx
          .selectFrom('messages')
          .select(['id', 'sender_id', 'content', 'date_sent', 'recipient_type', 'stream_id', 'topic'])
          .where('stream_id', '=', dest.id)
          .where(sql<boolean>`lower(topic) = lower(${destTopic})`)
          .orderBy('id', 'desc')
          .limit(1)
          .executeTakeFirst();
        if (last && last.sender_id === bot.id && RESOLVE_NOTICE.test(last.content) && now - Number(last.date_sent) <= RESOLVE_UNDO_GRACE_SECONDS) {
          const holders = await deleteMessagesByIds(tx, realm.id, [last.id]);
          publishAfterCommit(services, onCommit, { realmId: realm.id, userIds: holders.get(last.id) ?? [], event: deleteMessageEvent(last) });
        } else {
          // Who finds the notice unread follows their resolved_topic_notice_auto_read_policy.
          const followers = new Set(
            (
              await tx
                .selectFrom('user_topics')
                .select('user_id')
                .where('stream_id', '=', dest.id)
                .where(sql<boolean>`lower(topic_name) = lower(${destTopic})`)
                .where('visibility_policy', '=', VISIBILITY.followed)
                .execute()
            ).map((r) => r.user_id),
          );
          const unreadFor = (u: number) => {
            const p = userSettingsOf(users.get(u)?.settings ?? {}).resolved_topic_notice_auto_read_policy;
            return p === 'never' || (p === 'except_followed' && followers.has(u));
          };
          resolveNoticeId = await postChannelNotification(services, tx, onCommit, {
            bot,
            realm,
            users,
            stream: dest,
            topic: destTopic,
            body: paragraph([editorMention, text(resolved ? ' has marked this topic as resolved.' : ' has marked this topic as unresolved.')]),
            readFor: (u) => u === editor.id || users.get(u)?.is_bot === true || !unreadFor(u),
          });
        }
      }
      const count = ids.length;
      if (req.notifyNew && (streamMoved || (topic !== undefined && !resolved && !unresolved))) {
        const preexisting = await visibleTopicMessages(tx, editor, dest, destTopic, { limit: 1, excluding: [...ids, ...(resolveNoticeId ? [resolveNoticeId] : [])] });
        const from = topicLink(orig, origTopic);
        let body;
        if (preexisting.length === 0 && movedAll) body = paragraph([text('This topic was moved here from '), from, text(' by '), editorMention, text('.')]);
        else if (count === 1) {
          body = paragraph([messageLink(services, realm, dest, destTopic, message.id, 'A message'), text(' was moved here from '), from, text(' by '), editorMention, text('.')]);
        } else body = paragraph([text(`${count} messages were moved here from `), from, text(' by '), editorMention, text('.')]);
        await postChannelNotification(services, tx, onCommit, { bot, realm, users, stream: dest, topic: destTopic, body, readFor: readForEditor });
      }
      if (req.notifyOld) {
        const to = topicLink(dest, destTopic);
        let body;
        if (movedAll) body = paragraph([text('This topic was moved to '), to, text(' by '), editorMention, text('.')]);
        else if (count === 1) body = paragraph([text('A message was moved from this topic to '), to, text(' by '), editorMention, text('.')]);
        else body = paragraph([text(`${count} messages were moved from this topic to `), to, text(' by '), editorMention, text('.')]);
        await postChannelNotification(services, tx, onCommit, { bot, realm, users, stream: orig, topic: origTopic, body, readFor: readForEditor });
      }
    }
    if (streamMoved) await announceFirstMessageIds(services, tx, onCommit, { realmId: realm.id, users, graph }, [{ ...orig }, { ...dest }]);
  });
  return { detachedUploads: detached };
}

/**
 * Zulip's check for moving a whole topic: everyone but moderators may move only messages within
 * the applicable time limit; when older ones are in the topic, the error says which part may move.
 */
async function checkWholeTopicTimeLimit(db: Executor, user: User, realm: Realm, stream: Stream, topic: string, topicChanged: boolean, streamChanged: boolean): Promise<void> {
  const s = realm.settings;
  const limits: number[] = [];
  if (topicChanged && s.move_messages_within_stream_limit_seconds !== null) limits.push(s.move_messages_within_stream_limit_seconds + EDIT_LIMIT_BUFFER);
  if (streamChanged && s.move_messages_between_streams_limit_seconds !== null) limits.push(s.move_messages_between_streams_limit_seconds + EDIT_LIMIT_BUFFER);
  if (limits.length === 0) return;
  const oldest = nowSeconds() - Math.min(...limits);
  const all = await visibleTopicMessages(db, user, stream, topic);
  const allowed = all.filter((m) => m.date_sent > oldest);
  if (allowed.length === all.length) return;
  throw new ApiError(`You only have permission to move the ${allowed.length}/${all.length} most recent messages in this topic.`, 'MOVE_MESSAGES_TIME_LIMIT_EXCEEDED', 400, {
    first_message_id_allowed_to_move: allowed[0]?.id ?? null,
    total_messages_in_topic: all.length,
    total_messages_allowed_to_move: allowed.length,
  });
}


