// The narrow language beyond channel/topic/sender: full-text search with Zulip's highlighting,
// has:, is:followed/resolved/muted, in:home, dm-including, with, near, negation, and the errors
// Zulip gives for bad operands and combinations; also the narrow of an event queue.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { Client, openQueue, queuedEvents, startTestServer, type TestServer, sendToChannel } from './helpers.js';
import { giveMessages, seedChannelHistory } from './beyond_api.js';

let t: TestServer;
let ann: Client;
let bob: Client;
let carl: Client;
let generalId: number;

before(async () => {
  t = await startTestServer();
  ann = await t.createUser({ name: 'Ann Lee' });
  bob = await t.createUser({ name: 'Bob Stone' });
  carl = await t.createUser({ name: 'Carl Oak' });
  for (const name of ['general', 'random']) {
    const res = await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name }], principals: [t.owner.userId, ann.userId, bob.userId] });
    assert.equal(res.status, 200, JSON.stringify(res.body));
  }
  generalId = (await t.owner.get('/get_stream_id', { stream: 'general' })).body.stream_id;
});
after(async () => {
  await t.close();
});


async function dm(c: Client, to: number[], content: string): Promise<number> {
  const res = await c.post('/messages', { type: 'private', to, content });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.id;
}

async function search(c: Client, narrow: unknown[], extra: Record<string, unknown> = {}) {
  const res = await c.get('/messages', { anchor: 'newest', num_before: 100, num_after: 0, narrow, ...extra } as unknown as Record<string, object>);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

const ids = (body: any): number[] => body.messages.map((m: any) => m.id);
const s = (operand: string, negated = false) => ({ operator: 'search', operand, negated });

test('search: words ANDed with stemming, the topic counts, phrases, and matches highlighted as Zulip returns them', async () => {
  const m1 = await sendToChannel(bob, 'general', 'gardening', 'The cats were running across the lawn');
  const m2 = await sendToChannel(bob, 'general', 'gardening', 'A cat sleeps in the sun');
  const m3 = await sendToChannel(bob, 'random', 'Cats & <dogs>', 'Nothing about pets here');
  const m4 = await sendToChannel(bob, 'general', 'misc', 'big dogs bark, dogs big');

  assert.deepEqual(ids(await search(ann, [s('cat')])), [m1, m2, m3]);
  assert.deepEqual(ids(await search(ann, [s('cat run')])), [m1]);
  // Two search terms are one search.
  assert.deepEqual(ids(await search(ann, [s('cats'), s('lawn')])), [m1]);
  assert.deepEqual(ids(await search(ann, [s('gardening sun')])), [m2]);
  assert.deepEqual(ids(await search(ann, [s('dogs big')])), [m3, m4].filter((id) => id === m4));
  assert.deepEqual(ids(await search(ann, [s('"big dogs"')])), [m4]);
  assert.deepEqual(ids(await search(ann, [s('"dogs big" bark')])), [m4]);
  assert.deepEqual(ids(await search(ann, [s('"cats were jumping"')])), []);
  // Stop words are left out (as PostgreSQL's English configuration does) and not highlighted.
  const withStopWords = await search(ann, [s('the cats were running')]);
  assert.deepEqual(ids(withStopWords), [m1]);
  assert.equal(withStopWords.messages[0].match_content, '<p>The <span class="highlight">cats</span> were <span class="highlight">running</span> across the lawn</p>');
  assert.deepEqual(ids(await search(ann, [s('the of and')])), [], 'only stop words: nothing matches');
  // Combined with other operators, and negated.
  assert.deepEqual(ids(await search(ann, [{ operator: 'channel', operand: 'general' }, s('cat')])), [m1, m2]);
  const notCats = ids(await search(ann, [{ operator: 'channel', operand: 'general' }, s('cat', true)]));
  assert.ok(notCats.includes(m4) && !notCats.includes(m1) && !notCats.includes(m2));

  const body = await search(ann, [s('running cat')]);
  const [hit] = body.messages;
  assert.equal(hit.id, m1);
  assert.equal(hit.match_content, '<p>The <span class="highlight">cats</span> were <span class="highlight">running</span> across the lawn</p>');
  assert.equal(hit.match_subject, 'gardening');
  assert.equal(hit.content, '<p>The cats were running across the lawn</p>', 'content itself is unchanged');
  const topicHit = (await search(ann, [s('cats')])).messages.find((m: any) => m.id === m3);
  assert.equal(topicHit.match_subject, '<span class="highlight">Cats</span> &amp; &lt;dogs&gt;');
  // Without a search there are no match fields.
  const plain = await search(ann, [{ operator: 'channel', operand: 'general' }]);
  assert.ok(plain.messages.every((m: any) => !('match_content' in m) && !('match_subject' in m)));
});

test('search follows edits and deletions, and never sees what the viewer cannot read', async () => {
  const id = await sendToChannel(bob, 'general', 'edits', 'original wording zebra');
  assert.deepEqual(ids(await search(ann, [s('zebra')])), [id]);
  assert.equal((await bob.patch(`/messages/${id}`, { content: 'changed wording giraffe', topic: 'safari', send_notification_to_new_thread: false })).status, 200);
  assert.deepEqual(ids(await search(ann, [s('zebra')])), []);
  assert.deepEqual(ids(await search(ann, [s('giraffe')])), [id]);
  assert.deepEqual(ids(await search(ann, [s('safari')])), [id]);
  // Carl is not subscribed and the message is not in his rows; a private DM is not his either.
  assert.deepEqual(ids(await search(carl, [s('giraffe')])), []);
  const secret = await dm(ann, [bob.userId], 'secret okapi');
  assert.deepEqual(ids(await search(carl, [s('okapi')])), []);
  assert.deepEqual(ids(await search(bob, [s('okapi')])), [secret]);
  assert.equal((await t.owner.delete(`/messages/${id}`)).status, 200);
  assert.deepEqual(ids(await search(ann, [s('giraffe')])), []);
});

test('hostile search input gives a clean answer, never a 500', async () => {
  await sendToChannel(bob, 'general', 'syntax', 'plain words only');
  const hostile = ['"', '""', '"unclosed', 'a OR b', 'NOT plain', 'plain AND', 'NEAR(plain words)', 'content:plain', 'plain*', '^plain', '(', ')', "'; drop table messages; --", '\\', '%', '_', '-plain', '+', '{content}: x', '💥 plain', 'x'.repeat(5000), '&amp;', '<script>'];
  for (const q of hostile) {
    const res = await ann.get('/messages', { anchor: 'newest', num_before: 5, num_after: 0, narrow: [s(q)] });
    assert.equal(res.status, 200, `${q}: ${JSON.stringify(res.body)}`);
    assert.equal(res.body.result, 'success');
  }
  // Operators are words like any other: "plain OR nothing" needs all three.
  assert.deepEqual(ids(await search(ann, [s('plain OR nothing')])), []);
  assert.equal((await search(ann, [s('plain*')])).messages.length, 1);
  assert.deepEqual(ids(await search(ann, [s('!!! ...')])), [], 'no words: nothing matches');
  for (const [operand, msg] of [
    ['', 'operand cannot be blank.'],
    ['   ', 'operand cannot be blank.'],
  ] as const) {
    const res = await ann.get('/messages', { anchor: 'newest', num_before: 1, narrow: [s(operand)] });
    assert.deepEqual([res.status, res.body.result, res.body.msg], [400, 'error', msg]);
  }
  const notString = await ann.get('/messages', { anchor: 'newest', num_before: 1, narrow: [{ operator: 'search', operand: 5 }] });
  assert.deepEqual([notString.status, notString.body.msg], [400, 'operand is not a string']);
});

test('has:link, has:attachment, has:image, negated, and following edits', async () => {
  const link = await sendToChannel(bob, 'general', 'has', 'read https://example.com/docs please');
  const upload = await sendToChannel(bob, 'general', 'has', 'the [report](/user_uploads/1/ab/report.pdf)');
  const plain = await sendToChannel(bob, 'general', 'has', 'nothing linked');
  const image = await sendToChannel(bob, 'general', 'has', 'https://example.com/cat.png');
  const inHas = (op: string, negated = false) => [{ operator: 'topic', operand: 'has' }, { operator: 'has', operand: op, negated }];
  assert.deepEqual(ids(await search(ann, inHas('link'))), [link, upload, image]);
  assert.deepEqual(ids(await search(ann, inHas('attachment'))), [upload]);
  assert.deepEqual(ids(await search(ann, inHas('image'))), [image], 'an image preview makes has:image');
  assert.deepEqual(ids(await search(ann, inHas('reaction'))), []);
  assert.equal((await ann.post(`/messages/${upload}/reactions`, { emoji_name: 'octopus' })).status, 200);
  assert.deepEqual(ids(await search(ann, inHas('reaction'))), [upload]);
  assert.deepEqual(ids(await search(ann, inHas('reaction', true))), [link, plain, image]);
  assert.equal((await bob.delete(`/messages/${image}`)).status, 200);
  assert.deepEqual(ids(await search(ann, inHas('link', true))), [plain]);
  assert.equal((await bob.patch(`/messages/${plain}`, { content: 'now with http://example.org' })).status, 200);
  assert.deepEqual(ids(await search(ann, inHas('link'))), [link, upload, plain]);
  assert.equal((await bob.patch(`/messages/${link}`, { content: 'no link any more' })).status, 200);
  assert.deepEqual(ids(await search(ann, inHas('link'))), [upload, plain]);
  const bad = await ann.get('/messages', { anchor: 'newest', num_before: 1, narrow: [{ operator: 'has', operand: 'kittens' }] });
  assert.deepEqual([bad.status, bad.body.code, bad.body.msg], [400, 'BAD_NARROW', "Invalid narrow operator: unknown 'has' operand kittens"]);
});

test('is:resolved, is:followed, is:muted and in:home follow the viewer\'s topic and channel settings', async () => {
  const resolved = await sendToChannel(bob, 'random', '✔ fixed bug', 'done');
  const followed = await sendToChannel(bob, 'random', 'roadmap', 'plans');
  const mutedTopic = await sendToChannel(bob, 'random', 'noise', 'chatter');
  const inRandom = (extra: Record<string, unknown>) => [{ operator: 'channel', operand: 'random' }, extra];
  assert.deepEqual(ids(await search(ann, inRandom({ operator: 'is', operand: 'resolved' }))), [resolved]);
  const randomId = (await t.owner.get('/get_stream_id', { stream: 'random' })).body.stream_id;
  assert.equal((await ann.post('/user_topics', { stream_id: randomId, topic: 'roadmap', visibility_policy: 3 })).status, 200);
  assert.equal((await ann.post('/user_topics', { stream_id: randomId, topic: 'NOISE', visibility_policy: 1 })).status, 200);
  assert.deepEqual(ids(await search(ann, [{ operator: 'is', operand: 'followed' }])), [followed]);
  assert.deepEqual(ids(await search(t.owner, [{ operator: 'is', operand: 'followed' }])), [], "follows are the viewer's own");
  assert.deepEqual(ids(await search(ann, [{ operator: 'is', operand: 'muted' }])), [mutedTopic]);
  const home = ids(await search(ann, inRandom({ operator: 'in', operand: 'home' })));
  assert.ok(home.includes(followed) && !home.includes(mutedTopic));
  const notMuted = ids(await search(ann, inRandom({ operator: 'is', operand: 'muted', negated: true })));
  assert.deepEqual(notMuted, home);
  // Muting the channel mutes its topics, except followed (or unmuted) ones.
  const mute = await ann.post('/users/me/subscriptions/properties', { subscription_data: [{ stream_id: randomId, property: 'is_muted', value: true }] });
  assert.equal(mute.status, 200, JSON.stringify(mute.body));
  const muted = ids(await search(ann, inRandom({ operator: 'is', operand: 'muted' })));
  assert.ok(muted.includes(resolved) && muted.includes(mutedTopic) && !muted.includes(followed));
  const bad = await ann.get('/messages', { anchor: 'newest', num_before: 1, narrow: [{ operator: 'in', operand: 'space' }] });
  assert.deepEqual([bad.status, bad.body.code, bad.body.msg], [400, 'BAD_NARROW', "Invalid narrow operator: unknown 'in' operand space"]);
});

test('dm-including, group-pm-with, with, near and id', async () => {
  const annBob = await dm(ann, [bob.userId], 'hi bob');
  const group = await dm(ann, [bob.userId, carl.userId], 'hi all');
  const annCarl = await dm(ann, [carl.userId], 'hi carl');
  const self = await dm(ann, [ann.userId], 'note to self');
  const inc = (operand: unknown, operator = 'dm-including') => [{ operator, operand }];
  // Only the messages of this test (an earlier one sent Bob a DM too).
  const recent = (body: any) => ids(body).filter((id) => id >= annBob);
  assert.deepEqual(recent(await search(ann, inc(bob.userId))), [annBob, group]);
  assert.deepEqual(recent(await search(ann, inc(carl.email))), [group, annCarl]);
  const allMine = ids(await search(ann, inc(ann.userId)));
  for (const id of [annBob, group, annCarl, self]) assert.ok(allMine.includes(id));
  assert.deepEqual(recent(await search(ann, inc(bob.userId, 'group-pm-with'))), [group]);
  assert.deepEqual(recent(await search(bob, inc(carl.userId))), [group], "only the viewer's own conversations");
  const negated = ids(await search(ann, [{ operator: 'is', operand: 'dm' }, { operator: 'dm-including', operand: bob.userId, negated: true }]));
  assert.ok(negated.includes(annCarl) && !negated.includes(annBob) && !negated.includes(group));
  const unknown = await ann.get('/messages', { anchor: 'newest', num_before: 1, narrow: inc(999999) });
  assert.deepEqual([unknown.status, unknown.body.code], [400, 'BAD_NARROW']);

  // with: the conversation of the message, replacing channel/topic/dm terms.
  const a = await sendToChannel(bob, 'general', 'with-topic', 'one');
  const b = await sendToChannel(bob, 'general', 'with-topic', 'two');
  await sendToChannel(bob, 'general', 'elsewhere', 'three');
  assert.deepEqual(ids(await search(ann, [{ operator: 'with', operand: a }])), [a, b]);
  assert.deepEqual(ids(await search(ann, [{ operator: 'channel', operand: 'random' }, { operator: 'topic', operand: 'x' }, { operator: 'with', operand: String(b) }])), [a, b]);
  assert.deepEqual(ids(await search(ann, [{ operator: 'with', operand: group }])), [group]);
  assert.deepEqual(ids(await search(ann, [{ operator: 'with', operand: self }])), [self]);
  // A message Carl cannot read: an error, unless the narrow already names a conversation.
  const noAccess = await carl.get('/messages', { anchor: 'newest', num_before: 5, narrow: [{ operator: 'with', operand: annBob }] });
  assert.deepEqual([noAccess.status, noAccess.body.code, noAccess.body.msg], [400, 'BAD_NARROW', "Invalid narrow operator: Invalid 'with' operator"]);
  const kept = await carl.get('/messages', { anchor: 'newest', num_before: 5, narrow: [{ operator: 'dm', operand: [ann.userId] }, { operator: 'with', operand: annBob }] });
  assert.deepEqual(ids(kept.body), [annCarl]);
  const twice = await ann.get('/messages', { anchor: 'newest', num_before: 5, narrow: [{ operator: 'with', operand: a }, { operator: 'with', operand: b }] });
  assert.deepEqual([twice.status, twice.body.msg], [400, "Invalid narrow operator combination: Duplicate 'with' operators."]);

  // near only hints the anchor; id filters.
  assert.deepEqual(ids(await search(ann, [{ operator: 'channel', operand: generalId }, { operator: 'topic', operand: 'with-topic' }, { operator: 'near', operand: String(a) }])), [a, b]);
  assert.deepEqual(ids(await search(ann, [{ operator: 'id', operand: b }])), [b]);
  const badId = await ann.get('/messages', { anchor: 'newest', num_before: 1, narrow: [{ operator: 'id', operand: 'abc' }] });
  assert.deepEqual([badId.status, badId.body.code, badId.body.msg], [400, 'BAD_NARROW', 'Invalid narrow operator: Invalid message ID']);
});

test('combinations Zulip refuses, and ones it allows', async () => {
  const bad = [
    [{ operator: 'channel', operand: 'general' }, { operator: 'dm-including', operand: bob.userId }],
    [{ operator: 'topic', operand: 'a' }, { operator: 'is', operand: 'dm' }],
    [{ operator: 'is', operand: 'dm', negated: true }, { operator: 'dm', operand: [bob.userId] }],
  ];
  for (const narrow of bad) {
    const res = await ann.get('/messages', { anchor: 'newest', num_before: 1, narrow });
    assert.deepEqual([res.status, res.body.code, res.body.msg], [400, 'BAD_NARROW', 'Invalid narrow operator: No message can be both a channel message and direct message'], JSON.stringify(narrow));
  }
  // Negated channel terms do not make a channel narrow.
  const ok = await ann.get('/messages', { anchor: 'newest', num_before: 1, narrow: [{ operator: 'channel', operand: 'general', negated: true }, { operator: 'is', operand: 'dm' }] });
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
  const notString = await ann.get('/messages', { anchor: 'newest', num_before: 1, narrow: [{ operator: 'is', operand: 3 }] });
  assert.deepEqual([notString.status, notString.body.msg], [400, 'operand is not a string']);
});

test('a queue registered with a narrow gets the message events that match it, judged with the flags', async () => {
  const reg = async (narrow: unknown[]) => {
    const res = await ann.post('/register', { event_types: ['message'], narrow });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.queue_id as string;
  };
  const resolvedQ = await reg([['is', 'resolved']]);
  const mentionedQ = await reg([['is', 'mentioned']]);
  const unreadQ = await reg([['is', 'unread'], ['channel', 'general']]);
  const plainQ = await openQueue(ann, ['message']);
  const r = await sendToChannel(bob, 'general', '✔ solved', 'ok');
  const m = await sendToChannel(bob, 'general', 'talk', '@**Ann Lee** look');
  const ownRes = await ann.post('/messages', { type: 'stream', to: 'general', topic: 'talk', content: 'mine, so read', read_by_sender: true });
  const own = ownRes.body.id;
  const got = async (q: string) => (await queuedEvents(ann, q)).filter((e) => e.type === 'message').map((e) => e.message.id);
  assert.deepEqual(await got(resolvedQ), [r]);
  assert.deepEqual(await got(mentionedQ), [m]);
  assert.deepEqual(await got(unreadQ), [r, m]);
  assert.deepEqual(await got(plainQ), [r, m, own]);
});

test('channels:public reads the history of every public channel, never a private one, and not for guests', async () => {
  const pub = await sendToChannel(bob, 'general', 'public-history', 'quokka sighting');
  const priv = await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'hidden' }], invite_only: true, principals: [t.owner.userId, bob.userId] });
  assert.equal(priv.status, 200, JSON.stringify(priv.body));
  const secret = await sendToChannel(bob, 'hidden', 'public-history', 'quokka secret');
  // Carl is in no channel: the public channel's message is readable through channels:public only.
  assert.deepEqual(ids(await search(carl, [s('quokka')])), []);
  const found = await search(carl, [{ operator: 'channels', operand: 'public' }, s('quokka')]);
  assert.deepEqual(ids(found), [pub]);
  assert.deepEqual(found.messages[0].flags, ['read', 'historical']);
  assert.ok(!ids(await search(bob, [{ operator: 'channels', operand: 'public' }, s('quokka')])).includes(secret));
  assert.deepEqual(ids(await search(bob, [{ operator: 'channels', operand: 'public', negated: true }, s('quokka')])), [secret]);
  const guest = await t.createUser({ role: 'guest', name: 'Gus Guest' });
  assert.deepEqual(ids(await search(guest, [{ operator: 'streams', operand: 'public' }, s('quokka')])), []);
});

