// Channels (Zulip's streams), default channels and subscriptions.
import { placeholders, queryRows, type Executor } from './db.js';
import type { DialectName } from './dialect.js';
import type { Row, StreamTable, SubscriptionTable } from './schema.js';
import { STREAM_GROUP_SETTINGS } from './migrations.js';
import { sql, type RawBuilder } from 'kysely';

/**
 * A name lower-cased by the database itself, as the unique index on lower(name) does: SQLite's
 * lower() folds only ASCII, PostgreSQL's follows its locale, and JavaScript's toLowerCase matches
 * neither exactly. Comparing both sides in SQL keeps lookups and the index in agreement.
 */
function dbLower(name: string): RawBuilder<string> {
  return sql<string>`lower(cast(${name} as text))`;
}

export type StreamGroupSetting = (typeof STREAM_GROUP_SETTINGS)[number];
export { STREAM_GROUP_SETTINGS };

export type Stream = Row<StreamTable>;

function streamFromRow(r: Record<string, any>): Stream {
  return {
    ...(r as Stream),
    date_created: Number(r.date_created),
    invite_only: !!r.invite_only,
    is_web_public: !!r.is_web_public,
    history_public_to_subscribers: !!r.history_public_to_subscribers,
    is_archived: !!r.is_archived,
  };
}

export type NewStream = Omit<Stream, 'id' | 'first_message_id'>;

export const RECIPIENT_STREAM = 2;
export const RECIPIENT_DIRECT_GROUP = 3;

/** Inserts the channel and its recipient row (the recipient_id its messages carry). */
export async function insertStream(db: Executor, s: NewStream): Promise<number> {
  const row = await db.insertInto('streams').values({ ...s, first_message_id: null }).returning('id').executeTakeFirstOrThrow();
  await db.insertInto('recipients').values({ realm_id: s.realm_id, type: RECIPIENT_STREAM, type_id: row.id }).execute();
  return row.id;
}

/** Recipient ids of channels, by channel id. */
export async function streamRecipientIds(db: Executor, streamIds: readonly number[]): Promise<Map<number, number>> {
  if (streamIds.length === 0) return new Map();
  // Written as SQL: every channel message runs it (on SQLite straight to the connection).
  const rows = await queryRows<{ id: number; type_id: number }>(db, `select id, type_id from recipients where type = ? and type_id in (${placeholders(streamIds.length)})`, [RECIPIENT_STREAM, ...streamIds]);
  return new Map(rows.map((r) => [r.type_id, r.id]));
}

export async function getStream(db: Executor, realmId: number, id: number): Promise<Stream | undefined> {
  // Every message sent by channel id runs it: on SQLite straight to the connection.
  const [row] = await queryRows<Record<string, unknown>>(db, 'select * from streams where realm_id = ? and id = ?', [realmId, id]);
  return row ? streamFromRow(row) : undefined;
}

export async function getStreamByName(db: Executor, realmId: number, name: string): Promise<Stream | undefined> {
  // Written as SQL: every message sent by channel name runs it (the query builder costs more than
  // the query); on SQLite straight to the connection, the same text the template makes.
  // The name lower-cased by the database, as dbLower does.
  const rows = await queryRows<Record<string, unknown>>(db, 'select * from streams where realm_id = ? and lower(name) = lower(cast(? as text))', [realmId, name]);
  return rows[0] ? streamFromRow(rows[0]) : undefined;
}

/** A channel with whether this user is subscribed to it: what an access check needs. */
export interface ViewedStream {
  stream: Stream;
  subscribed: boolean;
}

/**
 * The channel (by id or by name) and the viewer's subscription in one statement: a GET /messages
 * narrow resolves its channel on every call, and each statement is a round trip on PostgreSQL.
 */
export async function getStreamForViewer(db: Executor, realmId: number, viewerId: number, key: { id: number } | { name: string }): Promise<ViewedStream | undefined> {
  const match = 'id' in key ? sql`s.id = ${key.id}` : sql`lower(s.name) = ${dbLower(key.name)}`;
  const { rows } = await sql<Record<string, unknown>>`select s.*, exists (select 1 from subscriptions sub where sub.user_id = ${viewerId} and sub.stream_id = s.id and sub.active = ${true}) as viewer_subscribed
    from streams s where s.realm_id = ${realmId} and ${match}`.execute(db);
  if (!rows[0]) return undefined;
  const { viewer_subscribed, ...row } = rows[0];
  return { stream: streamFromRow(row), subscribed: !!viewer_subscribed };
}

