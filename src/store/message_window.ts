// The SQL of GET /messages: the messages a viewer reads within a narrow, around an anchor, with the
// viewer's flags. queries/messages.ts decides what to ask (the anchor, whether channel history is
// open, the narrow's terms resolved to ids); this file says it in SQL. A viewer reads their own
// user_messages rows; with `withHistory` also the messages without a row of theirs (a channel whose
// history is open to them), flagged read+historical.
import { sql, type Expression, type RawBuilder, type SqlBool, type SelectQueryBuilder } from 'kysely';
import type { Executor } from './db.js';
import type { DB } from './schema.js';
import type { DialectName } from './dialect.js';
import { FLAG_BITS, messageFromRow, type MessageRow } from './messages.js';
import { VISIBILITY } from './user_topics.js';
import { searchCondition, type SearchQuery } from './message_search.js';

/** Flags of a message the viewer reads through channel history without a row of their own. */
export const HISTORICAL_FLAGS = FLAG_BITS.read | FLAG_BITS.historical;

export type IsOperand = 'starred' | 'mentioned' | 'unread' | 'dm' | 'alerted' | 'resolved' | 'followed' | 'muted';
export type HasOperand = 'link' | 'image' | 'attachment' | 'reaction';

/** One condition of a narrow, with names resolved to ids; `negated` matches the messages it does not. */
export type MessageFilter =
  | { kind: 'channel'; streamId: number; negated: boolean }
  | { kind: 'topic'; topic: string; negated: boolean }
  /** A direct-message conversation: its group, or undefined when it has none (nothing matches). */
  | { kind: 'dm_group'; groupId: number | undefined; negated: boolean }
  | { kind: 'dm_including'; userId: number; groupsOnly: boolean; negated: boolean }
  | { kind: 'sender'; userId: number; negated: boolean }
  | { kind: 'is'; what: IsOperand; negated: boolean }
  | { kind: 'has'; what: HasOperand; negated: boolean }
  | { kind: 'in_home'; negated: boolean }
  | { kind: 'id'; id: number; negated: boolean }
  | { kind: 'channels_public'; negated: boolean }
  | { kind: 'channels_web_public'; negated: boolean }
  | { kind: 'search'; query: SearchQuery; negated: boolean };

/** Which messages a window reads: the viewer's, in their organization, matching every filter. */
export interface MessageScope {
  dialect: DialectName;
  viewerId: number;
  realmId: number;
  /** Also the messages the viewer has no row for (open channel history). */
  withHistory: boolean;
  /** Only these messages. */
  messageIds?: number[];
  filters: MessageFilter[];
  /** The narrow's (non-negated) search, all its operands joined. */
  search?: SearchQuery;
}

export type WindowRow = MessageRow & { flags: number };

type Query = SelectQueryBuilder<DB & { um: DB['user_messages'] }, 'messages' | 'um', Record<string, unknown>>;

/** The viewer's flags: their row's, else (with history) read+historical. */
function flagsOf(scope: MessageScope): RawBuilder<number> {
  return scope.withHistory ? sql<number>`coalesce(um.flags, ${HISTORICAL_FLAGS})` : sql<number>`um.flags`;
}

function scoped(db: Executor, scope: MessageScope): Query {
  const flags = flagsOf(scope);
  let q = (
    scope.withHistory
      ? db.selectFrom('messages').leftJoin('user_messages as um', (j) => j.onRef('um.message_id', '=', 'messages.id').on('um.user_id', '=', scope.viewerId))
      : db.selectFrom('user_messages as um').innerJoin('messages', 'messages.id', 'um.message_id').where('um.user_id', '=', scope.viewerId)
  ) as unknown as Query;
  q = q.where('messages.realm_id', '=', scope.realmId);
  if (scope.messageIds) q = q.where('messages.id', 'in', scope.messageIds.length ? scope.messageIds : [-1]);
  for (const f of scope.filters) {
    const cond = condition(f, scope, flags);
    if (cond) q = q.where(f.negated ? sql<SqlBool>`not (${cond})` : cond);
  }
  if (scope.search) q = q.where(searchCondition(scope.dialect, scope.search));
  return q;
}

/**
 * The first unread message in scope, skipping what the viewer muted: muted topics, and (with
 * `skipMutedChannels`) messages of muted channels unless their topic is unmuted or followed.
 */
export async function firstUnreadMessageId(db: Executor, scope: MessageScope, skipMutedChannels: boolean): Promise<number | undefined> {
  const muted = skipMutedChannels ? mutedCondition(scope.viewerId) : sql<SqlBool>`(messages.recipient_type = 'stream' and ${topicPolicyIn(scope.viewerId, [VISIBILITY.muted])})`;
  const first = await scoped(db, scope)
    .select('messages.id')
    .where(sql<SqlBool>`(${flagsOf(scope)} & ${FLAG_BITS.read}) = 0`)
    .where(sql<SqlBool>`not ${muted}`)
    .orderBy('messages.id', 'asc')
    .limit(1)
    .executeTakeFirst();
  return first ? Number(first.id) : undefined;
}

