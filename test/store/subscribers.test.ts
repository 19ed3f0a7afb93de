// Subscriber lists as /register and GET /streams/{id}/members send them (each channel's active
// subscribers who are active users, in id order, sorted after the query rather than by it), and the
// planner statistics migration 0090 adds on PostgreSQL, and the indexes some store statements are held to.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { openStore, type StoreFixture } from './store_helpers.js';
import { ON_POSTGRES } from '../helpers.js';
import { insertAccount } from '../../src/actions/users.js';
import { activeUserSubscriberIds, deactivateSubscriptions, upsertSubscriptions } from '../../src/store/channels.js';
import { ROLE } from '../../src/store/users.js';
import { channel } from '../../bench/seed.js';
import { unreadMessageIdsStatement } from '../../src/store/unreads.js';
import { realmAlertWordsQuery } from '../../src/store/alert_words.js';

let s: StoreFixture;
before(async () => {
  s = await openStore();
});
after(() => s.close());

test('activeUserSubscriberIds: each list in id order whatever order the rows were written in; inactive users and subscriptions left out', async () => {
  const { database, realmId, ownerId } = s;
  const ids: number[] = [];
  await database.transaction(async (tx) => {
    for (let i = 0; i < 6; i++) ids.push((await insertAccount(tx, { realmId, email: `sub${i}@example.com`, fullName: `Sub ${i}`, role: ROLE.member, passwordHash: null, now: 1 })).id);
  });
  const a = await channel(database, realmId, 'order a', ownerId);
  const b = await channel(database, realmId, 'order b', ownerId);
  const empty = await channel(database, realmId, 'order empty', ownerId);
  // Newest user first, one row per statement, so the table holds them in descending id order.
  for (const id of [...ids].reverse()) await database.transaction((tx) => upsertSubscriptions(tx, realmId, a, [id], () => '#76ce90'));
  for (const id of [ids[4]!, ids[1]!, ids[3]!]) await database.transaction((tx) => upsertSubscriptions(tx, realmId, b, [id], () => '#76ce90'));
  await database.transaction((tx) => deactivateSubscriptions(tx, a, [ids[2]!]));
  await database.db.updateTable('users').set({ is_active: false }).where('id', '=', ids[5]!).execute();
  const lists = await activeUserSubscriberIds(database.db, [a, b, empty]);
  assert.deepEqual([...lists.keys()], [a, b, empty]);
  assert.deepEqual(lists.get(a), [ids[0], ids[1], ids[3], ids[4]]);
  assert.deepEqual(lists.get(b), [ids[1], ids[3], ids[4]]);
  assert.deepEqual(lists.get(empty), []);
});

test('PostgreSQL: statistics on the unread bit of user_messages exist (migration 0090)', { skip: !ON_POSTGRES && 'PostgreSQL only' }, async () => {
  const rows = await sql<{ expr: string }>`SELECT pg_get_statisticsobjdef_expressions(oid)::text AS expr FROM pg_statistic_ext
    WHERE stxname = 'user_messages_unread_bit' AND stxnamespace = current_schema()::regnamespace`.execute(s.database.db);
  assert.equal(rows.rows.length, 1);
  assert.match(rows.rows[0]!.expr, /flags & \(?1\)?(::bigint)?\)/);
});

test('SQLite: marking read (all, a channel, a topic, a sender) reads the unread index, not every row of the user', { skip: ON_POSTGRES && 'SQLite only' }, async () => {
  for (const only of [{}, { streamId: 1 }, { streamId: 1, topic: 'x' }, { senderId: 2 }]) {
    const compiled = unreadMessageIdsStatement('sqlite', 1, only).compile(s.database.db);
    const plan = await s.database.db.executeQuery<{ detail: string }>({ ...compiled, sql: `explain query plan ${compiled.sql}` });
    const um = plan.rows.map((r) => r.detail).find((d) => / um\b/.test(d));
    assert.match(um ?? '', /INDEX user_messages_unread/, JSON.stringify(plan.rows));
  }
});

test('SQLite: an organization\'s alert words are read through their realm index, not by scanning every organization\'s (migration 0096)', { skip: ON_POSTGRES && 'SQLite only' }, async () => {
  const compiled = realmAlertWordsQuery(s.database.db, s.realmId).compile();
  const plan = await s.database.db.executeQuery<{ detail: string }>({ ...compiled, sql: `explain query plan ${compiled.sql}` });
  const details = plan.rows.map((r) => r.detail);
  assert.ok(details.some((d) => /USING INDEX alert_words_realm/.test(d)), JSON.stringify(details));
  assert.ok(!details.some((d) => /TEMP B-TREE/.test(d)), 'the index gives id order: no sort');
});
