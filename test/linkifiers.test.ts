// Linkifiers: validation (pattern, URL template, reverse template), order, events, rendering.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type Client, type TestServer } from './helpers.js';

let t: TestServer;
let member: Client;
before(async () => {
  t = await startTestServer();
  member = await t.createUser({ name: 'Lin Kifier' });
});
after(async () => {
  await t.close();
});

const issue = {
  pattern: '#(?P<id>[0-9]+)',
  url_template: 'https://github.com/zulip/zulip/issues/{id}',
  example_input: '#123',
  reverse_template: '#{id}',
};

test('add, list, render with, reorder, edit and delete linkifiers, with events', async () => {
  const reg = await member.post('/register', { event_types: ['realm_linkifiers'], fetch_event_types: ['realm_linkifiers', 'realm_filters'], client_capabilities: { linkifier_url_template: true } });
  assert.deepEqual(reg.body.realm_linkifiers, []);
  assert.deepEqual(reg.body.realm_filters, [], 'the pre-template form is always empty, as in Zulip');
  const res = await t.owner.post('/realm/filters', issue);
  assert.equal(res.status, 200);
  const id = res.body.id;
  const list = (await member.get('/realm/linkifiers')).body.linkifiers;
  assert.deepEqual(list, [{ id, ...issue, alternative_url_templates: [] }]);
  const rendered = await member.post('/messages/render', { content: 'Fixed in #42, see `#7` and [#9](https://x.example.com).' });
  assert.equal(rendered.body.rendered, '<p>Fixed in <a href="https://github.com/zulip/zulip/issues/42">#42</a>, see <code>#7</code> and <a href="https://x.example.com">#9</a>.</p>');
  const second = await t.owner.post('/realm/filters', { pattern: 'PR(?P<num>[0-9]+)', url_template: 'https://example.com/pull/{num}' });
  assert.equal((await t.owner.patch('/realm/linkifiers', { ordered_linkifier_ids: [second.body.id, id] })).status, 200);
  assert.deepEqual((await member.get('/realm/linkifiers')).body.linkifiers.map((l: any) => l.id), [second.body.id, id]);
  assert.equal((await t.owner.patch('/realm/linkifiers', { ordered_linkifier_ids: [id] })).status, 400, 'every linkifier exactly once');
  // check_reorder_linkifiers names a repeated id first.
  const repeated = await t.owner.patch('/realm/linkifiers', { ordered_linkifier_ids: [id, id] });
  assert.equal(repeated.body.msg, 'The ordered list must not contain duplicated linkifiers');
  const edit = await t.owner.patch(`/realm/filters/${id}`, { pattern: 'T(?P<id>[0-9]+)', url_template: 'https://tickets.example.com/{id}', example_input: '', reverse_template: '' });
  assert.equal(edit.status, 200);
  const stored = await t.server.services.database.db.selectFrom('linkifiers').select(['example_input', 'reverse_template']).where('id', '=', id).executeTakeFirstOrThrow();
  assert.equal(stored.example_input, null, 'an empty string resets to null');
  assert.equal(stored.reverse_template, null);
  const listed = (await member.get('/realm/linkifiers')).body.linkifiers.find((l: any) => l.id === id);
  assert.deepEqual([listed.example_input, listed.reverse_template], [null, null], 'and is listed as null');
  assert.equal((await member.post('/messages/render', { content: 'see T5' })).body.rendered, '<p>see <a href="https://tickets.example.com/5">T5</a></p>');
  const legacy = await member.get('/realm/filters');
  assert.deepEqual(legacy.body.filters.map((f: any) => f[2]), [second.body.id, id]);
  assert.equal((await t.owner.delete(`/realm/filters/${id}`)).status, 200);
  assert.equal((await t.owner.delete(`/realm/filters/${id}`)).status, 400);
  const evs = (await member.get('/events', { queue_id: reg.body.queue_id, last_event_id: -1, dont_block: true })).body.events;
  assert.deepEqual(evs.map((e: any) => e.realm_linkifiers.length), [1, 2, 2, 2, 1]);
  assert.deepEqual(evs[0].realm_linkifiers[0], { id, ...issue, alternative_url_templates: [] }, 'events carry the level-494 fields');
  const sent = await member.post('/messages', { type: 'direct', to: [t.owner.userId], content: 'look at PR77' });
  const m = await member.get(`/messages/${sent.body.id}`);
  assert.match(m.body.message.content, /<a href="https:\/\/example\.com\/pull\/77">PR77<\/a>/);
});

