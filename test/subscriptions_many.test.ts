// Subscribing many users to many channels in one request: 500 people × 10 channels is 5,000
// subscription rows, more than SQLite's bound-parameter limit allows in one insert statement.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type Client, type TestServer } from './helpers.js';

let t: TestServer;
let people: Client[];

before(async () => {
  t = await startTestServer();
  people = [];
  for (let i = 0; i < 500; i++) people.push(await t.createUser({ name: `Person ${i}` }));
});
after(async () => {
  await t.close();
});

test('500 principals into 10 new channels in one request: every subscription is written', async () => {
  const names = Array.from({ length: 10 }, (_, i) => `crowd ${i}`);
  const principals = people.map((p) => p.userId);
  const res = await t.owner.post('/users/me/subscriptions', { subscriptions: names.map((name) => ({ name })), principals });
  assert.equal(res.status, 200, JSON.stringify(res.body).slice(0, 300));
  for (const name of names) {
    const id = (await t.owner.get('/get_stream_id', { stream: name })).body.stream_id;
    const members = await t.owner.get(`/streams/${id}/members`);
    assert.equal(members.status, 200);
    assert.equal(members.body.subscribers.length, 500);
    assert.deepEqual([...members.body.subscribers].sort((a: number, b: number) => a - b), [...principals].sort((a, b) => a - b));
  }
});
