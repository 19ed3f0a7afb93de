// Reactions in the store: one per user and emoji (a second is refused, not duplicated), votes
// listed first reactor first, a delete reaching only the user's own reaction.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openStore, type StoreFixture } from './store_helpers.js';
import { getOrCreateDmGroup, insertMessage, insertUserMessages, messageHolderIds } from '../../src/store/messages.js';
import { deleteReaction, insertReaction, reactionsWithEmoji } from '../../src/store/reactions.js';
import { insertAccount } from '../../src/actions/users.js';

let s: StoreFixture;
before(async () => {
  s = await openStore();
});
after(() => s.close());

test('reactions: one per user and emoji, votes in order, deletes only the own one', async () => {
  const { database, realmId, ownerId } = s;
  const other = await database.transaction((tx) => insertAccount(tx, { realmId, email: 'r@example.com', fullName: 'R', role: 400, passwordHash: null, now: 1 }));
  const messageId = await database.transaction(async (tx) => {
    const group = await getOrCreateDmGroup(tx, realmId, [ownerId, other.id]);
    const id = await insertMessage(tx, {
      realm_id: realmId, sender_id: ownerId, recipient_type: 'direct', recipient_id: group.recipientId, stream_id: null, dm_group_id: group.id,
      topic: '', content: 'hi', rendered_content: '<p>hi</p>', date_sent: 1, last_edit_time: null, sending_client: 'test', edit_history: null,
    } as Parameters<typeof insertMessage>[1]);
    await insertUserMessages(tx, [{ user_id: ownerId, message_id: id, flags: 0 }, { user_id: other.id, message_id: id, flags: 0 }]);
    return id;
  });
  assert.deepEqual((await messageHolderIds(database.db, messageId)).sort((a, b) => a - b), [ownerId, other.id].sort((a, b) => a - b));
  const smile = { emoji_code: '1f642', reaction_type: 'unicode_emoji' as const };
  assert.equal(await database.transaction((tx) => insertReaction(tx, messageId, other.id, { ...smile, emoji_name: 'smile' })), true);
  assert.equal(await database.transaction((tx) => insertReaction(tx, messageId, ownerId, { ...smile, emoji_name: 'slight_smile' })), true);
  assert.equal(await database.transaction((tx) => insertReaction(tx, messageId, ownerId, { ...smile, emoji_name: 'slight_smile' })), false);
  assert.deepEqual(await reactionsWithEmoji(database.db, messageId, smile), [
    { user_id: other.id, emoji_name: 'smile' },
    { user_id: ownerId, emoji_name: 'slight_smile' },
  ]);
  assert.equal(await database.transaction((tx) => deleteReaction(tx, messageId, ownerId, { emoji_code: '1f600', reaction_type: 'unicode_emoji' })), undefined);
  assert.equal(await database.transaction((tx) => deleteReaction(tx, messageId, ownerId, smile)), 'slight_smile');
  assert.deepEqual((await reactionsWithEmoji(database.db, messageId, smile)).map((r) => r.user_id), [other.id]);
});
