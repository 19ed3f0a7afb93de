// GET /messages: a window of messages around an anchor within a narrow, with the viewer's flags.
// A user reads the messages they received (their user_messages rows); in a channel whose history
// is open to them they also read the messages from before they joined, flagged read+historical.
import type { Services } from '../services.js';
import { ROLE, type User } from '../store/users.js';
import { findDmGroup, type MessageRow } from '../store/messages.js';
import {
  firstMessageIdSince,
  firstRealmMessageIdSince,
  firstUnreadMessageId,
  messageAt,
  messagesAfter,
  messagesBefore,
  type MessageFilter,
  type MessageScope,
} from '../store/message_window.js';
import { channelAccess } from '../access/channel_access.js';
import type { Term } from './terms.js';
import { parseSearch, type SearchQuery } from './search.js';

export const MAX_MESSAGES_PER_FETCH = 5000;
const LARGER_THAN_ANY_ID = 1e15;

/** `date`: the first message sent at or after this Unix time. */
export type Anchor = number | 'newest' | 'oldest' | 'first_unread' | { date: number };

export interface FetchRequest {
  anchor: Anchor;
  numBefore: number;
  numAfter: number;
  includeAnchor: boolean;
  terms: Term[];
  /** Only these messages (message_ids, matches_narrow); the anchor then only orders the window. */
  messageIds?: number[];
  /** false: only the viewer's own rows, even in a channel whose history is open (matches_narrow). */
  allowHistory?: boolean;
}

export interface FetchResult {
  rows: Array<MessageRow & { flags: number }>;
  anchor: number;
  found_anchor: boolean;
  found_oldest: boolean;
  found_newest: boolean;
  history_limited: boolean;
  /** The narrow's search, for match_content and match_subject. */
  search?: SearchQuery;
}

/** Whether the narrow's channel lets the viewer read beyond their own rows. */
async function channelHistoryOpen(services: Services, viewer: User, terms: Term[]): Promise<boolean> {
  // Zulip: any `is` term is about the viewer's own rows, so it never reads history.
  if (terms.some((t) => t.kind === 'is')) return false;
  // channels:public reads every public channel's history, for anyone but guests (the condition
  // limits the rows to public channels of the viewer's organization).
  if (terms.some((t) => t.kind === 'channels_public' && !t.negated) && viewer.role !== ROLE.guest) return true;
  const channel = terms.find((t): t is Extract<Term, { kind: 'channel' }> => t.kind === 'channel' && !t.negated);
  if (!channel) return false;
  if (!channel.stream.history_public_to_subscribers) return false;
  const graph = await services.cache.groupGraph(viewer.realm_id);
  return channelAccess(graph, viewer, channel.stream, channel.subscribed).content;
}

export async function fetchMessages(services: Services, viewer: User, req: FetchRequest): Promise<FetchResult> {
  const db = services.database.db;
  // With open history, messages without a row of the viewer's count as read and historical.
  const historyOpen = req.allowHistory !== false && (await channelHistoryOpen(services, viewer, req.terms));

  const dmGroupIds = new Map<string, number | undefined>();
  for (const t of req.terms) {
    if (t.kind !== 'dm') continue;
    const ids = [...new Set([viewer.id, ...t.userIds])];
    dmGroupIds.set(t.userIds.join(','), await findDmGroup(db, viewer.realm_id, ids));
  }

  // Zulip joins the search operands into one search, which the results are highlighted for.
  const searchText = req.terms.filter((t) => t.kind === 'search' && !t.negated).map((t) => (t as { text: string }).text);
  const search = searchText.length ? parseSearch(searchText.join(' ')) : undefined;
  const scope: MessageScope = {
    dialect: services.database.dialect,
    viewerId: viewer.id,
    realmId: viewer.realm_id,
    withHistory: historyOpen,
    messageIds: req.messageIds,
    filters: req.terms.flatMap((t) => filterOf(t, dmGroupIds)),
    search,
  };

  let anchor: number;
  if (req.anchor === 'newest') anchor = LARGER_THAN_ANY_ID;
  else if (req.anchor === 'oldest') anchor = 0;
  else if (req.anchor === 'first_unread') {
    // Zulip skips muted topics, and muted channels unless the narrow is that channel.
    const inChannel = req.terms.some((t) => t.kind === 'channel' && !t.negated);
    anchor = (await firstUnreadMessageId(db, scope, !inChannel)) ?? LARGER_THAN_ANY_ID;
  } else if (typeof req.anchor === 'object') {
    // The organization's first message since then, then the narrow's first from there.
    const since = await firstRealmMessageIdSince(db, viewer.realm_id, req.anchor.date);
    const first = since === undefined ? undefined : await firstMessageIdSince(db, scope, since, req.anchor.date);
    anchor = first ?? LARGER_THAN_ANY_ID;
  } else anchor = req.anchor;

  const [before, at, after] = await Promise.all([
    req.numBefore > 0 ? messagesBefore(db, scope, anchor, req.numBefore) : Promise.resolve([]),
    req.includeAnchor && anchor > 0 && anchor < LARGER_THAN_ANY_ID ? messageAt(db, scope, anchor) : Promise.resolve(undefined),
    req.numAfter > 0 ? messagesAfter(db, scope, anchor, req.numAfter) : Promise.resolve([]),
  ]);
  const rows = [...before, ...(at ? [at] : []), ...after];
  return {
    rows,
    anchor: req.anchor === 'newest' ? LARGER_THAN_ANY_ID_API : anchor === LARGER_THAN_ANY_ID ? LARGER_THAN_ANY_ID_API : anchor,
    found_anchor: at !== undefined,
    found_oldest: req.anchor === 'oldest' || before.length < req.numBefore,
    found_newest: anchor === LARGER_THAN_ANY_ID || after.length < req.numAfter,
    history_limited: false,
    search,
  };
}

/** Zulip reports the "newest" anchor as this sentinel. */
const LARGER_THAN_ANY_ID_API = 10000000000000000;

/**
 * A term as the store's filter: names resolved to ids. The narrow's (non-negated) search terms
 * are one joined search instead, and `empty` filters nothing.
 */
function filterOf(t: Term, dmGroups: Map<string, number | undefined>): MessageFilter[] {
  switch (t.kind) {
    case 'empty':
      return [];
    case 'search':
      return t.negated ? [{ kind: 'search', query: parseSearch(t.text), negated: true }] : [];
    case 'channel':
      return [{ kind: 'channel', streamId: t.stream.id, negated: t.negated }];
    case 'dm':
      return [{ kind: 'dm_group', groupId: dmGroups.get(t.userIds.join(',')), negated: t.negated }];
    default:
      return [t];
  }
}
