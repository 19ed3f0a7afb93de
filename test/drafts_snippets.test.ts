// Drafts and saved snippets over HTTP: validation, ids in submission order, events to the user's
// other clients, and privacy between users.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type Client, type TestServer, openQueue, queuedEvents } from './helpers.js';

let t: TestServer;
let ann: Client;
let bob: Client;
let channelId: number;
let secretId: number;
before(async () => {
  t = await startTestServer();
  ann = await t.createUser({ name: 'Ann Drafter' });
  bob = await t.createUser({ name: 'Bob Other' });
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'general' }], principals: [ann.userId, bob.userId] });
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'secret' }], invite_only: true });
  channelId = (await ann.get('/get_stream_id', { stream: 'general' })).body.stream_id;
  secretId = (await t.owner.get('/get_stream_id', { stream: 'secret' })).body.stream_id;
});
after(async () => {
  await t.close();
});


test('drafts: create several, ids in submission order, listed and sent to other clients', async () => {
  const q = await openQueue(ann, ['drafts'], ['drafts']);
  const res = await ann.post('/drafts', {
    drafts: [
      { type: 'stream', to: [channelId], topic: 'plans', content: 'first', timestamp: 1700000000 },
      { type: 'private', to: [bob.userId], topic: 'ignored', content: 'second' },
      { type: '', to: [], topic: '', content: 'third' },
    ],
  });
  assert.equal(res.status, 200);
  assert.equal(res.body.ids.length, 3);
  assert.ok(res.body.ids[0] < res.body.ids[1] && res.body.ids[1] < res.body.ids[2]);
  const list = await ann.get('/drafts');
  assert.equal(list.body.count, 3);
  assert.deepEqual(list.body.drafts.map((d: any) => d.content), ['first', 'second', 'third']);
  assert.equal(list.body.drafts[0].timestamp, 1700000000);
  assert.ok(list.body.drafts[1].timestamp > 1700000000, 'the server fills a missing timestamp');
  assert.equal(list.body.drafts[1].topic, '');
  const [add] = await queuedEvents(ann, q);
  assert.equal(add.type, 'drafts');
  assert.equal(add.op, 'add');
  assert.deepEqual(add.drafts.map((d: any) => d.id), res.body.ids);
  const state = await ann.post('/register', { fetch_event_types: ['drafts'] });
  assert.equal(state.body.drafts.length, 3);
  const others = await bob.get('/drafts');
  assert.equal(others.body.count, 0, "drafts are private to their owner");
});

test('drafts: validation', async () => {
  const two = await ann.post('/drafts', { drafts: [{ type: 'stream', to: [channelId, channelId + 1], topic: 't', content: 'x' }] });
  assert.equal(two.status, 400);
  assert.equal(two.body.msg, 'Must specify exactly 1 channel ID for channel messages');
  const none = await ann.post('/drafts', { drafts: [{ type: 'stream', to: [], topic: 't', content: 'x' }] });
  assert.equal(none.status, 400);
  const hidden = await ann.post('/drafts', { drafts: [{ type: 'stream', to: [secretId], topic: 't', content: 'x' }] });
  assert.equal(hidden.status, 400);
  const badUser = await ann.post('/drafts', { drafts: [{ type: 'private', to: [999999], topic: '', content: 'x' }] });
  assert.equal(badUser.status, 400);
  const badType = await ann.post('/drafts', { drafts: [{ type: 'email', to: [], topic: '', content: 'x' }] });
  assert.equal(badType.status, 400);
  const missing = await ann.post('/drafts', { drafts: [{ type: '', to: [], content: 'x' }] });
  assert.equal(missing.status, 400);
  const nul = await ann.post('/drafts', { drafts: [{ type: '', to: [], topic: '', content: 'a\u0000b' }] });
  assert.equal(nul.status, 400);
  const negative = await ann.post('/drafts', { drafts: [{ type: '', to: [], topic: '', content: 'x', timestamp: -5 }] });
  assert.equal(negative.status, 400);
  const notList = await ann.post('/drafts', { drafts: '{"type":""}' });
  assert.equal(notList.status, 400);
  const nothing = await ann.post('/drafts', {});
  assert.deepEqual(nothing.body.ids, []);
});

