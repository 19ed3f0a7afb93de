// Transactions of the store on the real database: concurrent writers share commits (SQLite group
// commit) yet each one commits or rolls back on its own, and after-commit hooks run only for
// those that committed.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './helpers.js';
import { insertRealm } from '../src/store/realms.js';

let t: TestServer;
before(async () => {
  t = await startTestServer();
});
after(async () => {
  await t.close();
});

test('concurrent transactions: a failing one rolls back alone, hooks run after commit only', async () => {
  const { database } = t.server.services;
  const hooksRun: number[] = [];
  const attempts = Array.from({ length: 20 }, (_, i) =>
    database.transaction(async (tx, onCommit) => {
      await insertRealm(tx, { string_id: `concurrent-${i}`, name: `Concurrent ${i}`, date_created: 1 });
      onCommit(() => hooksRun.push(i));
      if (i === 7) throw new Error('job 7 fails after writing');
      return i;
    }),
  );
  const results = await Promise.allSettled(attempts);
  assert.equal(results.filter((r) => r.status === 'fulfilled').length, 19);
  const failed = results[7]!;
  assert.equal(failed.status, 'rejected');
  assert.match(String((failed as PromiseRejectedResult).reason), /job 7 fails/);
  const rows = await database.db.selectFrom('realms').select('string_id').where('string_id', 'like', 'concurrent-%').execute();
  const names = new Set(rows.map((r) => r.string_id));
  assert.equal(names.size, 19);
  assert.ok(!names.has('concurrent-7'), 'the failed transaction left no row');
  assert.deepEqual(hooksRun.sort((a, b) => a - b), [...Array(20).keys()].filter((i) => i !== 7));
});

test('a constraint violation in one transaction does not spoil the others', async () => {
  const { database } = t.server.services;
  const attempts = ['dup', 'dup', 'unique-a', 'unique-b'].map((name) =>
    database.transaction((tx) => insertRealm(tx, { string_id: `c-${name}`, name, date_created: 1 })),
  );
  const results = await Promise.allSettled(attempts);
  // Which of the two duplicates wins is up to the database; exactly one does.
  assert.deepEqual([results[0]!.status, results[1]!.status].sort(), ['fulfilled', 'rejected']);
  assert.deepEqual([results[2]!.status, results[3]!.status], ['fulfilled', 'fulfilled']);
  const rows = await database.db.selectFrom('realms').select('string_id').where('string_id', 'like', 'c-%').execute();
  assert.deepEqual(rows.map((r) => r.string_id).sort(), ['c-dup', 'c-unique-a', 'c-unique-b']);
});

test('reads outside a transaction do not wait for an open one', async () => {
  const { database } = t.server.services;
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const writer = database.transaction(async (tx) => {
    await insertRealm(tx, { string_id: 'held-open', name: 'Held', date_created: 1 });
    await gate;
  });
  // The uncommitted row is invisible, and the read completes while the writer is still open.
  const seen = await database.db.selectFrom('realms').select('id').where('string_id', '=', 'held-open').execute();
  assert.equal(seen.length, 0);
  release();
  await writer;
  const after = await database.db.selectFrom('realms').select('id').where('string_id', '=', 'held-open').execute();
  assert.equal(after.length, 1);
});
