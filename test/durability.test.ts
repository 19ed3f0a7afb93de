// kill -9 during concurrent sends (issue 15): after a restart every message the server
// acknowledged is stored as it was sent, and no message is half-written (each one stored has its
// rendered content and the recipient's row, so the recipient sees exactly what is stored).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client, startTestServer, type TestServer } from './helpers.js';
import { spawnServer } from './spawn.js';

let t: TestServer;
let member: Client;
before(async () => {
  t = await startTestServer();
  member = await t.createUser({ name: 'Durable Reader' });
});
after(async () => {
  await t.close();
});

test('kill -9 in the middle of concurrent sends: every acknowledged message survives, none is half-written', async () => {
  const first = await spawnServer(t);
  const owner = new Client(first.url, t.owner.email, t.owner.apiKey, t.owner.userId);
  const acked = new Map<number, string>();
  let stop = false;
  const worker = async (w: number) => {
    for (let i = 0; !stop; i++) {
      const content = `durable ${w}-${i}`;
      try {
        const res = await owner.post('/messages', { type: 'direct', to: [member.userId], content });
        if (res.status === 200) acked.set(res.body.id as number, content);
      } catch {
        return; // the server is gone
      }
    }
  };
  const workers = Array.from({ length: 6 }, (_, w) => worker(w));
  while (acked.size < 60) await new Promise((r) => setTimeout(r, 20));
  await first.stop('SIGKILL');
  stop = true;
  await Promise.all(workers);

  const second = await spawnServer(t);
  try {
    const reader = new Client(second.url, member.email, member.apiKey, member.userId);
    const seen = await reader.get('/messages', { anchor: 'newest', num_before: 5000, num_after: 0, narrow: [{ operator: 'dm', operand: [t.owner.userId] }], apply_markdown: true });
    assert.equal(seen.status, 200);
    const visible = new Map<number, string>(seen.body.messages.map((m: any) => [m.id, m.content]));
    const stored = await t.server.services.database.db.selectFrom('messages').select(['id', 'content', 'rendered_content']).where('content', 'like', 'durable %').execute();
    console.log(`# kill -9: ${acked.size} acknowledged, ${stored.length} stored`);
    // Every acknowledged message is stored, with its text.
    const byId = new Map(stored.map((m) => [Number(m.id), m]));
    for (const [id, content] of acked) assert.equal(byId.get(id)?.content, content, `acknowledged message ${id}`);
    // Every stored one is whole: rendered, and delivered to its recipient.
    for (const m of stored) {
      assert.equal(m.rendered_content, `<p>${m.content}</p>`);
      assert.equal(visible.get(Number(m.id)), `<p>${m.content}</p>`, `message ${m.id} reached its recipient`);
    }
    assert.equal(visible.size, stored.length);
  } finally {
    await second.stop();
  }
});