test('a queue narrow refuses operators Zulip cannot judge on events', async () => {
  for (const [narrow, msg] of [
    [[['search', 'cats']], 'Operator search not supported.'],
    [[['has', 'link']], 'Operator has not supported.'],
    [[['is', 'followed']], 'Operand followed not supported.'],
  ] as const) {
    const res = await ann.post('/register', { event_types: ['message'], narrow });
    assert.deepEqual([res.status, res.body.code, res.body.msg], [400, 'BAD_REQUEST', msg]);
  }
});

test('the first unread anchor skips muted topics, and muted channels unless narrowed to them', async () => {
  const viewer = await t.createUser({ name: 'Vera Vine' });
  const sub = await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'quiet' }, { name: 'loud' }], principals: [viewer.userId, bob.userId] });
  assert.equal(sub.status, 200, JSON.stringify(sub.body));
  const quietId = (await t.owner.get('/get_stream_id', { stream: 'quiet' })).body.stream_id;
  const loudId = (await t.owner.get('/get_stream_id', { stream: 'loud' })).body.stream_id;
  // The channels' channel-created messages are unread for Vera too.
  assert.equal((await viewer.post('/mark_all_as_read', {})).status, 200);
  const inQuiet = await sendToChannel(bob, 'quiet', 'anything', 'in a muted channel');
  const mutedTopic = await sendToChannel(bob, 'loud', 'boring', 'in a muted topic');
  const wanted = await sendToChannel(bob, 'loud', 'news', 'the first that counts');
  assert.equal((await viewer.post('/users/me/subscriptions/properties', { subscription_data: [{ stream_id: quietId, property: 'is_muted', value: true }] })).status, 200);
  assert.equal((await viewer.post('/user_topics', { stream_id: loudId, topic: 'boring', visibility_policy: 1 })).status, 200);
  const anchorOf = async (narrow: unknown[]) => (await search(viewer, narrow, { anchor: 'first_unread', num_before: 0, num_after: 0 })).anchor;
  assert.equal(await anchorOf([]), wanted);
  assert.equal(await anchorOf([{ operator: 'channel', operand: 'loud' }]), wanted);
  assert.equal(await anchorOf([{ operator: 'channel', operand: 'quiet' }]), inQuiet);
  assert.equal(await anchorOf([{ operator: 'channel', operand: 'loud' }, { operator: 'topic', operand: 'boring' }]), 10000000000000000);
  assert.ok(mutedTopic < wanted);
});

