// GET /messages: a window of messages around an anchor within a narrow, with the viewer's flags.
// A user reads the messages they received (their user_messages rows); in a channel whose history
// is open to them they also read the messages from before they joined, flagged read+historical.
import { sql, type Expression, type SqlBool, type SelectQueryBuilder } from 'kysely';
import type { Services } from '../services.js';
import { ROLE, type User } from '../store/users.js';
import type { DB } from '../store/schema.js';
import { FLAG_BITS, findDmGroup, messageFromRow, type MessageRow } from '../store/messages.js';
import { isSubscribed } from '../store/channels.js';
import { channelAccess } from '../access/channel_access.js';
import type { Term } from './terms.js';
import { parseSearch, searchCondition, type SearchQuery } from './search.js';
import type { DialectName } from '../store/dialect.js';
import { VISIBILITY } from '../store/user_topics.js';

export const MAX_MESSAGES_PER_FETCH = 5000;
const LARGER_THAN_ANY_ID = 1e15;
/** Flags of a message the viewer reads through channel history without a row of their own. */
export const HISTORICAL_FLAGS = FLAG_BITS.read | FLAG_BITS.historical;

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

type Query = SelectQueryBuilder<DB & { um: DB['user_messages'] }, 'messages' | 'um', Record<string, unknown>>;

/** Whether the narrow's channel lets the viewer read beyond their own rows. */
async function channelHistoryOpen(services: Services, viewer: User, terms: Term[]): Promise<boolean> {
  // Zulip: any `is` term is about the viewer's own rows, so it never reads history.
  if (terms.some((t) => t.kind === 'is')) return false;
  // channels:public reads every public channel's history, for anyone but guests (the condition
  // limits the rows to public channels of the viewer's organization).
  if (terms.some((t) => t.kind === 'channels_public' && !t.negated) && viewer.role !== ROLE.guest) return true;
  const channel = terms.find((t): t is Extract<Term, { kind: 'channel' }> => t.kind === 'channel' && !t.negated);
  if (!channel) return false;
  const stream = channel.stream;
  if (!stream.history_public_to_subscribers) return false;
  const graph = await services.cache.groupGraph(viewer.realm_id);
  const subscribed = await isSubscribed(services.database.db, viewer.id, stream.id);
  return channelAccess(graph, viewer, stream, subscribed).content;
}

