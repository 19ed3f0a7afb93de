// State a test needs that no API request can make. Tests set up what they need through the API,
// as a client would; the exceptions are these, each named for what it does and saying why the
// API cannot do it. Every one writes in a transaction of the server's own database, and drops a
// cache it makes stale after the commit through the server's own invalidation (which other
// processes hear about too). Anything else a test wants to change belongs in a request.
import type { TestServer } from './helpers.js';
import { insertUserMessages } from '../src/store/messages.js';
import { streamRecipientIds } from '../src/store/channels.js';
import { insertRealmExport, updateRealmExport } from '../src/store/realm_exports.js';

const now = () => Math.floor(Date.now() / 1000);

// ---- Moving time: the server stamps rows with the time of the request that makes them. ----

/** Sets when a message was sent (the API stamps a message with the moment it is sent). */
export async function setMessageDate(t: TestServer, messageId: number, timestamp: number): Promise<void> {
  await t.server.services.database.transaction((tx) => tx.updateTable('messages').set({ date_sent: timestamp }).where('id', '=', messageId).execute());
}

/** Makes a message look sent this many seconds ago (the API cannot send into the past). */
export async function backdateMessage(t: TestServer, messageId: number, secondsAgo: number): Promise<void> {
  await setMessageDate(t, messageId, now() - secondsAgo);
}

/** Ages a user's password-reset links by this many seconds (a link is dated when it is mailed). */
export async function ageResetLinks(t: TestServer, userId: number, secondsAgo: number): Promise<void> {
  await t.server.services.database.transaction((tx) => tx.updateTable('password_resets').set({ created_at: now() - secondsAgo }).where('user_id', '=', userId).execute());
}

/** Makes an account look joined this many seconds ago (an account is dated when it is made). */
export async function backdateJoined(t: TestServer, userId: number, secondsAgo: number): Promise<void> {
  await t.server.services.database.transaction((tx) => tx.updateTable('users').set({ date_joined: now() - secondsAgo }).where('id', '=', userId).execute());
  // Users are cached per organization; the user's organization is the test's.
  t.server.services.cache.invalidateUsers(t.realmId);
}

/** Makes the invitations to this address expired (the shortest expiry the API takes is a minute away). */
export async function expireInvites(t: TestServer, email: string): Promise<void> {
  await t.server.services.database.transaction((tx) => tx.updateTable('invites').set({ expires_at: 1 }).where('email', '=', email).execute());
}

// ---- States a request cannot catch in time. ----

/**
 * An export record as it stands while its file is still being written (no `failedMs`), or after
 * it failed: a request's export finishes (or fails) before the test could look at it.
 */
export async function exportRecord(t: TestServer, e: { actingUserId: number; requestedMs: number; failedMs?: number }): Promise<number> {
  return t.server.services.database.transaction(async (tx) => {
    const id = await insertRealmExport(tx, { realm_id: t.realmId, acting_user_id: e.actingUserId, export_type: 1, requested_ms: e.requestedMs });
    if (e.failedMs !== undefined) await updateRealmExport(tx, id, { failed_ms: e.failedMs });
    return id;
  });
}

// ---- Volume: tens of thousands of messages would take minutes to send one request at a time. ----

/**
 * Writes `count` messages into a channel's history in batches of 1,000, all stamped now, with a
 * `flags` row for the one reader given (the sender and the other subscribers get none, as if they
 * had not been subscribed); the content is rendered as a plain paragraph.
 */
export async function seedChannelHistory(
  t: TestServer,
  s: { channelId: number; senderId: number; readerId: number; flags: number; count: number; topic: (n: number) => string; content: (n: number) => string },
): Promise<void> {
  const database = t.server.services.database;
  const recipientId = (await streamRecipientIds(database.db, [s.channelId])).get(s.channelId)!;
  const stamped = now();
  await database.transaction(async (tx) => {
    for (let start = 0; start < s.count; start += 1000) {
      const rows = Array.from({ length: Math.min(1000, s.count - start) }, (_, i) => {
        const content = s.content(start + i);
        return {
          realm_id: t.realmId, sender_id: s.senderId, recipient_type: 'stream', recipient_id: recipientId, stream_id: s.channelId, dm_group_id: null,
          topic: s.topic(start + i), content, rendered_content: `<p>${content}</p>`, date_sent: stamped, last_edit_time: null, sending_client: 'test', edit_history: null,
        };
      });
      const ids = await tx.insertInto('messages').values(rows).returning('id').execute();
      await insertUserMessages(tx, ids.map((r) => ({ user_id: s.readerId, message_id: r.id, flags: s.flags })));
    }
  });
}

/**
 * Gives a user rows for messages sent before they could receive them, with these flags: with
 * `seedChannelHistory`, a reader who holds the seeded history but was never subscribed.
 */
export async function giveMessages(t: TestServer, userId: number, messageIds: number[], flags: number): Promise<void> {
  await t.server.services.database.transaction((tx) => insertUserMessages(tx, messageIds.map((id) => ({ user_id: userId, message_id: id, flags }))));
}