export async function getStreamsByIds(db: Executor, realmId: number, ids: readonly number[]): Promise<Stream[]> {
  if (ids.length === 0) return [];
  const rows = await db.selectFrom('streams').selectAll().where('realm_id', '=', realmId).where('id', 'in', ids).execute();
  return rows.map(streamFromRow);
}

export async function listRealmStreams(db: Executor, realmId: number): Promise<Stream[]> {
  const rows = await db.selectFrom('streams').selectAll().where('realm_id', '=', realmId).orderBy('id').execute();
  return rows.map(streamFromRow);
}

/**
 * The channel's name as last committed, its row locked until the transaction ends (PostgreSQL;
 * SQLite's writer holds the database's one write lock already).
 */
export async function lockedStreamName(tx: Executor, dialect: DialectName, id: number): Promise<string | undefined> {
  const query = tx.selectFrom('streams').select('name').where('id', '=', id);
  const row = await (dialect === 'postgres' ? query.forUpdate() : query).executeTakeFirst();
  return row?.name;
}

export async function updateStream(db: Executor, id: number, fields: Partial<Omit<Stream, 'id' | 'realm_id'>>): Promise<void> {
  if (Object.keys(fields).length === 0) return;
  await db.updateTable('streams').set(fields).where('id', '=', id).execute();
}

export async function defaultStreamIds(db: Executor, realmId: number): Promise<number[]> {
  const rows = await db.selectFrom('default_streams').select('stream_id').where('realm_id', '=', realmId).orderBy('stream_id').execute();
  return rows.map((r) => r.stream_id);
}

export async function setDefaultStream(db: Executor, realmId: number, streamId: number, isDefault: boolean): Promise<void> {
  if (isDefault) {
    const exists = await db.selectFrom('default_streams').select('stream_id').where('realm_id', '=', realmId).where('stream_id', '=', streamId).executeTakeFirst();
    if (!exists) await db.insertInto('default_streams').values({ realm_id: realmId, stream_id: streamId }).execute();
  } else {
    await db.deleteFrom('default_streams').where('realm_id', '=', realmId).where('stream_id', '=', streamId).execute();
  }
}

// ---- subscriptions ----

export type Subscription = Row<SubscriptionTable>;

const nullableBool = (v: unknown) => (v === null || v === undefined ? null : !!v);

function subscriptionFromRow(r: Record<string, any>): Subscription {
  return {
    ...(r as Subscription),
    active: !!r.active,
    is_muted: !!r.is_muted,
    pin_to_top: !!r.pin_to_top,
    desktop_notifications: nullableBool(r.desktop_notifications),
    audible_notifications: nullableBool(r.audible_notifications),
    push_notifications: nullableBool(r.push_notifications),
    email_notifications: nullableBool(r.email_notifications),
    wildcard_mentions_notify: nullableBool(r.wildcard_mentions_notify),
  };
}

/** The user's subscription rows (active or not) for the given channels, by channel id. */
export async function subscriptionsOf(db: Executor, userId: number, streamIds?: readonly number[]): Promise<Map<number, Subscription>> {
  let q = db.selectFrom('subscriptions').selectAll().where('user_id', '=', userId);
  if (streamIds) {
    if (streamIds.length === 0) return new Map();
    q = q.where('stream_id', 'in', streamIds);
  }
  const rows = await q.execute();
  return new Map(rows.map((r) => [r.stream_id, subscriptionFromRow(r)]));
}

/** User ids of the active subscribers of one channel. */
export async function subscriberIds(db: Executor, streamId: number): Promise<number[]> {
  // Written as SQL: every channel message runs it (on SQLite straight to the connection).
  const rows = await queryRows<{ user_id: number }>(db, 'select user_id from subscriptions where stream_id = ? and active = ? order by user_id', [streamId, true]);
  return rows.map((r) => r.user_id);
}