export async function fetchMessages(services: Services, viewer: User, req: FetchRequest): Promise<FetchResult> {
  const db = services.database.db;
  const historyOpen = req.allowHistory !== false && (await channelHistoryOpen(services, viewer, req.terms));
  // With open history, messages without a row of the viewer's count as read and historical.
  const flagsExpr = historyOpen ? sql<number>`coalesce(um.flags, ${HISTORICAL_FLAGS})` : sql<number>`um.flags`;

  let dmGroupIds = new Map<string, number | undefined>();
  for (const t of req.terms) {
    if (t.kind !== 'dm') continue;
    const ids = [...new Set([viewer.id, ...t.userIds])];
    dmGroupIds.set(t.userIds.join(','), await findDmGroup(db, viewer.realm_id, ids));
  }

  // Zulip joins the search operands into one search, which the results are highlighted for.
  const searchText = req.terms.filter((t) => t.kind === 'search' && !t.negated).map((t) => (t as { text: string }).text);
  const search = searchText.length ? parseSearch(searchText.join(' ')) : undefined;
  const ctx: ConditionContext = { flags: flagsExpr, dmGroups: dmGroupIds, viewerId: viewer.id, realmId: viewer.realm_id, dialect: services.database.dialect };

  const base = (): Query => {
    let q = (
      historyOpen
        ? db.selectFrom('messages').leftJoin('user_messages as um', (j) => j.onRef('um.message_id', '=', 'messages.id').on('um.user_id', '=', viewer.id))
        : db.selectFrom('user_messages as um').innerJoin('messages', 'messages.id', 'um.message_id').where('um.user_id', '=', viewer.id)
    ) as unknown as Query;
    q = q.where('messages.realm_id', '=', viewer.realm_id);
    if (req.messageIds) q = q.where('messages.id', 'in', req.messageIds.length ? req.messageIds : [-1]);
    for (const t of req.terms) {
      if (t.kind === 'search' && !t.negated) continue;
      const cond = condition(t, ctx);
      if (cond) q = q.where(t.kind !== 'empty' && t.negated ? sql<SqlBool>`not (${cond})` : cond);
    }
    if (search) q = q.where(searchCondition(ctx.dialect, search));
    return q;
  };

  let anchor: number;
  if (req.anchor === 'newest') anchor = LARGER_THAN_ANY_ID;
  else if (req.anchor === 'oldest') anchor = 0;
  else if (req.anchor === 'first_unread') {
    const first = await base()
      .select('messages.id')
      .where(sql<SqlBool>`(${flagsExpr} & ${FLAG_BITS.read}) = 0`)
      .where(sql<SqlBool>`not ${firstUnreadMuting(viewer.id, req.terms)}`)
      .orderBy('messages.id', 'asc')
      .limit(1)
      .executeTakeFirst();
    anchor = first ? Number(first.id) : LARGER_THAN_ANY_ID;
  } else if (typeof req.anchor === 'object') {
    // The organization's first message since then (messages_realm_date), then the narrow's first from there.
    const since = await db
      .selectFrom('messages')
      .select((eb) => eb.fn.min('id').as('id'))
      .where('realm_id', '=', viewer.realm_id)
      .where('date_sent', '>=', req.anchor.date)
      .executeTakeFirst();
    const first = since?.id == null ? undefined : await base().select('messages.id').where('messages.id', '>=', Number(since.id)).where('messages.date_sent', '>=', req.anchor.date).orderBy('messages.id', 'asc').limit(1).executeTakeFirst();
    anchor = first ? Number(first.id) : LARGER_THAN_ANY_ID;
  } else anchor = req.anchor;

  const columns = (q: Query) => q.selectAll('messages').select(flagsExpr.as('viewer_flags'));
  const [before, at, after] = await Promise.all([
    req.numBefore > 0
      ? columns(base()).where('messages.id', '<', anchor).orderBy('messages.id', 'desc').limit(req.numBefore).execute()
      : Promise.resolve([]),
    req.includeAnchor && anchor > 0 && anchor < LARGER_THAN_ANY_ID ? columns(base()).where('messages.id', '=', anchor).execute() : Promise.resolve([]),
    req.numAfter > 0 ? columns(base()).where('messages.id', '>', anchor).orderBy('messages.id', 'asc').limit(req.numAfter).execute() : Promise.resolve([]),
  ]);
  const toRow = (r: Record<string, unknown>) => ({ ...messageFromRow(r), flags: Number(r.viewer_flags) });
  const rows = [...before.reverse().map(toRow), ...at.map(toRow), ...after.map(toRow)];
  return {
    rows,
    anchor: req.anchor === 'newest' ? LARGER_THAN_ANY_ID_API : anchor === LARGER_THAN_ANY_ID ? LARGER_THAN_ANY_ID_API : anchor,
    found_anchor: at.length > 0,
    found_oldest: req.anchor === 'oldest' || before.length < req.numBefore,
    found_newest: anchor === LARGER_THAN_ANY_ID || after.length < req.numAfter,
    history_limited: false,
    search,
  };
}

/** Zulip reports the "newest" anchor as this sentinel. */
const LARGER_THAN_ANY_ID_API = 10000000000000000;

interface ConditionContext {
  flags: Expression<number>;
  dmGroups: Map<string, number | undefined>;
  viewerId: number;
  realmId: number;
  dialect: DialectName;
}

/** The viewer's visibility policy for the message's topic is one of these (user_topics_key index). */
function topicPolicyIn(viewerId: number, policies: number[]): Expression<SqlBool> {
  return sql<SqlBool>`exists (select 1 from user_topics ut where ut.user_id = ${viewerId} and ut.stream_id = messages.stream_id and lower(ut.topic_name) = lower(messages.topic) and ut.visibility_policy in (${sql.join(policies)}))`;
}

/** A channel message the viewer muted: in a muted channel (unless the topic is unmuted or followed), or in a muted topic. */
function mutedCondition(viewerId: number): Expression<SqlBool> {
  const mutedChannel = sql<SqlBool>`exists (select 1 from subscriptions s where s.user_id = ${viewerId} and s.stream_id = messages.stream_id and s.active = ${true} and s.is_muted = ${true})`;
  return sql<SqlBool>`(messages.recipient_type = 'stream' and ((${mutedChannel} and not ${topicPolicyIn(viewerId, [VISIBILITY.unmuted, VISIBILITY.followed])}) or ${topicPolicyIn(viewerId, [VISIBILITY.muted])}))`;
}

