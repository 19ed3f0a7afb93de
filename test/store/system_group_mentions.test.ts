// Migration 0095 on an organization made before it: its system groups' can_mention_group moves
// from role:everyone to role:nobody (Zulip's default_for_system_groups); a user group's setting,
// and a system group's changed elsewhere, stay as they are.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openStore } from './store_helpers.js';
import { getSystemGroupIds, insertNamedGroup, listGroups } from '../../src/store/groups.js';
import { systemGroupMentions } from '../../src/store/migrations/v95_system_group_mentions.js';
import { nowSeconds } from '../../src/services.js';

test('0095: system groups at role:everyone move to role:nobody; other groups keep theirs', async () => {
  const s = await openStore();
  try {
    const { database, realmId } = s;
    const ids = await getSystemGroupIds(database.db, realmId);
    const everyone = ids['role:everyone'];
    const nobody = ids['role:nobody'];
    assert.ok((await listGroups(database.db, realmId)).filter((g) => g.is_system_group).every((g) => g.can_mention_group === nobody), 'a new organization is made so');
    // As made before the migration, with one system group changed to something else.
    await database.transaction(async (tx) => {
      for (const id of Object.values(ids)) await tx.updateTable('user_groups').set({ can_mention_group: everyone }).where('id', '=', id).execute();
      await tx.updateTable('user_groups').set({ can_mention_group: ids['role:members'] }).where('id', '=', ids['role:owners']).execute();
    });
    const settings = { can_add_members_group: nobody, can_join_group: nobody, can_leave_group: nobody, can_manage_group: nobody, can_mention_group: everyone, can_remove_members_group: nobody };
    const custom = await database.transaction((tx) => insertNamedGroup(tx, realmId, { name: 'crew', description: '', creatorId: s.ownerId, now: nowSeconds(), settings, members: [], subgroups: [] }));
    await database.transaction((tx) => systemGroupMentions().up(tx));
    const after = new Map((await listGroups(database.db, realmId)).map((g) => [g.id, g.can_mention_group]));
    for (const [name, id] of Object.entries(ids)) assert.equal(after.get(id), name === 'role:owners' ? ids['role:members'] : nobody, name);
    assert.equal(after.get(custom), everyone);
  } finally {
    await s.close();
  }
});
