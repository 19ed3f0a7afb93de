// SQLite's group commit (store/db.ts): commits made durable by a WAL sync off the main thread,
// answered in commit order; checkpoints made by the worker thread (store/checkpoints.ts), not by
// the writer inside a commit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { openDatabase } from '../../src/store/db.js';
import { ON_POSTGRES } from '../helpers.js';
import { openStore } from './store_helpers.js';

const sqliteOnly = { skip: ON_POSTGRES ? 'SQLite only' : false };

test('concurrent transactions: after-commit hooks and answers come in commit order', sqliteOnly, async () => {
  const store = await openStore();
  await sql`create table scratch (id integer primary key, n integer not null)`.execute(store.database.db);
  const hooks: number[] = [];
  const answers: number[] = [];
  const runs = Array.from({ length: 300 }, (_, n) =>
    store.database
      .transaction(async (tx, onCommit) => {
        const row = await tx.insertInto('scratch' as never).values({ n } as never).returning('id' as never).executeTakeFirstOrThrow();
        const id = (row as { id: number }).id;
        onCommit(() => hooks.push(id));
        return id;
      })
      .then((id) => {
        answers.push(id);
        return id;
      }),
  );
  const ids = await Promise.all(runs);
  assert.equal(new Set(ids).size, 300);
  // Ids grow in commit order: hooks (events) and answers must follow it.
  assert.deepEqual(hooks, [...hooks].sort((a, b) => a - b));
  assert.deepEqual(answers, [...answers].sort((a, b) => a - b));
  assert.equal(hooks.length, 300);
  await store.close();
});

test('a busy database\'s WAL is checkpointed into the database file by the worker thread, not left to the writer', sqliteOnly, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'confab-wal-'));
  const file = join(dir, 'confab.db');
  const database = await openDatabase(`sqlite:${file}`);
  await sql`create table scratch (id integer primary key, b blob not null)`.execute(database.db);
  const before = statSync(file).size;
  // 2 MB in 40 commits within a second (a busy server: the worker takes the checkpoints over):
  // half of SQLite's own automatic checkpoint threshold (1,000 pages), so only the worker's
  // checkpoint can have copied it into the database file.
  for (let i = 0; i < 40; i++) {
    await database.transaction(async (tx) => {
      await tx.insertInto('scratch' as never).values({ b: Buffer.alloc(52 * 1024, i + 1) } as never).execute();
    });
  }
  const deadline = Date.now() + 10_000;
  while (statSync(file).size < before + 2 * 1024 * 1024 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  assert.ok(statSync(file).size >= before + 2 * 1024 * 1024, `database file grew from ${before} to ${statSync(file).size} bytes`);
  await database.close();

  // Reopened: everything is there.
  const again = await openDatabase(`sqlite:${file}`);
  const count = await sql<{ n: number }>`select count(*) as n from scratch`.execute(again.db);
  assert.equal(Number(count.rows[0]!.n), 40);
  await again.close();
  rmSync(dir, { recursive: true, force: true });
});
