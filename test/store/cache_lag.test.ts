// Two processes on one database: each has its own Cache, and hears of the other's writes only
// when an invalidation arrives through Redis, a moment after the commit. In that moment a lookup
// of a user or group the other process has just made must still find it (read from the database
// on a miss), and an id or address nobody has must still be refused, without being remembered.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openStore, type StoreFixture } from './store_helpers.js';
import { Cache, isUserInGroup } from '../../src/store/cache.js';
import type { Database } from '../../src/store/db.js';
import { insertAccount } from '../../src/actions/users.js';
import { ROLE } from '../../src/store/users.js';
import { getSystemGroupIds, insertAnonymousGroup } from '../../src/store/groups.js';
import { getStream, getStreamByName, updateStream } from '../../src/store/channels.js';
import { channel } from '../../bench/seed.js';

let s: StoreFixture;
let other: Database;
before(async () => {
  s = await openStore();
  other = await s.connectAgain();
});
after(() => s.close());

/** A user made through the other connection, as another process would, with no invalidation sent. */
async function userMadeElsewhere(email: string, fullName: string) {
  return other.transaction((tx) => insertAccount(tx, { realmId: s.realmId, email, fullName, role: ROLE.member, passwordHash: null, now: 1 }));
}

test('a user made by another process is found by id and by email before any invalidation; garbage ids stay absent', async () => {
  const cache = new Cache(s.database);
  const before = await cache.users(s.realmId);
  const graphBefore = await cache.groupGraph(s.realmId);
  assert.ok(before.has(s.ownerId));
  await cache.usersByEmail('lagging@example.com'); // a lookup before the account exists
  const made = await userMadeElsewhere('Lagging@example.com', 'Lagging Lou');

  // By id, one at a time and as a batch; the cached map then holds the user.
  const byId = await cache.user(s.realmId, made.id);
  assert.equal(byId?.full_name, 'Lagging Lou');
  assert.ok((await cache.usersIncluding(s.realmId, [s.ownerId, made.id])).has(made.id));
  assert.equal(cache.cachedUsers(s.realmId)?.get(made.id)?.id, made.id);
  // The group graph that lacked the user's system-group memberships was dropped for a fresh one.
  const members = (await getSystemGroupIds(s.database.db, s.realmId))['role:members'];
  assert.equal(isUserInGroup(graphBefore, made.id, members), false);
  assert.equal(isUserInGroup(await cache.groupGraph(s.realmId), made.id, members), true);

  // By email (authentication's lookup: the earlier empty answer was not kept) and by address.
  assert.deepEqual((await cache.usersByEmail('lagging@EXAMPLE.com')).map((u) => u.id), [made.id]);
  const second = await userMadeElsewhere('second@example.com', 'Second Sam');
  assert.deepEqual((await cache.usersAtAddress(s.realmId, ' Second@example.com ')).map((u) => u.id), [second.id]);
  assert.deepEqual((await cache.usersAtAddress(s.realmId, `user${second.id}@placeholder.example`)).map((u) => u.id), [second.id]);
  assert.ok(cache.cachedUsers(s.realmId)?.has(second.id));

  // Ids and addresses nobody has: absent, and nothing kept for them.
  const size = cache.cachedUsers(s.realmId)!.size;
  for (const id of [0, -1, 987654321, 2 ** 53 - 1, 2 ** 53 + 2, 1.5]) assert.equal(await cache.user(s.realmId, id), undefined);
  assert.equal((await cache.usersIncluding(s.realmId, [987654321, 987654322])).has(987654321), false);
  assert.deepEqual(await cache.usersByEmail('nobody@example.com'), []);
  assert.equal(cache.cachedUsersByEmail('nobody@example.com'), undefined);
  assert.deepEqual(await cache.usersAtAddress(s.realmId, 'user987654321@x.example'), []);
  assert.equal(cache.cachedUsers(s.realmId)!.size, size);
  // Another organization's user is not this one's.
  assert.equal(await cache.user(s.realmId + 1000, made.id), undefined);
});

test('a hit reads nothing: the cached map answers with no query', async () => {
  // Queries counted where the cache starts them: the lookups of present ids must start none.
  const db = s.database.db;
  let queries = 0;
  const counting = new Proxy(db, {
    get: (target, key) =>
      key === 'selectFrom'
        ? (...args: Parameters<typeof db.selectFrom>) => {
            queries++;
            return target.selectFrom(...args);
          }
        : Reflect.get(target, key),
  });
  const watched = new Cache({ ...s.database, db: counting });
  await watched.users(s.realmId);
  const groups = await getSystemGroupIds(s.database.db, s.realmId);
  await watched.groupGraph(s.realmId, [groups['role:everyone']]);
  const loaded = queries;
  assert.equal((await watched.user(s.realmId, s.ownerId))?.id, s.ownerId);
  await watched.usersIncluding(s.realmId, [s.ownerId]);
  await watched.groupGraph(s.realmId, [groups['role:everyone'], groups['role:members']]);
  assert.equal(queries, loaded);
  await watched.user(s.realmId, 987654321);
  assert.equal(queries, loaded + 1, 'a miss costs one query');
});

test('a channel and its new group made by another process are found, and the group reads the graph again', async () => {
  const cache = new Cache(s.database);
  const graph = await cache.groupGraph(s.realmId);
  await cache.users(s.realmId);
  const poster = await userMadeElsewhere('poster@example.com', 'Poster Pat');
  const streamId = await channel(other, s.realmId, 'made elsewhere', s.ownerId);
  const group = await other.transaction((tx) => insertAnonymousGroup(tx, s.realmId, [poster.id], [], 1));
  await other.transaction((tx) => updateStream(tx, streamId, { can_send_message_group: group }));

  // Channels are not cached: read by id and by name from the database.
  const stream = await getStream(s.database.db, s.realmId, streamId);
  assert.equal(stream?.can_send_message_group, group);
  assert.equal((await getStreamByName(s.database.db, s.realmId, 'Made Elsewhere'))?.id, streamId);

  assert.equal(graph.groups.has(group), false);
  const fresh = await cache.groupGraph(s.realmId, [stream!.can_send_message_group]);
  assert.ok(fresh.groups.has(group));
  assert.equal(isUserInGroup(fresh, poster.id, group), true);
  // A group id nobody has leaves the graph as it is.
  assert.equal(await cache.groupGraph(s.realmId, [987654321]), fresh);
});