// Correctness over a large history; the speed of search is the benchmark's to measure.
test('search over a large history finds the rare words and pages the common ones', { timeout: 120_000 }, async () => {
  const reader = await t.createUser({ name: 'Rita Reader' });
  const words = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel'];
  await seedChannelHistory(t, {
    channelId: generalId, senderId: bob.userId, readerId: reader.userId, flags: 1, count: 20_000,
    topic: (n) => `load ${n % 50}`, content: (n) => `${words[n % 8]} ${words[(n * 7) % 8]} filler text number ${n}`,
  });
  const wanted: number[] = [];
  for (let i = 0; i < 3; i++) wanted.push(await sendToChannel(bob, 'general', 'needle', `a rare xylophone ${i}`));
  // Rita received only the bulk rows; give her the needles too.
  await giveMessages(t, reader.userId, wanted, 0);
  // The planner's statistics after a bulk load, as autovacuum would gather them.
  await sql`ANALYZE`.execute(t.server.services.database.db);
  await search(reader, [s('xylophone')]);
  for (let i = 0; i < 3; i++) assert.deepEqual(ids(await search(reader, [s('rare xylophone')])), wanted);
  // A common word answers with the newest page.
  const common = await search(reader, [s('alpha filler')], { num_before: 50 });
  assert.equal(common.messages.length, 50);
});