test("drafts as Zulip's DraftData and further_validated_draft_dict: blank, stripped and padded text, any timestamp, truncated topics, recipients as stored", async () => {
  const cy = await t.createUser({ name: 'Cy Checker' });
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'general' }], principals: [cy.userId] });
  const refused = async (draft: Record<string, unknown>) => {
    const res = await cy.post('/drafts', { drafts: [draft] });
    return [res.status, res.body.msg];
  };
  const plain = { type: '', to: [], topic: '', content: 'x' };
  assert.deepEqual(await refused({ ...plain, content: '  \n ' }), [400, 'drafts[0]["content"] cannot be blank']);
  assert.deepEqual(await refused({ ...plain, type: 'email' }), [400, 'Invalid drafts[0]["type"]']);
  assert.deepEqual(await refused({ ...plain, stray: 1 }), [400, 'Argument "stray" at drafts[0]["stray"] is unexpected']);
  const edit = await cy.patch('/drafts/1', { draft: { ...plain, content: '' } });
  assert.deepEqual([edit.status, edit.body.msg], [400, 'draft["content"] cannot be blank']);

  const long = 'x'.repeat(70);
  const res = await cy.post('/drafts', {
    drafts: [
      { type: 'stream', to: [channelId], topic: long, content: '\n\n  padded  \n', timestamp: 1700000000.75 },
      { type: 'private', to: [bob.userId, cy.userId, bob.userId], topic: '', content: 'to bob' },
      { type: 'private', to: [cy.userId], topic: '', content: 'to myself' },
      { type: 'private', to: [], topic: '', content: 'to nobody' },
    ],
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const drafts = (await cy.get('/drafts')).body.drafts;
  assert.deepEqual(
    drafts.map((d: any) => [d.type, d.to, d.topic, d.content]),
    [
      ['stream', [channelId], 'x'.repeat(57) + '...', 'padded'],
      ['private', [bob.userId], '', 'to bob'],
      ['private', [cy.userId], '', 'to myself'],
      ['', [], '', 'to nobody'],
    ],
  );
  assert.equal(drafts[0].timestamp, 1700000000);
});

test('drafts: edit and delete, with events; other users and unknown ids get 404', async () => {
  const created = await ann.post('/drafts', { drafts: [{ type: '', to: [], topic: '', content: 'v1' }] });
  const id = created.body.ids[0];
  const q = await openQueue(ann, ['drafts'], ['drafts']);
  const edit = await ann.patch(`/drafts/${id}`, { draft: { type: 'stream', to: [channelId], topic: 'edited', content: 'v2' } });
  assert.equal(edit.status, 200);
  const theirs = await bob.patch(`/drafts/${id}`, { draft: { type: '', to: [], topic: '', content: 'hijack' } });
  assert.equal(theirs.status, 404);
  assert.equal(theirs.body.msg, 'Draft does not exist');
  // do_edit_draft looks the draft up before checking the new recipients.
  const missingFirst = await bob.patch(`/drafts/${id}`, { draft: { type: 'stream', to: [999999], topic: 't', content: 'x' } });
  assert.deepEqual([missingFirst.status, missingFirst.body.msg], [404, 'Draft does not exist']);
  const del = await ann.delete(`/drafts/${id}`);
  assert.equal(del.status, 200);
  const again = await ann.delete(`/drafts/${id}`);
  assert.equal(again.status, 404);
  const evs = await queuedEvents(ann, q);
  assert.deepEqual(evs.map((e) => [e.type, e.op]), [['drafts', 'update'], ['drafts', 'remove']]);
  assert.equal(evs[0].draft.content, 'v2');
  assert.equal(evs[1].draft_id, id);
  const badId = await ann.delete('/drafts/abc');
  assert.equal(badId.status, 404);
});

test('drafts: listed by last edit, oldest first; /register newest first', async () => {
  const dana = await t.createUser({ name: 'Dana Drafts' });
  const ids = (await dana.post('/drafts', {
    drafts: [
      { type: '', to: [], topic: '', content: 'middle', timestamp: 1700000200 },
      { type: '', to: [], topic: '', content: 'oldest', timestamp: 1700000100 },
      { type: '', to: [], topic: '', content: 'edited', timestamp: 1700000000 },
    ],
  })).body.ids;
  // An edit moves a draft to the end: its time is the edit's.
  assert.equal((await dana.patch(`/drafts/${ids[2]}`, { draft: { type: '', to: [], topic: '', content: 'edited', timestamp: 1700000300 } })).status, 200);
  const list = await dana.get('/drafts');
  assert.deepEqual(list.body.drafts.map((d: any) => d.content), ['oldest', 'middle', 'edited']);
  const state = await dana.post('/register', { fetch_event_types: ['drafts'] });
  assert.deepEqual(state.body.drafts.map((d: any) => d.content), ['edited', 'middle', 'oldest']);
});

