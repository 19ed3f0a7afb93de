// Navigation views: built-in overrides and custom views, fragments with slashes, events.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type Client, type TestServer } from './helpers.js';

let t: TestServer;
let ann: Client;
before(async () => {
  t = await startTestServer();
  ann = await t.createUser({ name: 'Ann Navigator' });
});
after(async () => {
  await t.close();
});

test('custom views: add, list, rename, unpin, delete, with events', async () => {
  const reg = await ann.post('/register', { event_types: ['navigation_view'], fetch_event_types: ['navigation_views'] });
  assert.deepEqual(reg.body.navigation_views, []);
  const add = await ann.post('/navigation_views', { fragment: 'narrow/is/alerted', is_pinned: true, name: 'Alerts' });
  assert.equal(add.status, 200);
  const list = await ann.get('/navigation_views');
  assert.deepEqual(list.body.navigation_views, [{ fragment: 'narrow/is/alerted', is_pinned: true, name: 'Alerts' }]);
  const rename = await ann.patch('/navigation_views/narrow/is/alerted', { name: 'My alerts', is_pinned: false });
  assert.equal(rename.status, 200);
  const encoded = await ann.patch(`/navigation_views/${encodeURIComponent('narrow/is/alerted')}`, { is_pinned: true });
  assert.equal(encoded.status, 200, 'an encoded fragment names the same view');
  // do_update_navigation_view announces even a request that changes nothing.
  const nothing = await ann.patch('/navigation_views/narrow/is/alerted', {});
  assert.equal(nothing.status, 200);
  const del = await ann.delete('/navigation_views/narrow/is/alerted');
  assert.equal(del.status, 200);
  const evs = (await ann.get('/events', { queue_id: reg.body.queue_id, last_event_id: -1, dont_block: true })).body.events;
  assert.deepEqual(evs.map((e: any) => e.op), ['add', 'update', 'update', 'update', 'remove']);
  assert.deepEqual(evs[1].data, { is_pinned: false, name: 'My alerts' });
  assert.deepEqual([evs[3].fragment, evs[3].data], ['narrow/is/alerted', {}]);
  assert.equal(evs[3].fragment, 'narrow/is/alerted');
});

test('built-in views: pin or hide, never name; fragments with no stored view are 404', async () => {
  // get_navigation_view finds only stored views: a built-in one is configured with POST first.
  const unset = await ann.patch('/navigation_views/narrow/is/starred', { is_pinned: false });
  assert.deepEqual([unset.status, unset.body], [404, { result: 'error', code: 'BAD_REQUEST', msg: 'Navigation view does not exist.' }]);
  assert.deepEqual((await ann.get('/navigation_views')).body.navigation_views, [], 'nothing was stored');
  assert.equal((await ann.post('/navigation_views', { fragment: 'narrow/is/starred', is_pinned: true })).status, 200);
  const hide = await ann.patch('/navigation_views/narrow/is/starred', { is_pinned: false });
  assert.equal(hide.status, 200);
  const state = await ann.post('/register', { fetch_event_types: ['navigation_views'] });
  assert.deepEqual(state.body.navigation_views, [{ fragment: 'narrow/is/starred', is_pinned: false, name: null }]);
  const named = await ann.patch('/navigation_views/narrow/is/starred', { name: 'Stars' });
  assert.equal(named.status, 400);
  assert.equal(named.body.code, 'BAD_REQUEST');
  assert.equal(named.body.msg, 'Built-in views cannot have a custom name.');
  const namedAdd = await ann.post('/navigation_views', { fragment: 'inbox', is_pinned: true, name: 'Mail' });
  assert.equal(namedAdd.status, 400);
  const unknown = await ann.patch('/navigation_views/narrow/is/nothing', { is_pinned: true });
  assert.deepEqual([unknown.status, unknown.body.code, unknown.body.msg], [404, 'BAD_REQUEST', 'Navigation view does not exist.']);
  const unknownDelete = await ann.delete('/navigation_views/narrow/is/nothing');
  assert.equal(unknownDelete.status, 404);
  const blank = await ann.post('/navigation_views', { fragment: ' ', is_pinned: true, name: 'x' });
  assert.equal(blank.status, 400);
  // add_navigation_view declares is_pinned without a default.
  const unpinned = await ann.post('/navigation_views', { fragment: 'narrow/channel/8', name: 'Eight' });
  assert.deepEqual([unpinned.status, unpinned.body.code, unpinned.body.msg], [400, 'REQUEST_VARIABLE_MISSING', "Missing 'is_pinned' argument"]);
  const neither = await ann.post('/navigation_views', {});
  assert.equal(neither.body.msg, "Missing 'fragment' argument");
  const noName = await ann.post('/navigation_views', { fragment: 'narrow/channel/9', is_pinned: true });
  assert.equal(noName.status, 400);
  await ann.post('/navigation_views', { fragment: 'narrow/channel/9', is_pinned: true, name: 'Nine' });
  const dup = await ann.post('/navigation_views', { fragment: 'narrow/channel/9', is_pinned: true, name: 'Nine again' });
  assert.equal(dup.status, 400);
  const other = await t.createUser();
  assert.deepEqual((await other.get('/navigation_views')).body.navigation_views, [], 'views are personal');
  const wrongMethod = await ann.put('/navigation_views/narrow/is/starred', {});
  assert.equal(wrongMethod.status, 405);
});

test("names as Zulip's add_navigation_view and update_navigation_view: stripped, never blank, never another view's", async () => {
  const bo = await t.createUser({ name: 'Bo Namer' });
  const msg = async (res: Promise<{ status: number; body: any }>) => {
    const r = await res;
    return [r.status, r.body.msg];
  };
  assert.deepEqual(await msg(bo.post('/navigation_views', { fragment: 'narrow/channel/1', is_pinned: true })), [400, 'Custom views must have a valid name.']);
  assert.deepEqual(await msg(bo.post('/navigation_views', { fragment: 'narrow/channel/1', is_pinned: true, name: '  ' })), [400, 'name cannot be blank']);
  assert.deepEqual(await msg(bo.post('/navigation_views', { fragment: 'recent', is_pinned: true, name: 'Recent' })), [400, 'Built-in views cannot have a custom name.']);
  assert.equal((await bo.post('/navigation_views', { fragment: 'narrow/channel/1', is_pinned: true, name: ' One ' })).status, 200);
  assert.deepEqual((await bo.get('/navigation_views')).body.navigation_views, [{ fragment: 'narrow/channel/1', is_pinned: true, name: 'One' }]);
  assert.deepEqual(await msg(bo.post('/navigation_views', { fragment: 'narrow/channel/2', is_pinned: true, name: 'One' })), [400, 'Navigation view already exists.']);
  assert.equal((await bo.post('/navigation_views', { fragment: 'narrow/channel/2', is_pinned: true, name: 'Two' })).status, 200);
  assert.deepEqual(await msg(bo.patch('/navigation_views/narrow/channel/2', { name: 'One' })), [400, 'Navigation view already exists.']);
  assert.deepEqual(await msg(bo.patch('/navigation_views/narrow/channel/2', { name: '' })), [400, 'name cannot be blank']);
  // The name is checked before the view is looked up.
  assert.deepEqual(await msg(bo.patch('/navigation_views/narrow/channel/3', { name: 'Two' })), [400, 'Navigation view already exists.']);
  assert.equal((await bo.patch('/navigation_views/narrow/channel/2', { name: 'Deux' })).status, 200);
  assert.deepEqual((await bo.get('/navigation_views')).body.navigation_views.map((v: any) => v.name), ['One', 'Deux']);
});
