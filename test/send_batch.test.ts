// Many messages sent at once (on SQLite they share one group commit, and their flags rows are
// written together at its end): every message has every recipient's flags, the unread state, and
// one event per queue with the right flags; a send that fails does not take the others with it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client, ON_POSTGRES, openQueue, queuedEvents, startTestServer, type TestServer } from './helpers.js';
import { insertUserMessages } from '../src/store/messages.js';

let t: TestServer;
let ann: Client;
let bob: Client;
let muter: Client;

before(async () => {
  t = await startTestServer();
  ann = await t.createUser({ name: 'Ann Batch' });
  bob = await t.createUser({ name: 'Bob Batch' });
  muter = await t.createUser({ name: 'Mia Muter' });
  const res = await t.owner.post('/users/me/subscriptions', {
    subscriptions: [{ name: 'batch' }],
    principals: [t.owner.userId, ann.userId, bob.userId, muter.userId],
  } as Record<string, object>);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  // Mia muted Ann: Ann's messages arrive read for her.
  assert.equal((await muter.post(`/users/me/muted_users/${ann.userId}`)).status, 200);
});
after(async () => {
  await t.close();
});

test('concurrent sends: every recipient gets every message with its own flags, events included', async () => {
  const queues = new Map<Client, string>();
  const first = await ann.post('/messages', { type: 'stream', to: 'batch', topic: 'first', content: 'first' });
  assert.equal(first.status, 200);
  const firstId = first.body.id as number;
  for (const c of [t.owner, ann, bob, muter]) queues.set(c, await openQueue(c, ['message']));
  const N = 24;
  // Hold the writer so the whole burst waits, then commits as one batch (SQLite's group commit);
  // in that batch, a transaction that hands over flags rows and then fails must leave no trace.
  let release!: () => void;
  const held = t.server.services.database.transaction(() => new Promise<void>((r) => (release = r)));
  const failing = t.server.services.database
    .transaction(async (_tx, _onCommit, deferred) => {
      deferred?.userMessages([{ user_id: bob.userId, message_id: firstId, flags: 2 }]);
      throw new Error('rolled back');
    })
    .then(() => 'committed', (e: Error) => e.message);
  const sends = Array.from({ length: N }, (_, i) =>
    ann.post('/messages', { type: 'stream', to: 'batch', topic: `t${i % 3}`, content: i % 4 === 0 ? `hi @**Bob Batch** ${i}` : `hello ${i}` }),
  );
  // One send in the middle of the burst fails; the rest must not notice.
  sends.splice(N / 2, 0, ann.post('/messages', { type: 'stream', to: 'no such channel', topic: 'x', content: 'lost' }));
  await new Promise((r) => setTimeout(r, 1000));
  // Queued after the sends, so it runs after them in the same batch: it names the newest message
  // before that is committed and gives Bob a historical row for it, as marking it read would.
  const early = t.server.services.database.transaction(async (tx) => {
    const newest = await tx.selectFrom('messages').select((eb) => eb.fn.max('id').as('id')).executeTakeFirstOrThrow();
    await insertUserMessages(tx, [{ user_id: bob.userId, message_id: Number(newest.id), flags: 1 | 256 }], true);
    return Number(newest.id);
  });
  release();
  await held;
  const results = await Promise.all(sends);
  assert.equal(await failing, 'rolled back');
  // The message Bob already had is untouched (not starred by the failed transaction's rows).
  assert.deepEqual((await bob.get(`/messages/${firstId}`)).body.message.flags, []);
  const failed = results.splice(N / 2, 1)[0]!;
  assert.equal(failed.status, 400);
  assert.equal(failed.body.code, 'STREAM_DOES_NOT_EXIST');
  for (const r of results) assert.equal(r.status, 200, JSON.stringify(r.body));
  const ids = results.map((r) => r.body.id as number);
  assert.equal(new Set(ids).size, N);
  // On SQLite, Bob's row for it keeps his recipient flags plus the read flag, as if marked read
  // afterwards. (PostgreSQL has no batch: the newest message it sees is committed, row and all.)
  const newest = await early;
  assert.ok(ids.includes(newest));

  // Flags as each recipient fetches them.
  const fetch = async (c: Client) => {
    const res = await c.get('/messages', { anchor: 'oldest', num_before: 0, num_after: 100, narrow: [{ operator: 'channel', operand: 'batch' }] });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return new Map<number, string[]>(res.body.messages.map((m: any) => [m.id, [...m.flags].sort()]));
  };
  const bobFlags = await fetch(bob);
  const miaFlags = await fetch(muter);
  const ownerFlags = await fetch(t.owner);
  ids.forEach((id, i) => {
    const own = i % 4 === 0 ? ['mentioned'] : [];
    assert.deepEqual(bobFlags.get(id), id === newest && !ON_POSTGRES ? [...own, 'read'].sort() : own, `bob, message ${i}`);
    assert.deepEqual(miaFlags.get(id), ['read'], `mia, message ${i}`);
    assert.deepEqual(ownerFlags.get(id), [], `owner, message ${i}`);
  });
  // The unread narrow (served by the partial index) sees Bob's rows.
  const unread = await bob.get('/messages', { anchor: 'oldest', num_before: 0, num_after: 100, narrow: [{ operator: 'is', operand: 'unread' }, { operator: 'channel', operand: 'batch' }] });
  assert.equal(unread.status, 200);
  // The channel's first message, the Notification Bot's channel-created one, is unread for Bob too.
  const batchId = (await bob.get('/get_stream_id', { stream: 'batch' })).body.stream_id;
  const createdId = (await bob.get(`/streams/${batchId}`)).body.stream.first_message_id as number;
  assert.ok(createdId < firstId);
  const unreadIds = [createdId, firstId, ...ids].filter((id) => ON_POSTGRES || id !== newest);
  assert.deepEqual(unread.body.messages.map((m: any) => m.id).sort((a: number, b: number) => a - b), unreadIds.sort((a, b) => a - b));

  // One event per message in every queue, with the recipient's flags.
  for (const [c, queueId] of queues) {
    const events = (await queuedEvents(c, queueId)).filter((e) => e.type === 'message');
    assert.deepEqual(events.map((e) => e.message.id).sort((a: number, b: number) => a - b), [...ids].sort((a, b) => a - b));
    for (const e of events) {
      const i = ids.indexOf(e.message.id);
      const expected = c === muter ? ['read'] : c === bob && i % 4 === 0 ? ['mentioned'] : c === ann ? e.flags : [];
      assert.deepEqual([...e.flags].sort(), [...expected].sort(), `${c.email}, message ${i}`);
    }
  }
});
