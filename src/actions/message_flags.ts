// POST /messages/flags: the viewer's own flags on messages they can read, following Zulip's
// do_update_message_flags.
import type { Services } from '../services.js';
import type { Realm } from '../store/realms.js';
import type { User } from '../store/users.js';
import type { Executor } from '../store/db.js';
import type { GroupGraph } from '../store/cache.js';
import { FLAG_BITS, channelMessagesAmong, dmGroupMembers, flagsFor, getMessages, insertUserMessages, setFlagBit, type FlagName, type MessageRow } from '../store/messages.js';
import { getStreamsByIds, subscriptionsOf, type Subscription } from '../store/channels.js';
import { isTopicMuted, listUserTopics, VISIBILITY } from '../store/user_topics.js';
import { BadRequest, InvalidMessage } from '../errors.js';
import { channelAccess } from '../access/channel_access.js';
import { publishAfterCommit } from '../events/publish.js';
import { fetchMessages, type Anchor } from '../queries/messages.js';
import type { Term } from '../queries/terms.js';
import { messageFlagsEvent } from '../events/types.js';

/** Flags a user may set or clear; the rest are the server's to decide. */
const EDITABLE: ReadonlySet<string> = new Set(['read', 'starred', 'collapsed']);
/** Zulip's other flags: known, but not the user's to change. */
const NON_EDITABLE: ReadonlySet<string> = new Set([
  'has_alert_word',
  'mentioned',
  'stream_wildcard_mentioned',
  'topic_wildcard_mentioned',
  'group_mentioned',
  'historical',
  'force_expand',
  'force_collapse',
]);

/**
 * The flags a message has for a reader without a row of their own (reading a channel's history):
 * Zulip simulates exactly these, so changing a flag to this value needs no row.
 */
const HISTORICAL_FLAGS = FLAG_BITS.read | FLAG_BITS.historical;

export function checkEditableFlag(flag: string): FlagName {
  if (EDITABLE.has(flag)) return flag as FlagName;
  if (NON_EDITABLE.has(flag)) throw new BadRequest(`Flag not editable: '${flag}'`);
  throw new BadRequest(`Invalid flag: '${flag}'`);
}

export interface FlagsResult {
  messages: number[];
  ignored_because_not_subscribed_channels?: number[];
}

/**
 * Adds or removes a flag. Ids whose flag already has the wanted value are skipped; a message
 * the user reads through channel history gets its row (flagged historical) when the change needs
 * one, which requires access to it. Unread messages must be in subscribed channels, so marking
 * unread skips messages of other channels and reports those channels.
 */
export async function updateMessageFlags(services: Services, user: User, realm: Realm, messageIds: number[], op: 'add' | 'remove', flag: FlagName): Promise<FlagsResult> {
  const bit = FLAG_BITS[flag];
  const target = op === 'add' ? bit : 0;
  const markingUnread = flag === 'read' && op === 'remove';
  // Read before the transaction: inside it only the transaction handle may be used.
  const graph = await services.cache.groupGraph(realm.id);
  return services.database.transaction(async (tx, onCommit) => {
    let ids = [...new Set(messageIds)];
    let ignoredChannels: number[] = [];
    if (markingUnread && ids.length) {
      const streamMessages = await channelMessagesAmong(tx, realm.id, ids);
      const channelIds = [...new Set(streamMessages.map((m) => m.stream_id))];
      const subs = await subscriptionsOf(tx, user.id, channelIds);
      const skipped = new Set(streamMessages.filter((m) => !subs.get(m.stream_id)?.active).map((m) => m.id));
      ignoredChannels = channelIds.filter((id) => !subs.get(id)?.active).sort((a, b) => a - b);
      ids = ids.filter((id) => !skipped.has(id));
    }
    const current = await flagsFor(tx, user.id, ids);
    const changed = ids.filter((id) => ((current.get(id) ?? HISTORICAL_FLAGS) & bit) !== target);
    const historical = changed.filter((id) => !current.has(id));
    if (historical.length && (HISTORICAL_FLAGS & bit) !== target) {
      await checkHistoryAccess(tx, graph, user, realm, historical);
      const flags = (HISTORICAL_FLAGS & ~bit) | target;
      await insertUserMessages(tx, historical.map((message_id) => ({ user_id: user.id, message_id, flags })), true);
    }
    const existing = changed.filter((id) => current.has(id));
    await setFlagBit(tx, user.id, existing, bit, op === 'add');
    const details = markingUnread ? await unreadDetails(tx, user, realm, changed) : undefined;
    const event = messageFlagsEvent(op, flag, changed, details);
    publishAfterCommit(services, onCommit, { realmId: realm.id, userIds: [user.id], event });
    const out: FlagsResult = { messages: changed };
    if (markingUnread) out.ignored_because_not_subscribed_channels = ignoredChannels;
    return out;
  });
}

/**
 * Messages without a row of the user's are readable only as channel history: a message of a
 * channel whose history is open to subscribers, which the user may read. Anything else (another
 * organization's message, a direct message, a missing id) makes the whole request invalid.
 */