/**
 * What the first unread anchor skips, as Zulip: muted topics, and muted channels unless the
 * narrow is that channel (inside a channel, only its muted topics are skipped).
 */
function firstUnreadMuting(viewerId: number, terms: Term[]): Expression<SqlBool> {
  if (terms.some((t) => t.kind === 'channel' && !t.negated)) {
    return sql<SqlBool>`(messages.recipient_type = 'stream' and ${topicPolicyIn(viewerId, [VISIBILITY.muted])})`;
  }
  return mutedCondition(viewerId);
}

function condition(t: Term, ctx: ConditionContext): Expression<SqlBool> | null {
  const { flags, dmGroups } = ctx;
  switch (t.kind) {
    case 'channel':
      return sql<SqlBool>`messages.stream_id = ${t.stream.id}`;
    case 'topic':
      return sql<SqlBool>`(messages.recipient_type = 'stream' and lower(messages.topic) = lower(${t.topic}))`;
    case 'dm': {
      const gid = dmGroups.get(t.userIds.join(','));
      return gid === undefined ? sql<SqlBool>`1 = 0` : sql<SqlBool>`messages.dm_group_id = ${gid}`;
    }
    case 'sender':
      return sql<SqlBool>`messages.sender_id = ${t.userId}`;
    case 'id':
      return sql<SqlBool>`messages.id = ${t.id}`;
    case 'channels_public':
      return sql<SqlBool>`messages.stream_id in (select id from streams where realm_id = ${ctx.realmId} and invite_only = ${false} and history_public_to_subscribers = ${true})`;
    case 'search':
      return searchCondition(ctx.dialect, parseSearch(t.text));
    case 'has':
      // The reactions table's unique index starts with message_id: one index probe per message.
      if (t.what === 'reaction') return sql<SqlBool>`exists (select 1 from reactions r where r.message_id = messages.id)`;
      // Literal column names: the partial indexes of migration 0017 are on `has_x = true`.
      return sql<SqlBool>`${sql.ref(`messages.has_${t.what}`)} = true`;
    case 'in_home':
      return sql<SqlBool>`not ${mutedCondition(ctx.viewerId)}`;
    case 'dm_including': {
      if (t.userId === ctx.viewerId && !t.groupsOnly) return sql<SqlBool>`messages.recipient_type = 'direct'`;
      const member = `%,${t.userId},%`;
      const groups = t.groupsOnly ? sql`and length(g.user_ids_key) - length(replace(g.user_ids_key, ',', '')) >= 2` : sql``;
      return sql<SqlBool>`(messages.recipient_type = 'direct' and messages.dm_group_id in (select g.id from direct_message_groups g where g.realm_id = ${ctx.realmId} and (',' || g.user_ids_key || ',') like ${member} ${groups}))`;
    }
    case 'is':
      switch (t.what) {
        case 'starred':
          return sql<SqlBool>`(${flags} & ${FLAG_BITS.starred}) <> 0`;
        case 'unread':
          return sql<SqlBool>`(${flags} & ${FLAG_BITS.read}) = 0`;
        case 'mentioned':
          return sql<SqlBool>`(${flags} & ${FLAG_BITS.mentioned | FLAG_BITS.stream_wildcard_mentioned | FLAG_BITS.topic_wildcard_mentioned | FLAG_BITS.group_mentioned}) <> 0`;
        case 'alerted':
          return sql<SqlBool>`(${flags} & ${FLAG_BITS.has_alert_word}) <> 0`;
        case 'dm':
          return sql<SqlBool>`messages.recipient_type = 'direct'`;
        case 'resolved':
          return sql<SqlBool>`messages.topic like ${'✔ %'}`;
        case 'followed':
          return sql<SqlBool>`(messages.recipient_type = 'stream' and ${topicPolicyIn(ctx.viewerId, [VISIBILITY.followed])})`;
        case 'muted':
          return mutedCondition(ctx.viewerId);
      }
      return null;
    case 'empty':
      return null;
  }
}
