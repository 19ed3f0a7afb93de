// Another process holds SQLite's write lock (as a second worker of CONFAB_WORKERS does while it
// commits): a server whose write must wait for it keeps answering everything else meanwhile, and
// its write goes through once the lock is free. (SQLite's own busy handler waited by sleeping in
// the main thread: no request was answered until the lock came free.)
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import SqliteDatabase from 'better-sqlite3';
import { Client, ON_POSTGRES, startTestServer, type TestServer } from './helpers.js';
import { spawnServer, type ChildServer } from './spawn.js';

let t: TestServer;
let server: ChildServer;
before(async () => {
  if (ON_POSTGRES) return;
  t = await startTestServer();
  server = await spawnServer(t);
});
after(async () => {
  await server?.stop();
  await t?.close();
});

test('a write waiting for another process to release the lock leaves the server answering', { skip: ON_POSTGRES && 'SQLite only' }, async () => {
  const owner = new Client(server.url, t.owner.email, t.owner.apiKey, t.owner.userId);
  // Sending once first loads everything a send needs.
  assert.equal((await owner.post('/messages', { type: 'direct', to: [t.owner.userId], content: 'before' })).status, 200);
  const other = new SqliteDatabase(t.databaseUrl.replace(/^sqlite:/, ''));
  other.exec('BEGIN IMMEDIATE');
  let locked = true;
  const release = () => {
    if (!locked) return;
    other.exec('COMMIT');
    locked = false;
  };
  // Released after the answers below, or after 3 s whatever happens (then the test fails).
  const cap = setTimeout(release, 3000);
  try {
    const send = owner.post('/messages', { type: 'direct', to: [t.owner.userId], content: 'while locked' });
    // The send reaches its BEGIN and finds the lock taken.
    await new Promise((r) => setTimeout(r, 200));
    const answeredWhileLocked: boolean[] = [];
    for (let i = 0; i < 3; i++) {
      const me = await owner.get('/users/me');
      assert.equal(me.status, 200);
      answeredWhileLocked.push(locked);
    }
    release();
    const sent = await send;
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    assert.deepEqual(answeredWhileLocked, [true, true, true], 'every GET /users/me was answered while the lock was held');
    const read = await owner.get('/messages', { anchor: sent.body.id, num_before: 0, num_after: 0 });
    assert.deepEqual(read.body.messages.map((m: { content: string }) => m.content), ['<p>while locked</p>']);
  } finally {
    clearTimeout(cap);
    release();
    other.close();
  }
});
