// Channel folders: administrators create, rename, archive and order them; channels move in and out.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type Client, type TestServer } from './helpers.js';

let t: TestServer;
let member: Client;
before(async () => {
  t = await startTestServer();
  member = await t.createUser({ name: 'Fay Folder' });
});
after(async () => {
  await t.close();
});

test('folders: create, list, update, reorder, archive, with events', async () => {
  const reg = await member.post('/register', { event_types: ['channel_folder'], fetch_event_types: ['channel_folders'] });
  assert.deepEqual(reg.body.channel_folders, []);
  const a = await t.owner.post('/channel_folders/create', { name: 'Engineering', description: 'All **engineering**' });
  assert.equal(a.status, 200);
  const b = await t.owner.post('/channel_folders/create', { name: 'Design' });
  const list = await member.get('/channel_folders');
  assert.deepEqual(list.body.channel_folders.map((f: any) => [f.name, f.order]), [['Engineering', 0], ['Design', 1]]);
  assert.equal(list.body.channel_folders[0].rendered_description, '<p>All <strong>engineering</strong></p>');
  assert.equal((await t.owner.patch(`/channel_folders/${a.body.channel_folder_id}`, { name: 'Eng' })).status, 200);
  assert.equal((await t.owner.patch('/channel_folders', { order: [b.body.channel_folder_id, a.body.channel_folder_id] })).status, 200);
  assert.deepEqual((await member.get('/channel_folders')).body.channel_folders.map((f: any) => f.name), ['Design', 'Eng']);
  assert.equal((await t.owner.patch(`/channel_folders/${b.body.channel_folder_id}`, { is_archived: true })).status, 200);
  assert.deepEqual((await member.get('/channel_folders')).body.channel_folders.map((f: any) => f.name), ['Eng']);
  assert.equal((await member.get('/channel_folders', { include_archived: true })).body.channel_folders.length, 2);
  const evs = (await member.get('/events', { queue_id: reg.body.queue_id, last_event_id: -1, dont_block: true })).body.events;
  assert.deepEqual(evs.map((e: any) => e.op), ['add', 'add', 'update', 'reorder', 'update']);
  assert.deepEqual(evs[2].data, { name: 'Eng' });
});

test('folders: permission and validation', async () => {
  const denied = await member.post('/channel_folders/create', { name: 'Mine' });
  assert.equal(denied.status, 400);
  assert.equal(denied.body.code, 'UNAUTHORIZED_PRINCIPAL');
  assert.equal((await t.owner.post('/channel_folders/create', { name: ' ' })).status, 400);
  assert.equal((await t.owner.post('/channel_folders/create', { name: 'x'.repeat(61) })).status, 400);
  assert.equal((await t.owner.post('/channel_folders/create', { name: 'eng' })).status, 400, 'names are unique, case-insensitively');
  assert.equal((await t.owner.patch('/channel_folders/999999', { name: 'x' })).status, 400);
  assert.equal((await t.owner.patch('/channel_folders', { order: [1] })).status, 400);
  assert.equal((await member.patch('/channel_folders/1', { name: 'x' })).status, 400);
});

test('channels join and leave folders; a folder in use cannot be archived', async () => {
  const folder = (await t.owner.post('/channel_folders/create', { name: 'Projects' })).body.channel_folder_id;
  const made = await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'apollo' }], folder_id: folder });
  assert.equal(made.status, 200);
  const id = (await t.owner.get('/get_stream_id', { stream: 'apollo' })).body.stream_id;
  assert.equal((await t.owner.get(`/streams/${id}`)).body.stream.folder_id, folder);
  const archive = await t.owner.patch(`/channel_folders/${folder}`, { is_archived: true });
  assert.equal(archive.status, 400);
  const reg = await member.post('/register', { event_types: ['stream'], fetch_event_types: ['stream'] });
  assert.equal((await t.owner.patch(`/streams/${id}`, { folder_id: null })).status, 200);
  const evs = (await member.get('/events', { queue_id: reg.body.queue_id, last_event_id: -1, dont_block: true })).body.events;
  assert.deepEqual(evs.map((e: any) => [e.property, e.value]), [['folder_id', null]]);
  // do_change_stream_folder has no early return: the same folder again is announced again.
  assert.equal((await t.owner.patch(`/streams/${id}`, { folder_id: null })).status, 200);
  const again = (await member.get('/events', { queue_id: reg.body.queue_id, last_event_id: evs[evs.length - 1].id, dont_block: true })).body.events;
  assert.deepEqual(again.map((e: any) => [e.type, e.op, e.property, e.value]), [['stream', 'update', 'folder_id', null]]);
  assert.equal((await t.owner.patch(`/streams/${id}`, { folder_id: 999999 })).status, 400);
  assert.equal((await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'gemini' }], folder_id: 999999 })).status, 400);
  assert.equal((await t.owner.patch(`/channel_folders/${folder}`, { is_archived: true })).status, 200);
  // get_channel_folder_by_id does not ask whether the folder is archived: channels may still be
  // put into it, on creation or by update.
  assert.equal((await t.owner.patch(`/streams/${id}`, { folder_id: folder })).status, 200);
  assert.equal((await t.owner.get(`/streams/${id}`)).body.stream.folder_id, folder);
  assert.equal((await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'artemis' }], folder_id: folder })).status, 200);
  const artemis = (await t.owner.get('/get_stream_id', { stream: 'artemis' })).body.stream_id;
  assert.equal((await t.owner.get(`/streams/${artemis}`)).body.stream.folder_id, folder);
});
