// Writers racing on a unique name or key: the loser gets the 400 the sequential case gives, never
// a 500, and exactly one write wins (issue 15). On PostgreSQL the checks of concurrent
// transactions all pass before any commits, so only the unique index and store/conflicts.ts stop
// the others.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type ApiResponse, type TestServer } from './helpers.js';

let t: TestServer;
before(async () => {
  t = await startTestServer();
});
after(async () => {
  await t.close();
});

/** Every answer is a 200 or the expected error; returns how many were 200. */
function tally(answers: ApiResponse[], expectedError: string): number {
  const bad = answers.filter((a) => a.status !== 200 && !(a.status === 400 && a.body.msg === expectedError));
  assert.deepEqual(bad.map((a) => [a.status, a.body.msg]), [], 'every loser gets the sequential error');
  return answers.filter((a) => a.status === 200).length;
}

test('two channels renamed to one name at once: one gets it, the other requests get the sequential error', async () => {
  const made = await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'race a' }, { name: 'race b' }] });
  assert.equal(made.status, 200);
  const ids = await Promise.all(['race a', 'race b'].map(async (n) => (await t.owner.get('/get_stream_id', { stream: n })).body.stream_id as number));
  const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => t.owner.patch(`/streams/${ids[i % 2]}`, { new_name: 'race target' })));
  const streams = (await t.owner.get('/streams')).body.streams.filter((s: any) => s.name === 'race target');
  assert.equal(streams.length, 1);
  const winner = streams[0].stream_id;
  // As if one after another: the winning channel's first rename succeeds and its repeats are
  // renames to its own name; every request for the other channel finds the name taken.
  const forWinner = answers.filter((_, i) => ids[i % 2] === winner);
  const forLoser = answers.filter((_, i) => ids[i % 2] !== winner);
  assert.equal(tally(forWinner, 'Channel already has that name.'), 1);
  assert.equal(tally(forLoser, "Channel 'race target' already exists"), 0);
});

test('POST /users with one email at once: exactly one account', async () => {
  const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => t.owner.post('/users', { email: 'racer@example.com', password: 'a long enough password', full_name: `Racer ${i}` })));
  assert.equal(tally(answers, "Email 'racer@example.com' already in use"), 1);
});

test('user groups, channel folders, navigation views, profile fields, playgrounds and custom emoji created at once under one name: one each', async () => {
  const groups = await Promise.all(Array.from({ length: 20 }, () => t.owner.post('/user_groups/create', { name: 'racing group', description: 'd', members: [t.owner.userId] })));
  assert.equal(tally(groups, "User group 'racing group' already exists."), 1);

  const folders = await Promise.all(Array.from({ length: 20 }, () => t.owner.post('/channel_folders/create', { name: 'racing folder', description: '' })));
  assert.equal(tally(folders, 'Channel folder name already in use'), 1);

  const views = await Promise.all(Array.from({ length: 20 }, () => t.owner.post('/navigation_views', { fragment: 'narrow/channel/1-racing', is_pinned: true, name: 'Racing' })));
  assert.equal(tally(views, 'Navigation view already exists.'), 1);

  const fields = await Promise.all(Array.from({ length: 20 }, () => t.owner.post('/realm/profile_fields', { name: 'Racing field', field_type: 1, hint: '' })));
  assert.equal(tally(fields, 'A field with that label already exists.'), 1);

  const playgrounds = await Promise.all(Array.from({ length: 20 }, () => t.owner.post('/realm/playgrounds', { name: 'Racing', pygments_language: 'python', url_template: 'https://example.com/?q={code}' })));
  assert.equal(tally(playgrounds, 'Realm playground with this Realm, Pygments language and Name already exists.'), 1);

  const png = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a5f2b4f90000000049454e44ae426082', 'hex');
  const emoji = await Promise.all(Array.from({ length: 10 }, () => t.owner.upload('/realm/emoji/racing_emoji', [{ name: 'e.png', type: 'image/png', data: png }])));
  assert.equal(tally(emoji, 'A custom emoji with this name already exists.'), 1);
});

test('idempotent writes racing (alert words) all succeed and store the word once', async () => {
  const answers = await Promise.all(Array.from({ length: 20 }, () => t.owner.post('/users/me/alert_words', { alert_words: ['racing'] })));
  assert.equal(tally(answers, ''), answers.length);
  assert.deepEqual((await t.owner.get('/users/me/alert_words')).body.alert_words, ['racing']);
});

test('linkifiers: one per pattern, sequentially and when racing; a pattern longer than a b-tree entry fits the index', async () => {
  const add = (pattern: string) => t.owner.post('/realm/filters', { pattern, url_template: 'https://tracker.example.com/{id}' });
  const duplicate = 'Realm filter with this Realm and Pattern already exists.';
  const first = await add('RACE-(?P<id>[0-9]+)');
  assert.equal(first.status, 200);
  const again = await add('RACE-(?P<id>[0-9]+)');
  assert.deepEqual([again.status, again.body.msg], [400, duplicate]);
  // Changing another linkifier to an existing pattern is refused the same way.
  const other = await add('OTHER-(?P<id>[0-9]+)');
  const moved = await t.owner.patch(`/realm/filters/${other.body.id}`, { pattern: 'RACE-(?P<id>[0-9]+)', url_template: 'https://tracker.example.com/{id}' });
  assert.deepEqual([moved.status, moved.body.msg], [400, duplicate]);

  const answers = await Promise.all(Array.from({ length: 20 }, () => add('RACING-(?P<id>[0-9]+)')));
  assert.equal(tally(answers, duplicate), 1);

  const long = `${'€'.repeat(980)}(?P<id>[0-9]+)`; // 2,940 bytes: past a PostgreSQL b-tree entry
  const stored = await add(long);
  assert.equal(stored.status, 200, JSON.stringify(stored.body));
  assert.deepEqual([(await add(long)).body.msg], [duplicate]);
  const list = (await t.owner.get('/realm/linkifiers')).body.linkifiers.map((l: any) => l.pattern);
  assert.equal(list.filter((p: string) => p === 'RACING-(?P<id>[0-9]+)').length, 1);
  assert.ok(list.includes(long));
});
