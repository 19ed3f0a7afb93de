// Default channels: the public channels every new (human) account is subscribed to.
// POST/DELETE /default_streams change the set; the default_streams event tells the non-guests.
import type { Services } from '../services.js';
import type { Realm } from '../store/realms.js';
import type { User } from '../store/users.js';
import { ROLE } from '../store/users.js';
import type { Executor } from '../store/db.js';
import { activeDefaultStreams, defaultStreamIds, getStream, isSubscribed, setDefaultStream, type Stream } from '../store/channels.js';
import { BadRequest, InvalidStreamId } from '../errors.js';
import { channelAccess } from '../access/channel_access.js';
import { requireRealmAdmin } from '../access/roles.js';
import { publishAfterCommit, type OnCommit } from '../events/publish.js';
import { FLAG_BITS, insertUserMessages, recentChannelMessageIds } from '../store/messages.js';

/**
 * The default_streams event: the set as it stands in `tx`, for the organization's active
 * non-guest users (Zulip tells only them). Adding, removing, making a channel default or not, and
 * archiving a default channel all send it.
 */
export async function publishDefaultStreams(services: Services, tx: Executor, onCommit: OnCommit, realmId: number, users: Iterable<User>): Promise<void> {
  const audience = [...users].filter((u) => u.is_active && u.role !== ROLE.guest).map((u) => u.id);
  publishAfterCommit(services, onCommit, { realmId, userIds: audience, event: { type: 'default_streams', default_streams: await defaultStreamIds(tx, realmId) } });
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
  const users = await services.cache.users(realm.id);
  await services.database.transaction(async (tx, onCommit) => {
    const before = await defaultStreamIds(tx, realm.id);
    if (before.includes(stream.id)) return;
    await setDefaultStream(tx, realm.id, stream.id, true);
    await publishDefaultStreams(services, tx, onCommit, realm.id, users.values());
  });
}

/** DELETE /default_streams: administrators remove a channel they can see from the set. */
export async function removeDefaultStream(services: Services, caller: User, realm: Realm, streamId: number): Promise<void> {
  requireRealmAdmin(caller);
  const db = services.database.db;
  const stream = await getStream(db, realm.id, streamId);
  const graph = await services.cache.groupGraph(realm.id);
  if (!stream || !channelAccess(graph, caller, stream, await isSubscribed(db, caller.id, stream.id)).metadata) throw new InvalidStreamId();
  const users = await services.cache.users(realm.id);
  await services.database.transaction(async (tx, onCommit) => {
    await setDefaultStream(tx, realm.id, stream.id, false);
    await publishDefaultStreams(services, tx, onCommit, realm.id, users.values());
  });
}

/** The organization's default channels that a new account joins (active ones), read inside `tx`. */
export async function defaultStreamsForNewUser(tx: Executor, realmId: number): Promise<Stream[]> {
  return activeDefaultStreams(tx, realmId);
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
  const ids = await recentChannelMessageIds(tx, readable, now - NEW_USER_HISTORY_SECONDS, NEW_USER_HISTORY_MESSAGES);
  if (!ids.length) return;
  const newest = new Set(ids.slice(0, NEW_USER_UNREAD_MESSAGES));
  const values = ids.map((id) => ({ user_id: userId, message_id: id, flags: FLAG_BITS.historical | (newest.has(id) ? 0 : FLAG_BITS.read) }));
  await insertUserMessages(tx, values.reverse(), true);
}