/** Active subscriber ids of many channels at once, by channel id (no query per channel). */
export async function subscriberIdsByStream(db: Executor, streamIds: readonly number[]): Promise<Map<number, number[]>> {
  const out = new Map<number, number[]>(streamIds.map((id) => [id, []]));
  if (streamIds.length === 0) return out;
  const rows = await db
    .selectFrom('subscriptions')
    .select(['stream_id', 'user_id'])
    .where('stream_id', 'in', streamIds)
    .where('active', '=', true)
    .orderBy('user_id')
    .execute();
  for (const r of rows) out.get(r.stream_id)?.push(r.user_id);
  return out;
}

export async function isSubscribed(db: Executor, userId: number, streamId: number): Promise<boolean> {
  const row = await db
    .selectFrom('subscriptions')
    .select('id')
    .where('user_id', '=', userId)
    .where('stream_id', '=', streamId)
    .where('active', '=', true)
    .executeTakeFirst();
  return !!row;
}

/** Subscribes (or re-activates) each user to the channel; returns the user ids newly subscribed. */
export async function upsertSubscriptions(
  db: Executor,
  realmId: number,
  streamId: number,
  userIds: readonly number[],
  colorFor: (userId: number) => string,
): Promise<number[]> {
  if (userIds.length === 0) return [];
  const existing = await db.selectFrom('subscriptions').select(['user_id', 'active']).where('stream_id', '=', streamId).where('user_id', 'in', userIds).execute();
  const byUser = new Map(existing.map((r) => [r.user_id, !!r.active]));
  const reactivate = userIds.filter((u) => byUser.get(u) === false);
  const fresh = userIds.filter((u) => !byUser.has(u));
  if (reactivate.length)
    await db.updateTable('subscriptions').set({ active: true }).where('stream_id', '=', streamId).where('user_id', 'in', reactivate).execute();
  for (let i = 0; i < fresh.length; i += SUBSCRIPTIONS_PER_INSERT)
    await db
      .insertInto('subscriptions')
      .values(fresh.slice(i, i + SUBSCRIPTIONS_PER_INSERT).map((user_id) => ({ realm_id: realmId, user_id, stream_id: streamId, active: true, color: colorFor(user_id), is_muted: false, pin_to_top: false })))
      .execute();
  return [...reactivate, ...fresh];
}

export async function deactivateSubscriptions(db: Executor, streamId: number, userIds: readonly number[]): Promise<void> {
  if (userIds.length === 0) return;
  await db.updateTable('subscriptions').set({ active: false }).where('stream_id', '=', streamId).where('user_id', 'in', userIds).execute();
}

/** Every subscription row (active or not) of a user, with the channel ids, for /register. */
export async function allSubscriptionsOf(db: Executor, userId: number): Promise<Subscription[]> {
  const rows = await db.selectFrom('subscriptions').selectAll().where('user_id', '=', userId).orderBy('stream_id').execute();
  return rows.map(subscriptionFromRow);
}

// ---- batched reads and writes for subscribing many users to many channels ----

/**
 * Channels of the organization with any of these names, compared case-insensitively the way the
 * database's unique index compares them. `keys[i]` is the comparison key of `names[i]`, and
 * `byKey` holds the channels found under their keys. Two queries, however many names.
 */
export async function getStreamsByNames(
  db: Executor,
  realmId: number,
  names: readonly string[],
): Promise<{ keys: string[]; byKey: Map<string, Stream> }> {
  const byKey = new Map<string, Stream>();
  if (names.length === 0) return { keys: [], byKey };
  const keyRow = await sql<Record<string, string>>`select ${sql.join(names.map((n, i) => sql`${dbLower(n)} as ${sql.ref(`k${i}`)}`))}`.execute(db);
  const keys = names.map((_, i) => String(keyRow.rows[0]![`k${i}`]));
  const rows = await db
    .selectFrom('streams')
    .selectAll()
    .select((eb) => eb.fn<string>('lower', ['name']).as('name_key'))
    .where('realm_id', '=', realmId)
    .where((eb) => eb(eb.fn('lower', ['name']), 'in', [...new Set(keys)]))
    .execute();
  for (const r of rows) {
    const { name_key, ...stream } = r;
    byKey.set(name_key, streamFromRow(stream));
  }
  return { keys, byKey };
}