/** The organization's first message sent at or after this Unix time (index messages_realm_date). */
export async function firstRealmMessageIdSince(db: Executor, realmId: number, date: number): Promise<number | undefined> {
  const since = await db
    .selectFrom('messages')
    .select((eb) => eb.fn.min('id').as('id'))
    .where('realm_id', '=', realmId)
    .where('date_sent', '>=', date)
    .executeTakeFirst();
  return since?.id == null ? undefined : Number(since.id);
}

/** The first message in scope from fromId on that was sent at or after this Unix time. */
export async function firstMessageIdSince(db: Executor, scope: MessageScope, fromId: number, date: number): Promise<number | undefined> {
  const first = await scoped(db, scope).select('messages.id').where('messages.id', '>=', fromId).where('messages.date_sent', '>=', date).orderBy('messages.id', 'asc').limit(1).executeTakeFirst();
  return first ? Number(first.id) : undefined;
}

function withColumns(q: Query, scope: MessageScope) {
  return q.selectAll('messages').select(flagsOf(scope).as('viewer_flags'));
}

function toRow(r: Record<string, unknown>): WindowRow {
  return { ...messageFromRow(r), flags: Number(r.viewer_flags) };
}

/** The last `limit` messages in scope before the anchor id, oldest first. */
export async function messagesBefore(db: Executor, scope: MessageScope, anchor: number, limit: number): Promise<WindowRow[]> {
  const rows = await withColumns(scoped(db, scope), scope).where('messages.id', '<', anchor).orderBy('messages.id', 'desc').limit(limit).execute();
  return rows.reverse().map(toRow);
}

/** The message of this id, if it is in scope. */
export async function messageAt(db: Executor, scope: MessageScope, id: number): Promise<WindowRow | undefined> {
  const rows = await withColumns(scoped(db, scope), scope).where('messages.id', '=', id).execute();
  return rows.length ? toRow(rows[0]!) : undefined;
}

/** The first `limit` messages in scope after the anchor id, oldest first. */
export async function messagesAfter(db: Executor, scope: MessageScope, anchor: number, limit: number): Promise<WindowRow[]> {
  const rows = await withColumns(scoped(db, scope), scope).where('messages.id', '>', anchor).orderBy('messages.id', 'asc').limit(limit).execute();
  return rows.map(toRow);
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

function condition(f: MessageFilter, scope: MessageScope, flags: Expression<number>): Expression<SqlBool> | null {
  switch (f.kind) {
    case 'channel':
      return sql<SqlBool>`messages.stream_id = ${f.streamId}`;
    case 'topic':
      return sql<SqlBool>`(messages.recipient_type = 'stream' and lower(messages.topic) = lower(${f.topic}))`;
    case 'dm_group':
      return f.groupId === undefined ? sql<SqlBool>`1 = 0` : sql<SqlBool>`messages.dm_group_id = ${f.groupId}`;
    case 'sender':
      return sql<SqlBool>`messages.sender_id = ${f.userId}`;
    case 'id':
      return sql<SqlBool>`messages.id = ${f.id}`;
    case 'channels_public':
      return sql<SqlBool>`messages.stream_id in (select id from streams where realm_id = ${scope.realmId} and invite_only = ${false} and history_public_to_subscribers = ${true})`;
    case 'channels_web_public':
      return sql<SqlBool>`messages.stream_id in (select id from streams where realm_id = ${scope.realmId} and is_web_public = ${true} and invite_only = ${false} and history_public_to_subscribers = ${true})`;
    case 'search':
      return searchCondition(scope.dialect, f.query);
    case 'has':
      // The reactions table's unique index starts with message_id: one index probe per message.
      if (f.what === 'reaction') return sql<SqlBool>`exists (select 1 from reactions r where r.message_id = messages.id)`;
      // Literal column names: the partial indexes of migration 0017 are on `has_x = true`.
      return sql<SqlBool>`${sql.ref(`messages.has_${f.what}`)} = true`;
    case 'in_home':
      return sql<SqlBool>`not ${mutedCondition(scope.viewerId)}`;
    case 'dm_including': {
      if (f.userId === scope.viewerId && !f.groupsOnly) return sql<SqlBool>`messages.recipient_type = 'direct'`;
      const member = `%,${f.userId},%`;
      const groups = f.groupsOnly ? sql`and length(g.user_ids_key) - length(replace(g.user_ids_key, ',', '')) >= 2` : sql``;
      return sql<SqlBool>`(messages.recipient_type = 'direct' and messages.dm_group_id in (select g.id from direct_message_groups g where g.realm_id = ${scope.realmId} and (',' || g.user_ids_key || ',') like ${member} ${groups}))`;
    }
    case 'is':
      switch (f.what) {
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
          return sql<SqlBool>`(messages.recipient_type = 'stream' and ${topicPolicyIn(scope.viewerId, [VISIBILITY.followed])})`;
        case 'muted':
          return mutedCondition(scope.viewerId);
      }
      return null;
  }
}
