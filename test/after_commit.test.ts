// After-commit work cannot fail a committed request (issue 15): a hook that throws is logged, the
// caller still hears success, and on SQLite every other transaction of the same group commit
// still gets its answer.
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

/** Captures console.error while fn runs. */
async function capturingErrors<T>(fn: () => Promise<T>): Promise<{ value: T; logged: string[] }> {
  const logged: string[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => void logged.push(args.map(String).join(' '));
  try {
    return { value: await fn(), logged };
  } finally {
    console.error = original;
  }
}

test('throwing after-commit hooks: every transaction of a concurrent batch answers, its data stays, the failure is logged', async () => {
  const { database } = t.server.services;
  const ran: number[] = [];
  const { value: results, logged } = await capturingErrors(() =>
    Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        database.transaction(async (tx, onCommit) => {
          await insertRealm(tx, { string_id: `hooked-${i}`, name: `Hooked ${i}`, date_created: 1 });
          if (i % 3 === 0)
            onCommit(function failingSubscriber() {
              throw new Error(`subscriber ${i} broke`);
            });
          onCommit(() => ran.push(i));
          return i;
        }),
      ),
    ),
  );
  assert.deepEqual(results.map((r) => r.status), Array(20).fill('fulfilled'));
  assert.deepEqual(ran.sort((a, b) => a - b), [...Array(20).keys()], 'hooks after a failing one still run');
  const rows = await database.db.selectFrom('realms').select('string_id').where('string_id', 'like', 'hooked-%').execute();
  assert.equal(rows.length, 20);
  assert.equal(logged.filter((l) => /after-commit hook failingSubscriber failed/.test(l) && /subscriber \d+ broke/.test(l)).length, 7);
});

test('a request whose event publishing throws after the commit still succeeds', async () => {
  // Made first: its channel-created message is a message event too.
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'hooks' }] });
  const bus = t.server.services.bus;
  const publish = bus.publish.bind(bus);
  let failures = 0;
  bus.publish = (e) => {
    if ((e.event as { type?: string }).type === 'message') {
      failures++;
      throw new Error('subscriber down');
    }
    publish(e);
  };
  try {
    const { value: sent, logged } = await capturingErrors(() => t.owner.post('/messages', { type: 'stream', to: 'hooks', topic: 't', content: 'stored anyway' }));
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    assert.equal(failures, 1);
    assert.ok(logged.some((l) => l.includes('publish message event')));
    const got = await t.owner.get(`/messages/${sent.body.id}`);
    assert.equal(got.body.message.content, '<p>stored anyway</p>');
  } finally {
    bus.publish = publish;
  }
});