/** The colors each user already uses for their channels (active or not), to pick unused ones. */
export async function usedColorsByUser(db: Executor, userIds: readonly number[]): Promise<Map<number, Set<string>>> {
  const out = new Map<number, Set<string>>(userIds.map((id) => [id, new Set()]));
  if (userIds.length === 0) return out;
  const rows = await db.selectFrom('subscriptions').select(['user_id', 'color']).where('user_id', 'in', userIds).execute();
  for (const r of rows) out.get(r.user_id)?.add(r.color);
  return out;
}

/** Subscription rows of these users to these channels, active or not. */
export async function subscriptionRows(db: Executor, userIds: readonly number[], streamIds: readonly number[]): Promise<Subscription[]> {
  if (userIds.length === 0 || streamIds.length === 0) return [];
  const rows = await db.selectFrom('subscriptions').selectAll().where('stream_id', 'in', streamIds).where('user_id', 'in', userIds).execute();
  return rows.map(subscriptionFromRow);
}

/** Subscription rows per insert: seven values a row stays under SQLite's 32,766 bound parameters. */
const SUBSCRIPTIONS_PER_INSERT = 4000;

/**
 * Creates the given subscriptions and re-activates the given inactive ones: one statement each,
 * or a few for very many rows (5,000 users into one channel used to fail with "too many SQL variables").
 */
export async function addSubscriptionRows(
  db: Executor,
  realmId: number,
  fresh: ReadonlyArray<{ userId: number; streamId: number; color: string }>,
  reactivateIds: readonly number[],
): Promise<void> {
  for (let i = 0; i < reactivateIds.length; i += 30_000)
    await db.updateTable('subscriptions').set({ active: true }).where('id', 'in', reactivateIds.slice(i, i + 30_000)).execute();
  for (let i = 0; i < fresh.length; i += SUBSCRIPTIONS_PER_INSERT) {
    await db
      .insertInto('subscriptions')
      .values(fresh.slice(i, i + SUBSCRIPTIONS_PER_INSERT).map((f) => ({ realm_id: realmId, user_id: f.userId, stream_id: f.streamId, active: true, color: f.color, is_muted: false, pin_to_top: false })))
      .execute();
  }
}

/** Active subscribers of many channels who are active users, by channel id (Zulip counts only those). */
export async function activeUserSubscriberIds(db: Executor, streamIds: readonly number[]): Promise<Map<number, number[]>> {
  const out = new Map<number, number[]>(streamIds.map((id) => [id, []]));
  if (streamIds.length === 0) return out;
  // One row per channel with its ids as text, not one row per subscription: at 1,000 channels of
  // 50 members the 50,000 rows cost ~20 ms more to send and decode on PostgreSQL than the
  // aggregate (and the garbage of 50,000 row objects); string_agg is in both databases (SQLite
  // since 3.44).
  const rows = await db
    .selectFrom('subscriptions')
    .innerJoin('users', 'users.id', 'subscriptions.user_id')
    .select(['subscriptions.stream_id as stream_id', sql<string>`string_agg(cast(subscriptions.user_id as text), ',')`.as('user_ids')])
    .where('subscriptions.stream_id', 'in', streamIds)
    .where('subscriptions.active', '=', true)
    .where('users.is_active', '=', true)
    .groupBy('subscriptions.stream_id')
    .execute();
  // JSON.parse reads "3,17,42" as numbers natively, without an intermediate string per id.
  for (const r of rows) if (out.has(Number(r.stream_id))) out.set(Number(r.stream_id), JSON.parse(`[${r.user_ids}]`) as number[]);
  // Each list sorted here rather than in SQL: at 1,000 channels of 50 members one big sort of all
  // rows spilled to disk on PostgreSQL (~40 of /register's ~110 ms), and string_agg's own ORDER BY
  // took ~10 ms more than these thousand sorts of fifty numbers.
  for (const ids of out.values()) ids.sort((a, b) => a - b);
  return out;
}

