// The write turn of CONFAB_WORKERS on SQLite (lib/ipc_write_turn.ts), in one process: two group
// commits on one database file, each with its own channel to a WriteTurnTable standing in for the
// primary. A worker that waits for the turn does not begin (it asks once and waits; no timer tries
// the lock), its transactions gather into one batch meanwhile, and the turn comes to it when the
// holder commits, or when the holder dies (the primary drops a worker that exited). PostgreSQL
// has no such turn: its workers write through their own connections under row locks.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { CompiledQuery } from 'kysely';
import { openDatabase, type Database } from '../src/store/db.js';
import { IpcWriteTurn, WriteTurnTable } from '../src/lib/ipc_write_turn.js';
import type { IpcChannel } from '../src/lib/ipc.js';
import { ON_POSTGRES } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'confab-turn-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A worker's pipe to the primary: messages cross on a later turn of the event loop, as over IPC. */
class FakeChannel extends EventEmitter implements IpcChannel {
  connected = true;
  constructor(private readonly toPrimary: (m: unknown) => void) {
    super();
  }
  send(message: unknown): boolean {
    setImmediate(() => this.toPrimary(message));
    return true;
  }
  fromPrimary(message: unknown): void {
    setImmediate(() => this.emit('message', message));
  }
}

/** A table and a channel per worker id, wired as cli/primary.ts wires them. */
function primary() {
  const channels = new Map<number, FakeChannel>();
  const table = new WriteTurnTable((id) => channels.get(id)?.fromPrimary({ confab: 'turn', op: 'grant' }));
  const channel = (id: number) => {
    const c = new FakeChannel((m) => table.handle(id, m));
    channels.set(id, c);
    return c;
  };
  return { table, channel };
}

const INSERT = (who: string) => CompiledQuery.raw('insert into turn_probe (who) values (?)', [who]);
const settle = (ms = 100) => new Promise((r) => setTimeout(r, ms));

async function until(what: string, ok: () => boolean): Promise<void> {
  const end = Date.now() + 5000;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting until ${what}`);
    await settle(5);
  }
}

async function twoWorkers(name: string) {
  const url = `sqlite:${join(dir, `${name}.db`)}`;
  const p = primary();
  const a = await openDatabase(url, { writeTurn: new IpcWriteTurn(p.channel(1)) });
  const b = await openDatabase(url, { writeTurn: new IpcWriteTurn(p.channel(2)) });
  await a.transaction(async (tx) => void (await tx.executeQuery(CompiledQuery.raw('create table turn_probe (who text)'))));
  // A connection outside both: it sees only what was committed.
  const outside = new SqliteDatabase(url.replace(/^sqlite:/, ''), { readonly: true });
  const committed = (who: string) => (outside.prepare('select count(*) as n from turn_probe where who = ?').get(who) as { n: number }).n;
  return { ...p, a, b, committed, close: async () => (outside.close(), await a.close(), await b.close()) };
}

/** Three transactions of one worker; each notes how many of its kind were committed when it ran. */
function threeWrites(db: Database, who: string, seen: number[], committed: (who: string) => number): Promise<unknown> {
  return Promise.all(
    [0, 1, 2].map(() =>
      db.transaction(async (tx) => {
        seen.push(committed(who));
        await tx.executeQuery(INSERT(who));
      }),
    ),
  );
}

test('the turn goes to the waiting worker when the holder commits; its transactions gather into one batch meanwhile', { skip: ON_POSTGRES && 'SQLite only: PostgreSQL workers take no write turn' }, async () => {
  const w = await twoWorkers('handover');
  try {
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    let began = false;
    const first = w.a.transaction(async (tx) => {
      began = true;
      await tx.executeQuery(INSERT('a'));
      await gate;
    });
    await until('worker 1 began', () => began);
    assert.deepEqual(w.table.state(), { holder: 1, waiting: [] });
    const seen: number[] = [];
    const second = threeWrites(w.b, 'b', seen, w.committed);
    await settle();
    // Worker 2 asked and waits: none of its transactions began while worker 1 holds the turn.
    assert.deepEqual(w.table.state(), { holder: 1, waiting: [2] });
    assert.deepEqual(seen, []);
    open();
    await first;
    await second;
    // All three ran in one transaction: none saw another's row committed.
    assert.deepEqual(seen, [0, 0, 0]);
    assert.equal(w.committed('b'), 3);
    await settle();
    assert.deepEqual(w.table.state(), { holder: null, waiting: [] }, 'released after the commit');
  } finally {
    await w.close();
  }
});

test('a worker that dies holding the turn gives it up: the next one writes', { skip: ON_POSTGRES && 'SQLite only: PostgreSQL workers take no write turn' }, async () => {
  const w = await twoWorkers('reclaim');
  try {
    // Worker 3 asks for the turn and gets it, then dies before it writes anything.
    w.table.handle(3, { confab: 'turn', op: 'ask' });
    const seen: number[] = [];
    const writes = threeWrites(w.b, 'b', seen, w.committed);
    await settle();
    assert.deepEqual(w.table.state(), { holder: 3, waiting: [2] });
    assert.deepEqual(seen, [], 'nothing begins while another worker holds the turn');
    // The primary saw worker 3 exit.
    w.table.dropWorker(3);
    await writes;
    assert.equal(w.committed('b'), 3);
  } finally {
    await w.close();
  }
});

test('turns go in the order asked; a worker that dies waiting leaves the line', () => {
  const granted: number[] = [];
  const table = new WriteTurnTable((id) => granted.push(id));
  const ask = (id: number) => table.handle(id, { confab: 'turn', op: 'ask' });
  const release = (id: number) => table.handle(id, { confab: 'turn', op: 'release' });
  ask(1);
  ask(2);
  ask(3);
  ask(2);
  assert.deepEqual(table.state(), { holder: 1, waiting: [2, 3] });
  table.dropWorker(2);
  release(2); // not the holder: changes nothing
  assert.deepEqual(table.state(), { holder: 1, waiting: [3] });
  release(1);
  ask(1);
  assert.deepEqual(table.state(), { holder: 3, waiting: [1] });
  release(3);
  release(1);
  assert.deepEqual(table.state(), { holder: null, waiting: [] });
  assert.deepEqual(granted, [1, 3, 1]);
  assert.equal(table.handle(1, { confab: 'rate', op: 'hit' }), false, 'other messages are not the table’s');
});