async function checkHistoryAccess(tx: Executor, graph: GroupGraph, user: User, realm: Realm, ids: number[]): Promise<void> {
  const rows = await getMessages(tx, realm.id, ids);
  if (rows.length !== ids.length || rows.some((m) => m.stream_id === null)) throw new InvalidMessage();
  const streamIds = [...new Set(rows.map((m) => m.stream_id!))];
  const [streams, subs] = await Promise.all([getStreamsByIds(tx, realm.id, streamIds), subscriptionsOf(tx, user.id, streamIds)]);
  const readable = new Set(
    streams.filter((s) => s.history_public_to_subscribers && channelAccess(graph, user, s, subs.get(s.id)?.active ?? false).content).map((s) => s.id),
  );
  if (rows.some((m) => !readable.has(m.stream_id!))) throw new InvalidMessage();
}


/** What clients need to put messages marked unread back into their unread counts (message_details). */
async function unreadDetails(tx: Executor, user: User, realm: Realm, ids: number[]): Promise<Record<string, Record<string, unknown>>> {
  const details: Record<string, Record<string, unknown>> = {};
  if (ids.length === 0) return details;
  const rows = await getMessages(tx, realm.id, ids);
  const groupIds = [...new Set(rows.filter((m) => m.dm_group_id !== null).map((m) => m.dm_group_id!))];
  const streamIds = [...new Set(rows.filter((m) => m.stream_id !== null).map((m) => m.stream_id!))];
  const [members, flags, subs, topics] = await Promise.all([
    dmGroupMembers(tx, groupIds),
    flagsFor(tx, user.id, ids),
    subscriptionsOf(tx, user.id, streamIds),
    streamIds.length ? listUserTopics(tx, user.id) : Promise.resolve([]),
  ]);
  const policyOf = new Map(topics.map((t) => [`${t.stream_id}:${t.topic_name.toLowerCase()}`, t.visibility_policy]));
  for (const m of rows) {
    const f = flags.get(m.id) ?? 0;
    let entry: Record<string, unknown>;
    let muted = false;
    if (m.recipient_type === 'stream') {
      muted = isTopicMuted(subs.get(m.stream_id!)?.is_muted ?? false, policyOf.get(`${m.stream_id}:${m.topic.toLowerCase()}`) ?? VISIBILITY.inherit);
      entry = { type: 'stream', stream_id: m.stream_id, topic: m.topic, unmuted_stream_msg: !muted };
    } else {
      const others = (members.get(m.dm_group_id!) ?? []).filter((id) => id !== user.id).sort((a, b) => a - b);
      entry = { type: 'private', user_ids: others };
    }
    // Personal mentions always count; wildcard mentions only where the reader has not muted them.
    const wildcard = (f & (FLAG_BITS.stream_wildcard_mentioned | FLAG_BITS.topic_wildcard_mentioned)) !== 0;
    if ((f & (FLAG_BITS.mentioned | FLAG_BITS.group_mentioned)) !== 0 || (wildcard && !muted)) entry.mentioned = true;
    details[String(m.id)] = entry;
  }
  return details;
}

/** Zulip's MAX_MESSAGES_PER_UPDATE: the most messages one flags/narrow request changes. */
export const MAX_MESSAGES_PER_UPDATE = 5000;

export interface NarrowFlagsRequest {
  anchor: Anchor;
  includeAnchor: boolean;
  numBefore: number;
  numAfter: number;
  terms: Term[];
}

/**
 * POST /messages/flags/narrow: the flag change over a window of a narrow, as GET /messages would
 * return it. The window is clamped to MAX_MESSAGES_PER_UPDATE (the before side keeps at least half).
 */
export async function updateFlagsForNarrow(services: Services, user: User, realm: Realm, req: NarrowFlagsRequest, op: 'add' | 'remove', flag: FlagName) {
  if (req.numBefore > 0 && req.numAfter > 0 && !req.includeAnchor) throw new BadRequest('The anchor can only be excluded at an end of the range');
  const numBefore = Math.min(req.numBefore, Math.max(MAX_MESSAGES_PER_UPDATE - req.numAfter, MAX_MESSAGES_PER_UPDATE / 2));
  const numAfter = Math.min(req.numAfter, MAX_MESSAGES_PER_UPDATE - numBefore);
  const window = await fetchMessages(services, user, { anchor: req.anchor, includeAnchor: req.includeAnchor, numBefore, numAfter, terms: req.terms });
  const ids = window.rows.map((m) => m.id);
  const result = await updateMessageFlags(services, user, realm, ids, op, flag);
  const out: Record<string, unknown> = {
    processed_count: ids.length,
    updated_count: result.messages.length,
    first_processed_id: ids.length ? ids[0] : null,
    last_processed_id: ids.length ? ids[ids.length - 1] : null,
    found_oldest: window.found_oldest || req.anchor === 0,
    found_newest: window.found_newest,
  };
  if (result.ignored_because_not_subscribed_channels) out.ignored_because_not_subscribed_channels = result.ignored_because_not_subscribed_channels;
  return out;
}