/** Counts of active subscribers who are active users, by channel id. */
export async function activeUserSubscriberCounts(db: Executor, streamIds: readonly number[]): Promise<Map<number, number>> {
  const out = new Map<number, number>(streamIds.map((id) => [id, 0]));
  if (streamIds.length === 0) return out;
  const rows = await db
    .selectFrom('subscriptions')
    .innerJoin('users', 'users.id', 'subscriptions.user_id')
    .select((eb) => ['subscriptions.stream_id as stream_id', eb.fn.countAll<number>().as('n')])
    .where('subscriptions.stream_id', 'in', streamIds)
    .where('subscriptions.active', '=', true)
    .where('users.is_active', '=', true)
    .groupBy('subscriptions.stream_id')
    .execute();
  for (const r of rows) out.set(r.stream_id, Number(r.n));
  return out;
}

/** The organization's unarchived channels with a group setting among `groupIds`, and which settings. */
export async function channelsUsingGroups(db: Executor, realmId: number, groupIds: readonly number[]): Promise<Array<{ channel_id: number; settings: StreamGroupSetting[] }>> {
  if (groupIds.length === 0) return [];
  const rows = await db
    .selectFrom('streams')
    .select(['id', ...STREAM_GROUP_SETTINGS])
    .where('realm_id', '=', realmId)
    .where('is_archived', '=', false)
    .where((eb) => eb.or(STREAM_GROUP_SETTINGS.map((k) => eb(k, 'in', groupIds))))
    .orderBy('id')
    .execute();
  const wanted = new Set(groupIds);
  return rows.map((r) => ({ channel_id: r.id, settings: STREAM_GROUP_SETTINGS.filter((k) => wanted.has((r as Record<string, unknown>)[k] as number)) }));
}

/** Whether any message in the channel has a topic other than the empty ("general chat") one. */
export async function channelHasNamedTopic(db: Executor, streamId: number): Promise<boolean> {
  const row = await db.selectFrom('messages').select('id').where('stream_id', '=', streamId).where(sql<boolean>`topic <> ''`).limit(1).executeTakeFirst();
  return row !== undefined;
}

/** Each of the organization's channels with its own retention setting (null: the organization's). */
export async function channelRetentionDays(db: Executor, realmId: number): Promise<Array<{ id: number; message_retention_days: number | null }>> {
  const rows = await db.selectFrom('streams').select(['id', 'message_retention_days']).where('realm_id', '=', realmId).execute();
  return rows.map((r) => ({ id: r.id, message_retention_days: r.message_retention_days === null ? null : Number(r.message_retention_days) }));
}

/** The channels' first_message_id as stored now, by channel id. */
export async function firstMessageIds(db: Executor, streamIds: readonly number[]): Promise<Map<number, number | null>> {
  if (streamIds.length === 0) return new Map();
  const rows = await db.selectFrom('streams').select(['id', 'first_message_id']).where('id', 'in', streamIds).execute();
  return new Map(rows.map((r) => [r.id, r.first_message_id === null ? null : Number(r.first_message_id)]));
}

/** The organization's active default channels (those a new account joins), by id. */
export async function activeDefaultStreams(db: Executor, realmId: number): Promise<Stream[]> {
  const rows = await db
    .selectFrom('default_streams')
    .innerJoin('streams', 'streams.id', 'default_streams.stream_id')
    .selectAll('streams')
    .where('default_streams.realm_id', '=', realmId)
    .where('streams.is_archived', '=', false)
    .orderBy('streams.id')
    .execute();
  return rows.map(streamFromRow);
}

/** Sets one per-user property column of a subscription. */
export async function setSubscriptionColumn(db: Executor, userId: number, streamId: number, column: string, value: unknown): Promise<void> {
  await db.updateTable('subscriptions').set({ [column]: value }).where('user_id', '=', userId).where('stream_id', '=', streamId).execute();
}

/** The sender's email-gateway token for the channel, if one was made. */
export async function channelEmailToken(db: Executor, streamId: number, senderId: number): Promise<string | undefined> {
  return (await db.selectFrom('channel_email_tokens').select('token').where('stream_id', '=', streamId).where('sender_id', '=', senderId).executeTakeFirst())?.token;
}

/** Stores a sender's token for a channel; a second for the same pair fails with a UniqueConflict. */
export async function insertChannelEmailToken(db: Executor, t: { realm_id: number; stream_id: number; sender_id: number; creator_id: number; token: string }): Promise<void> {
  await db.insertInto('channel_email_tokens').values(t).execute();
}
