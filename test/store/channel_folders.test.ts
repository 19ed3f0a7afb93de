// Channel folders in the store: appended after the last, listed in order, names unique among
// unarchived folders in any case (the index is the judge), archived folders hidden on request.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openStore, type StoreFixture } from './store_helpers.js';
import { UniqueConflict } from '../../src/store/conflicts.js';
import {
  channelFolderInUse,
  channelFolderNameTaken,
  insertChannelFolder,
  listChannelFolders,
  setChannelFolderOrder,
  updateChannelFolderRow,
} from '../../src/store/channel_folders.js';

let s: StoreFixture;
before(async () => {
  s = await openStore();
});
after(() => s.close());

const fields = (name: string, creator: number) => ({ name, description: '', rendered_description: '', date_created: 1, creator_id: creator });

test('channel folders: order, case-blind unique names among unarchived folders, archived ones listed on request', async () => {
  const { database, realmId, ownerId } = s;
  const a = await database.transaction((tx) => insertChannelFolder(tx, realmId, fields('Alpha', ownerId)));
  const b = await database.transaction((tx) => insertChannelFolder(tx, realmId, fields('Beta', ownerId)));
  assert.deepEqual([a.order, b.order], [0, 1]);
  assert.equal(await channelFolderNameTaken(database.db, realmId, 'ALPHA'), true);
  assert.equal(await channelFolderNameTaken(database.db, realmId, 'alpha', a.id), false);
  await assert.rejects(database.transaction((tx) => insertChannelFolder(tx, realmId, fields('alpha', ownerId))), (e) => e instanceof UniqueConflict);

  await database.transaction((tx) => setChannelFolderOrder(tx, [b.id, a.id]));
  assert.deepEqual((await listChannelFolders(database.db, realmId, false)).map((f) => f.name), ['Beta', 'Alpha']);

  // An archived folder frees its name and leaves the default list.
  await database.transaction((tx) => updateChannelFolderRow(tx, a.id, { is_archived: true }));
  assert.equal(await channelFolderNameTaken(database.db, realmId, 'Alpha'), false);
  const again = await database.transaction((tx) => insertChannelFolder(tx, realmId, fields('alpha', ownerId)));
  assert.equal(again.order, 2);
  assert.deepEqual((await listChannelFolders(database.db, realmId, false)).map((f) => f.name), ['Beta', 'alpha']);
  assert.deepEqual((await listChannelFolders(database.db, realmId, true)).map((f) => [f.name, f.is_archived]), [['Beta', false], ['Alpha', true], ['alpha', false]]);
  assert.equal(await channelFolderInUse(database.db, b.id), false);
});
