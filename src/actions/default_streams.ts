// Default channels: the public channels every new (human) account is subscribed to.
// POST/DELETE /default_streams change the set; the default_streams event tells the non-guests.
import type { Services } from '../services.js';
import type { Realm } from '../store/realms.js';
import type { User } from '../store/users.js';
import { ROLE } from '../store/users.js';
import type { Executor } from '../store/db.js';
import { defaultStreamIds, getStream, isSubscribed, setDefaultStream, streamFromRow, type Stream } from '../store/channels.js';
import { BadRequest, InvalidStreamId } from '../errors.js';
import { channelAccess } from '../access/channel_access.js';
import { requireRealmAdmin } from '../access/roles.js';
import { publishAfterCommit, type OnCommit } from '../events/publish.js';
import { FLAG_BITS, insertUserMessages } from '../store/messages.js';

/** Zulip tells the organization's active non-guest users about the set. */
async function nonGuestAudience(services: Services, realmId: number): Promise<number[]> {
  const users = await services.cache.users(realmId);
  return [...users.values()].filter((u) => u.is_active && u.role !== ROLE.guest).map((u) => u.id);
}

function publishDefaults(services: Services, onCommit: OnCommit, realmId: number, audience: number[], ids: number[]): void {
  publishAfterCommit(services, onCommit, { realmId, userIds: audience, event: { type: 'default_streams', default_streams: ids } });
}

/** POST /default_streams: administrators add a public channel they can read. */
export async function addDefaultStream(services: Services, caller: User, realm: Realm, streamId: number): Promise<void> {
  requireRealmAdmin(caller);
  const db = services.database.db;
  const stream = await getStream(db, realm.id, streamId);
  const graph = await services.cache.groupGraph(realm.id);
  // Adding needs content access, like Zulip's access_stream_by_id: an unreadable channel is unknown.
  if (!stream || stream.is_archived || !channelAccess(graph, caller, stream, await isSubscribed(db, caller.id, stream.id)).content) {
    throw new InvalidStreamId();
  }
  if (stream.invite_only) throw new BadRequest('Private channels cannot be made default.');
  const audience = await nonGuestAudience(services, realm.id);
  await services.database.transaction(async (tx, onCommit) => {
    const before = await defaultStreamIds(tx, realm.id);
    if (before.includes(stream.id)) return;
    await setDefaultStream(tx, realm.id, stream.id, true);
    publishDefaults(services, onCommit, realm.id, audience, await defaultStreamIds(tx, realm.id));
  });
}

/** DELETE /default_streams: administrators remove a channel they can see from the set. */
export async function removeDefaultStream(services: Services, caller: User, realm: Realm, streamId: number): Promise<void> {
  requireRealmAdmin(caller);
  const db = services.database.db;
  const stream = await getStream(db, realm.id, streamId);
  const graph = await services.cache.groupGraph(realm.id);
  if (!stream || !channelAccess(graph, caller, stream, await isSubscribed(db, caller.id, stream.id)).metadata) throw new InvalidStreamId();
  const audience = await nonGuestAudience(services, realm.id);
  await services.database.transaction(async (tx, onCommit) => {
    await setDefaultStream(tx, realm.id, stream.id, false);
    publishDefaults(services, onCommit, realm.id, audience, await defaultStreamIds(tx, realm.id));
  });
}

/** The organization's default channels that a new account joins (active ones), read inside `tx`. */
export async function defaultStreamsForNewUser(tx: Executor, realmId: number): Promise<Stream[]> {
  const rows = await tx
    .selectFrom('default_streams')
    .innerJoin('streams', 'streams.id', 'default_streams.stream_id')
    .selectAll('streams')
    .where('default_streams.realm_id', '=', realmId)
    .where('streams.is_archived', '=', false)
    .orderBy('streams.id')
    .execute();
  return rows.map(streamFromRow);
}

/** Zulip's new-user history: at most this many recent messages, from the last twelve weeks... */
const NEW_USER_HISTORY_MESSAGES = 1000;
const NEW_USER_HISTORY_SECONDS = 12 * 7 * 86400;
/** ...of which only the newest stay unread. */
const NEW_USER_UNREAD_MESSAGES = 20;

/**
 * A new account's first view of its default channels, as Zulip gives it: the recent messages of
 * those whose history subscribers may read, flagged historical, all but the newest few read.
 */
export async function addNewUserHistory(tx: Executor, userId: number, streams: readonly Stream[], now: number): Promise<void> {
  const readable = streams.filter((s) => s.history_public_to_subscribers).map((s) => s.id);
  if (!readable.length) return;
  const rows = await tx
    .selectFrom('messages')
    .select('id')
    .where('stream_id', 'in', readable)
    .where('date_sent', '>', now - NEW_USER_HISTORY_SECONDS)
    .orderBy('id', 'desc')
    .limit(NEW_USER_HISTORY_MESSAGES)
    .execute();
  if (!rows.length) return;
  const newest = new Set(rows.slice(0, NEW_USER_UNREAD_MESSAGES).map((r) => r.id));
  const values = rows.map((r) => ({ user_id: userId, message_id: r.id, flags: FLAG_BITS.historical | (newest.has(r.id) ? 0 : FLAG_BITS.read) }));
  await insertUserMessages(tx, values.reverse(), true);
}
