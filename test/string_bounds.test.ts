// Every string parameter is bounded before it reaches the database (issue 15): a value past the
// limit is Zulip's 400, on both databases, never a 500 from an index that cannot hold it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './helpers.js';

let t: TestServer;
before(async () => {
  t = await startTestServer();
});
after(async () => {
  await t.close();
});

const MB = 'x'.repeat(1024 * 1024);

test('navigation views: a 1 MB fragment (seed 7 of the fuzzer) and an overlong name are refused; the limits themselves pass', async () => {
  const huge = await t.owner.post('/navigation_views', { fragment: MB, is_pinned: true, name: MB });
  assert.equal(huge.status, 400);
  assert.equal(huge.body.msg, 'fragment is too long (limit: 500 characters)');
  const hugeName = await t.owner.post('/navigation_views', { fragment: 'narrow/channel/9-x', is_pinned: true, name: MB });
  assert.equal(hugeName.status, 400);
  // Four-byte characters at the limit still fit PostgreSQL's index.
  const emoji = '😀'.repeat(500);
  const atLimit = await t.owner.post('/navigation_views', { fragment: emoji, is_pinned: true, name: 'Smiles' });
  assert.equal(atLimit.status, 200, JSON.stringify(atLimit.body));
  const renamed = await t.owner.patch(`/navigation_views/${encodeURIComponent(emoji)}`, { name: 'y'.repeat(61) });
  assert.equal(renamed.status, 400);
});

test('any other string parameter has a bound too: 1 MB where Zulip sets none is a 400', async () => {
  const res = await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'bounded' }] });
  assert.equal(res.status, 200);
  const snippet = await t.owner.post('/saved_snippets', { title: 'big', content: MB });
  assert.equal(snippet.status, 400);
  assert.equal(snippet.body.msg, 'content is too long (limit: 100000 characters)');
  // Message content is cut to Zulip's 10,000 characters, not refused.
  const sent = await t.owner.post('/messages', { type: 'stream', to: 'bounded', topic: 't', content: 'y'.repeat(200_000) });
  assert.equal(sent.status, 200);
});
