// Topic queries in the store: topics group case-blind, newest first with a limit, and the
// protected-history variants count only the messages a user received.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openStore, type StoreFixture } from './store_helpers.js';
import { FLAG_BITS, insertMessage, insertUserMessages, setFlagBit } from '../../src/store/messages.js';
import { unreadMessageIds } from '../../src/store/unreads.js';
import { newestTopicMessages, topicMaxIds, topicsOfMessages, usersWithTopicMessages } from '../../src/store/topics.js';
import { deleteTopicPolicies, topicPolicyRows } from '../../src/store/user_topics.js';
import { insertAccount } from '../../src/actions/users.js';
import { insertStream, RECIPIENT_STREAM, STREAM_GROUP_SETTINGS } from '../../src/store/channels.js';
import { getSystemGroupIds } from '../../src/store/groups.js';

let s: StoreFixture;
before(async () => {
  s = await openStore();
});
after(() => s.close());

test('topics: grouped case-blind, newest first with a limit, received-only variants', async () => {
  const { database, realmId, ownerId } = s;
  const sys = await getSystemGroupIds(database.db, realmId);
  const settings = Object.fromEntries(STREAM_GROUP_SETTINGS.map((k) => [k, sys['role:everyone']])) as Record<(typeof STREAM_GROUP_SETTINGS)[number], number>;
  const stream = {
    id: await database.transaction((tx) =>
      insertStream(tx, {
        realm_id: realmId, name: 'topics', description: '', rendered_description: '', invite_only: false, is_web_public: false,
        history_public_to_subscribers: true, date_created: 1, creator_id: ownerId, message_retention_days: null, is_archived: false,
        folder_id: null, topics_policy: 'inherit', ...settings,
      }),
    ),
  };
  const recipient = await database.db.selectFrom('recipients').select('id').where('type_id', '=', stream.id).where('type', '=', RECIPIENT_STREAM).executeTakeFirstOrThrow();
  const other = await database.transaction((tx) => insertAccount(tx, { realmId, email: 't@example.com', fullName: 'T', role: 400, passwordHash: null, now: 1 }));
  const send = (topic: string, receivers: number[]) =>
    database.transaction(async (tx) => {
      const id = await insertMessage(tx, {
        realm_id: realmId, sender_id: ownerId, recipient_type: 'stream', recipient_id: recipient.id, stream_id: stream.id, dm_group_id: null,
        topic, content: 'x', rendered_content: '<p>x</p>', date_sent: 1, last_edit_time: null, sending_client: 'test', edit_history: null,
      } as Parameters<typeof insertMessage>[1]);
      await insertUserMessages(tx, receivers.map((user_id) => ({ user_id, message_id: id, flags: 0 })));
      return id;
    });
  const a1 = await send('Lunch', [ownerId]);
  const b1 = await send('plans', [ownerId, other.id]);
  const a2 = await send('LUNCH', [ownerId]);
  const a3 = await send('lunch', [ownerId, other.id]);

  assert.deepEqual((await topicMaxIds(database.db, stream.id)).sort((x, y) => x - y), [b1, a3].sort((x, y) => x - y));
  assert.equal((await topicsOfMessages(database.db, [a3])).get(a3), 'lunch');
  assert.deepEqual((await newestTopicMessages(database.db, stream.id, 'LuNcH', 2)).map((m) => m.id), [a3, a2]);
  assert.deepEqual((await newestTopicMessages(database.db, stream.id, 'lunch', 10, other.id)).map((m) => m.id), [a3]);
  assert.deepEqual((await newestTopicMessages(database.db, stream.id, 'lunch', 10)).map((m) => m.id), [a3, a2, a1]);
  assert.deepEqual([...(await usersWithTopicMessages(database.db, [ownerId, other.id], stream.id, 'PLANS'))].sort((x, y) => x - y), [ownerId, other.id].sort((x, y) => x - y));
  assert.deepEqual([...(await usersWithTopicMessages(database.db, [other.id], stream.id, 'nothing'))], []);

  // Unread filters: everything unread, by channel and topic in any case, by sender; read bits.
  assert.deepEqual((await unreadMessageIds(database.db, database.dialect, other.id)).sort((x, y) => x - y), [b1, a3].sort((x, y) => x - y));
  assert.deepEqual(await unreadMessageIds(database.db, database.dialect, other.id, { streamId: stream.id, topic: 'LUNCH' }), [a3]);
  assert.deepEqual(await unreadMessageIds(database.db, database.dialect, other.id, { senderId: other.id }), []);
  await database.transaction((tx) => setFlagBit(tx, other.id, [a3], FLAG_BITS.read, true));
  assert.deepEqual(await unreadMessageIds(database.db, database.dialect, other.id), [b1]);
  await database.transaction((tx) => setFlagBit(tx, other.id, [a3], FLAG_BITS.read, false));
  assert.equal((await unreadMessageIds(database.db, database.dialect, other.id)).length, 2);

  await database.db.insertInto('user_topics').values([
    { user_id: ownerId, stream_id: stream.id, topic_name: 'Lunch', visibility_policy: 1, last_updated: 1 },
    { user_id: other.id, stream_id: stream.id, topic_name: 'LUNCH', visibility_policy: 3, last_updated: 1 },
  ] as never).execute();
  assert.equal((await topicPolicyRows(database.db, stream.id, 'lunch')).length, 2);
  await database.transaction((tx) => deleteTopicPolicies(tx, [other.id], stream.id, 'lunch'));
  assert.deepEqual((await topicPolicyRows(database.db, stream.id, 'lunch')).map((r) => r.user_id), [ownerId]);
});
