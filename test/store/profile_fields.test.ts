// Profile fields in the store: a new field goes last (its order is its id), labels are unique per
// organization, the summary count, values set/cleared per user, and a field's values go with it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openStore, type StoreFixture } from './store_helpers.js';
import { UniqueConflict } from '../../src/store/conflicts.js';
import {
  deleteProfileFieldRow,
  deleteValuesNotIn,
  insertProfileField,
  listProfileFields,
  profileFieldNameTaken,
  setProfileFieldOrder,
  storeProfileValue,
  summaryFieldCount,
  userProfileValues,
} from '../../src/store/profile_fields.js';

let s: StoreFixture;
before(async () => {
  s = await openStore();
});
after(() => s.close());

const settings = (name: string, summary = false) => ({ name, hint: '', field_data: '', display_in_profile_summary: summary, required: false, editable_by_user: true, use_for_user_matching: false });

test('profile fields: appended last, reordered, labels checked, summary counted, values follow their field', async () => {
  const { database, realmId, ownerId } = s;
  const a = await database.transaction((tx) => insertProfileField(tx, realmId, 1, settings('Phone', true)));
  const b = await database.transaction((tx) => insertProfileField(tx, realmId, 3, settings('Team')));
  assert.deepEqual((await listProfileFields(database.db, realmId)).map((f) => [f.id, f.order_index]), [[a, a], [b, b]]);
  await database.transaction((tx) => setProfileFieldOrder(tx, new Map([[b, 0], [a, 1]])));
  assert.deepEqual((await listProfileFields(database.db, realmId)).map((f) => f.id), [b, a]);
  assert.equal(await profileFieldNameTaken(database.db, realmId, 'Phone'), true);
  assert.equal(await profileFieldNameTaken(database.db, realmId, 'Phone', a), false);
  await assert.rejects(database.transaction((tx) => insertProfileField(tx, realmId, 1, settings('Phone'))), (e) => e instanceof UniqueConflict);
  assert.equal(await summaryFieldCount(database.db, realmId), 1);
  assert.equal(await summaryFieldCount(database.db, realmId, a), 0);

  await database.transaction((tx) => storeProfileValue(tx, realmId, ownerId, a, { value: '123', rendered_value: '<p>123</p>' }, false));
  await database.transaction((tx) => storeProfileValue(tx, realmId, ownerId, a, { value: '456', rendered_value: '<p>456</p>' }, true));
  await database.transaction((tx) => storeProfileValue(tx, realmId, ownerId, b, { value: 'x', rendered_value: null }, false));
  assert.deepEqual([...(await userProfileValues(database.db, ownerId, [a, b])).entries()].sort(), [[a, '456'], [b, 'x']].sort());
  // A select field's values naming a removed choice go; those naming a kept one stay.
  assert.equal(await database.transaction((tx) => deleteValuesNotIn(tx, b, ['x', 'y'])), false);
  assert.equal(await database.transaction((tx) => deleteValuesNotIn(tx, b, ['y'])), true);
  await database.transaction((tx) => deleteProfileFieldRow(tx, a));
  assert.deepEqual([...(await userProfileValues(database.db, ownerId, [a, b])).entries()], []);
  assert.deepEqual((await listProfileFields(database.db, realmId)).map((f) => f.id), [b]);
});