test('drafts: a user who turned synchronization off cannot use them', async () => {
  const carl = await t.createUser({ name: 'Carl NoSync' });
  assert.equal((await carl.patch('/settings', { enable_drafts_synchronization: false })).status, 200);
  const res = await carl.post('/drafts', { drafts: [{ type: '', to: [], topic: '', content: 'x' }] });
  assert.equal(res.status, 400);
  assert.equal(res.body.msg, 'User has disabled synchronizing drafts.');
  const list = await carl.get('/drafts');
  assert.equal(list.status, 400);
  const state = await carl.post('/register', { fetch_event_types: ['drafts'] });
  assert.deepEqual(state.body.drafts, []);
});

test('saved snippets: create, list, edit, delete, with events', async () => {
  const q = await openQueue(ann, ['saved_snippets'], ['saved_snippets']);
  const res = await ann.post('/saved_snippets', { title: 'Greeting', content: 'Hello **there**' });
  assert.equal(res.status, 200);
  const id = res.body.saved_snippet_id;
  const list = await ann.get('/saved_snippets');
  assert.equal(list.body.saved_snippets.length, 1);
  assert.equal(list.body.saved_snippets[0].title, 'Greeting');
  assert.equal(typeof list.body.saved_snippets[0].date_created, 'number');
  const edit = await ann.patch(`/saved_snippets/${id}`, { content: 'Hi' });
  assert.equal(edit.status, 200);
  const del = await ann.delete(`/saved_snippets/${id}`);
  assert.equal(del.status, 200);
  const evs = await queuedEvents(ann, q);
  assert.deepEqual(evs.map((e) => [e.type, e.op]), [['saved_snippets', 'add'], ['saved_snippets', 'update'], ['saved_snippets', 'remove']]);
  assert.equal(evs[1].saved_snippet.content, 'Hi');
  assert.equal(evs[1].saved_snippet.title, 'Greeting');
  assert.equal(evs[2].saved_snippet_id, id);
});

test('saved snippets: validation and privacy', async () => {
  const noTitle = await ann.post('/saved_snippets', { title: '  ', content: 'x' });
  assert.equal(noTitle.status, 400);
  assert.equal(noTitle.body.msg, 'title cannot be blank');
  const noContent = await ann.post('/saved_snippets', { title: 'T', content: '' });
  assert.equal(noContent.status, 400);
  assert.equal(noContent.body.msg, 'content cannot be blank');
  const missing = await ann.post('/saved_snippets', { title: 'T' });
  assert.equal(missing.body.code, 'REQUEST_VARIABLE_MISSING');
  // StringConstraints(strip_whitespace=True, max_length=…): stripped before the limit is counted.
  const long = await ann.post('/saved_snippets', { title: 'x'.repeat(61), content: 'c' });
  assert.deepEqual([long.status, long.body.msg], [400, 'title is too long (limit: 60 characters)']);
  const longContent = await ann.post('/saved_snippets', { title: 'T', content: 'c'.repeat(10001) });
  assert.deepEqual([longContent.status, longContent.body.msg], [400, 'content is too long (limit: 10000 characters)']);
  assert.equal((await ann.post('/saved_snippets', { title: ` ${'x'.repeat(60)} `, content: 'c' })).status, 200);
  const blankEdit = await ann.patch('/saved_snippets/1', { title: ' ' });
  assert.deepEqual([blankEdit.status, blankEdit.body.msg], [400, 'title cannot be blank']);
  const mine = await ann.post('/saved_snippets', { title: 'Mine', content: 'c' });
  const theirs = await bob.patch(`/saved_snippets/${mine.body.saved_snippet_id}`, { title: 'Stolen' });
  assert.equal(theirs.status, 404);
  assert.equal(theirs.body.msg, 'Saved snippet does not exist.');
  const theirDelete = await bob.delete(`/saved_snippets/${mine.body.saved_snippet_id}`);
  assert.equal(theirDelete.status, 404);
  // Zulip's edit_saved_snippet: nothing to change is success, without an event.
  const q = await openQueue(ann, ['saved_snippets'], ['saved_snippets']);
  const empty = await ann.patch(`/saved_snippets/${mine.body.saved_snippet_id}`, {});
  assert.deepEqual([empty.status, empty.body.msg], [200, '']);
  assert.deepEqual(await queuedEvents(ann, q), []);
  // Both texts are stored stripped.
  const spaced = await ann.post('/saved_snippets', { title: ' Spaced ', content: '  body  \n' });
  assert.equal((await ann.get('/saved_snippets')).body.saved_snippets.find((s: any) => s.id === spaced.body.saved_snippet_id).content, 'body');
  assert.equal((await ann.patch(`/saved_snippets/${spaced.body.saved_snippet_id}`, { content: ' new body ' })).status, 200);
  assert.equal((await ann.get('/saved_snippets')).body.saved_snippets.find((s: any) => s.id === spaced.body.saved_snippet_id).content, 'new body');
  assert.equal((await bob.get('/saved_snippets')).body.saved_snippets.length, 0);
});