test("linkifier endpoints are @require_realm_admin; reordering none changes nothing (Zulip's zerver/views/realm_linkifiers.py)", async () => {
  // The role is checked before the parameters.
  for (const res of [await member.post('/realm/filters', {}), await member.patch('/realm/filters/1', {}), await member.patch('/realm/linkifiers', {})]) {
    assert.deepEqual([res.status, res.body.msg], [400, 'Must be an organization administrator']);
  }
  const other = await t.createOrg('No Linkifiers');
  const q = await other.owner.post('/register', { event_types: ['realm_linkifiers'] });
  assert.equal((await other.owner.patch('/realm/linkifiers', { ordered_linkifier_ids: [] })).status, 200);
  const evs = (await other.owner.get('/events', { queue_id: q.body.queue_id, last_event_id: -1, dont_block: true })).body.events;
  assert.deepEqual(evs, [], 'no linkifiers, no event');
});

test('validation: permission, pattern, template groups, reverse round trip', async () => {
  const post = (c: Client, body: Record<string, string>) => c.post('/realm/filters', body);
  assert.equal((await post(member, issue)).status, 400, 'administrators only');
  assert.equal((await post(t.owner, { ...issue, pattern: '(?P<id>[0-9]+' })).status, 400, 'the pattern must compile');
  assert.equal((await post(t.owner, { ...issue, pattern: '(a)\\1' })).status, 400, 'backreferences are not RE2');
  assert.equal((await post(t.owner, { ...issue, url_template: 'https://x.example.com/{other}' })).status, 400, 'template variables are groups');
  assert.equal((await post(t.owner, { ...issue, url_template: 'https://x.example.com/static' })).status, 400, 'every group is used');
  assert.equal((await post(t.owner, { ...issue, url_template: 'javascript:alert({id})' })).status, 400);
  assert.equal((await post(t.owner, { ...issue, example_input: 'no match' })).status, 400, 'the example matches the pattern');
  assert.equal((await post(t.owner, { ...issue, reverse_template: 'issue {id}' })).status, 400, 'the reverse template reproduces the example');
  assert.equal((await post(t.owner, { pattern: issue.pattern, url_template: issue.url_template, reverse_template: '#{id}' })).status, 400, 'a reverse template needs an example');
  const braces = await post(t.owner, { pattern: '\\{(?P<k>[a-z]+)\\}', url_template: 'https://k.example.com/{k}', example_input: '{abc}', reverse_template: '{{{k}}}' });
  assert.equal(braces.status, 200, '{{ and }} stand for literal braces');
  const alt = await post(t.owner, { pattern: 'Z(?P<n>[0-9]+)', url_template: 'https://z.example.com/{n}', alternative_url_templates: JSON.stringify(['https://z2.example.com/{n}']) });
  assert.equal(alt.status, 200);
  assert.equal((await post(t.owner, { pattern: 'Y(?P<n>[0-9]+)', url_template: 'https://y.example.com/{n}', alternative_url_templates: JSON.stringify(['not a template {']) })).status, 400);
});

// A hang guard (the time-out): RE2 keeps this linear; a backtracking engine would not finish.
test('a hostile pattern and input render', { timeout: 60_000 }, async () => {
  const res = await t.owner.post('/realm/filters', { pattern: '(?P<x>(a+)+)b', url_template: 'https://evil.example.com/{x}' });
  assert.equal(res.status, 200, 'RE2 runs this pattern in linear time, so it may stay');
  const out = await member.post('/messages/render', { content: 'a'.repeat(9000) + 'c' });
  assert.equal(out.status, 200);
});
