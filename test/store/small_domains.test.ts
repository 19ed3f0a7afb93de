// Store functions moved out of actions/ that carry a rule: one row per key (the unique index is
// the judge, reported as a UniqueConflict), the order lists come back in, and the owner scope of
// deletes and lookups.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openStore, type StoreFixture } from './store_helpers.js';
import { UniqueConflict } from '../../src/store/conflicts.js';
import { createOrganization } from '../../src/actions/realms.js';
import { deleteNavigationView, findNavigationView, insertNavigationView, listNavigationViewRows, updateNavigationViewRow } from '../../src/store/navigation_views.js';
import { deletePlayground, insertPlayground, listPlaygrounds, playgroundExists } from '../../src/store/playgrounds.js';
import { deleteRealmDomain, insertRealmDomain, listRealmDomains, setRealmDomainSubdomains } from '../../src/store/realm_domains.js';
import { getPresence, lastPresenceUpdateId, presenceRows, writePresence } from '../../src/store/presence.js';
import { getSystemGroupIds, groupNameTaken, insertNamedGroup, realmGroupGraph, removeGroupMembers, removeSubgroups, updateGroupRow } from '../../src/store/groups.js';
import { realmUserDefaultOverrides, storeRealmUserDefaultOverrides } from '../../src/store/realm_user_defaults.js';
import { alertWordsFor, alertWordsOf, deleteAlertWords, insertAlertWords } from '../../src/store/alert_words.js';
import { deleteLinkifier, insertLinkifier, listLinkifiers, setLinkifierOrder } from '../../src/store/linkifiers.js';
import { deletePushToken, finishPushRegistration, updateClientDevicePush, hasPushRegisteredDevice, hasPushToken, insertClientDevice, isUsersClientDevice, listClientDevices, upsertPushToken } from '../../src/store/devices.js';

let s: StoreFixture;
before(async () => {
  s = await openStore();
});
after(() => s.close());

test('navigation views: listed in the order stored; a second row for a fragment is a UniqueConflict', async () => {
  const { database, ownerId } = s;
  await database.transaction((tx) => insertNavigationView(tx, ownerId, { fragment: 'narrow/is/starred', is_pinned: false, name: null }));
  await database.transaction((tx) => insertNavigationView(tx, ownerId, { fragment: 'inbox', is_pinned: true, name: null }));
  await assert.rejects(
    database.transaction((tx) => insertNavigationView(tx, ownerId, { fragment: 'inbox', is_pinned: false, name: null })),
    (e) => e instanceof UniqueConflict,
  );
  assert.deepEqual((await listNavigationViewRows(database.db, ownerId)).map((v) => v.fragment), ['narrow/is/starred', 'inbox']);
  await database.transaction((tx) => updateNavigationViewRow(tx, ownerId, 'inbox', { is_pinned: false }));
  assert.deepEqual(await findNavigationView(database.db, ownerId, 'inbox'), { fragment: 'inbox', is_pinned: false, name: null });
  await database.transaction((tx) => deleteNavigationView(tx, ownerId, 'inbox'));
  assert.equal(await findNavigationView(database.db, ownerId, 'inbox'), undefined);
});

test('playgrounds: unique per organization, language and name; a delete only reaches its own organization', async () => {
  const { database, realmId } = s;
  const p = { name: 'Run', pygments_language: 'Python', url_template: 'https://run.example.com/?c={code}' };
  const id = await database.transaction((tx) => insertPlayground(tx, realmId, p));
  assert.equal(await playgroundExists(database.db, realmId, 'Run', 'Python'), true);
  assert.equal(await playgroundExists(database.db, realmId, 'Run', 'Rust'), false);
  await assert.rejects(database.transaction((tx) => insertPlayground(tx, realmId, p)), (e) => e instanceof UniqueConflict);
  const other = await createOrganization(database, { name: 'Other', ownerEmail: 'o@other.example.com', ownerPassword: null, ownerName: 'O' });
  // The same name and language in another organization is no conflict.
  const otherId = await database.transaction((tx) => insertPlayground(tx, other.realm_id, p));
  assert.equal(await database.transaction((tx) => deletePlayground(tx, other.realm_id, id)), false);
  const id2 = await database.transaction((tx) => insertPlayground(tx, realmId, { ...p, name: 'Another' }));
  assert.deepEqual((await listPlaygrounds(database.db, realmId)).map((x) => x.id), [id, id2]);
  assert.equal(await database.transaction((tx) => deletePlayground(tx, realmId, id)), true);
  assert.deepEqual((await listPlaygrounds(database.db, other.realm_id)).map((x) => x.id), [otherId]);
});

test('realm domains: listed alphabetically, booleans as booleans; one row per organization and domain; changes stay in their organization', async () => {
  const { database, realmId } = s;
  await database.transaction((tx) => insertRealmDomain(tx, realmId, { domain: 'zeta.example', allow_subdomains: true }));
  await database.transaction((tx) => insertRealmDomain(tx, realmId, { domain: 'alpha.example', allow_subdomains: false }));
  await assert.rejects(database.transaction((tx) => insertRealmDomain(tx, realmId, { domain: 'alpha.example', allow_subdomains: true })), (e) => e instanceof UniqueConflict);
  assert.deepEqual(await listRealmDomains(database.db, realmId), [
    { domain: 'alpha.example', allow_subdomains: false },
    { domain: 'zeta.example', allow_subdomains: true },
  ]);
  const other = await createOrganization(database, { name: 'Domains', ownerEmail: 'd@domains.example.com', ownerPassword: null, ownerName: 'D' });
  assert.equal(await database.transaction((tx) => setRealmDomainSubdomains(tx, other.realm_id, 'alpha.example', true)), false);
  assert.equal(await database.transaction((tx) => deleteRealmDomain(tx, other.realm_id, 'alpha.example')), false);
  assert.equal(await database.transaction((tx) => setRealmDomainSubdomains(tx, realmId, 'alpha.example', true)), true);
  assert.equal(await database.transaction((tx) => deleteRealmDomain(tx, realmId, 'zeta.example')), true);
  assert.deepEqual(await listRealmDomains(database.db, realmId), [{ domain: 'alpha.example', allow_subdomains: true }]);
});

test('push tokens: registering a token again refreshes the one row; deletes say whether there was one', async () => {
  const { database, ownerId } = s;
  await database.transaction((tx) => upsertPushToken(tx, ownerId, 2, 'tok', null, 100));
  await database.transaction((tx) => upsertPushToken(tx, ownerId, 2, 'tok', 'app', 200));
  const rows = await database.db.selectFrom('push_device_tokens').select(['appid', 'last_updated']).where('user_id', '=', ownerId).execute();
  assert.deepEqual(rows.map((r) => [r.appid, Number(r.last_updated)]), [['app', 200]]);
  assert.equal(await hasPushToken(database.db, ownerId, 'tok'), true);
  assert.equal(await database.transaction((tx) => deletePushToken(tx, ownerId, 1, 'tok')), false);
  assert.equal(await database.transaction((tx) => deletePushToken(tx, ownerId, 2, 'tok')), true);
  assert.equal(await hasPushToken(database.db, ownerId, 'tok'), false);
});

test('client devices: listed by id; only a device with a push token counts as push-registered', async () => {
  const { database, ownerId } = s;
  const a = await database.transaction((tx) => insertClientDevice(tx, ownerId, 1));
  const b = await database.transaction((tx) => insertClientDevice(tx, ownerId, 2));
  assert.deepEqual((await listClientDevices(database.db, ownerId)).map((d) => d.id), [a, b]);
  assert.equal(await isUsersClientDevice(database.db, ownerId, a), true);
  assert.equal(await isUsersClientDevice(database.db, ownerId + 1000, a), false);
  assert.equal(await hasPushRegisteredDevice(database.db, ownerId), false);
  await database.transaction((tx) => tx.updateTable('client_devices').set({ push_token_id: 'abc' }).where('id', '=', b).execute());
  assert.equal(await hasPushRegisteredDevice(database.db, ownerId), true);
  assert.equal(await hasPushRegisteredDevice(database.db, ownerId, a), false);
  assert.equal(await hasPushRegisteredDevice(database.db, ownerId, b), true);
});

test('presence: one row per user, update ids count up per organization, reads filter by id and time', async () => {
  const { database, realmId, ownerId } = s;
  const other = await createOrganization(database, { name: 'Presence Other', ownerEmail: 'p@other.example.com', ownerPassword: null, ownerName: 'P' });
  const first = await database.transaction((tx) => writePresence(tx, realmId, ownerId, 1000, 1000));
  const second = await database.transaction((tx) => writePresence(tx, realmId, ownerId, null, 2000));
  assert.equal(second, first + 1);
  // Another organization's counter is its own.
  assert.equal(await database.transaction((tx) => writePresence(tx, other.realm_id, other.user_id, 5, 5)), 1);
  assert.deepEqual(await getPresence(database.db, ownerId), { user_id: ownerId, last_active_time: null, last_connected_time: 2000, last_update_id: second });
  assert.equal(await lastPresenceUpdateId(database.db, realmId), second);
  assert.equal((await presenceRows(database.db, realmId, -1, 0)).length, 1);
  assert.equal((await presenceRows(database.db, realmId, second, 0)).length, 0);
  assert.equal((await presenceRows(database.db, realmId, -1, 2001)).length, 0);
});

test('user groups: a name is taken case-blind among active named groups only; a racing duplicate is a UniqueConflict', async () => {
  const { database, realmId, ownerId } = s;
  const sys = await getSystemGroupIds(database.db, realmId);
  const nobody = sys['role:nobody'];
  const settings = { can_add_members_group: nobody, can_join_group: nobody, can_leave_group: nobody, can_manage_group: nobody, can_mention_group: nobody, can_remove_members_group: nobody };
  const g = { description: '', creatorId: ownerId, now: 1, settings, members: [ownerId], subgroups: [] };
  const id = await database.transaction((tx) => insertNamedGroup(tx, realmId, { ...g, name: 'Team' }));
  assert.equal(await groupNameTaken(database.db, realmId, 'TEAM'), true);
  assert.equal(await groupNameTaken(database.db, realmId, 'team', id), false);
  await assert.rejects(database.transaction((tx) => insertNamedGroup(tx, realmId, { ...g, name: 'team' })), (e) => e instanceof UniqueConflict);
  await database.transaction((tx) => updateGroupRow(tx, id, { deactivated: true }));
  assert.equal(await groupNameTaken(database.db, realmId, 'Team'), false);
  const again = await database.transaction((tx) => insertNamedGroup(tx, realmId, { ...g, name: 'team', subgroups: [id] }));
  await database.transaction((tx) => removeGroupMembers(tx, again, [ownerId]));
  await database.transaction((tx) => removeSubgroups(tx, again, [id]));
  const graph = await realmGroupGraph(database.db, realmId);
  assert.deepEqual(graph.members.filter((m) => m.group_id === again), []);
  assert.deepEqual(graph.subs.filter((m) => m.group_id === again), []);
  assert.deepEqual(graph.members.filter((m) => m.group_id === id).map((m) => m.user_id), [ownerId]);
});

test('realm user defaults: no row means no overrides; storing twice replaces the one row', async () => {
  const { database, realmId } = s;
  assert.deepEqual(await realmUserDefaultOverrides(database.db, realmId), {});
  await database.transaction((tx) => storeRealmUserDefaultOverrides(tx, realmId, { twenty_four_hour_time: true }));
  await database.transaction((tx) => storeRealmUserDefaultOverrides(tx, realmId, { color_scheme: 2 }));
  assert.deepEqual(await realmUserDefaultOverrides(database.db, realmId), { color_scheme: 2 });
  const rows = await database.db.selectFrom('realm_user_defaults').select('realm_id').where('realm_id', '=', realmId).execute();
  assert.equal(rows.length, 1);
});

test('alert words: kept in the order added; a word the user has in another case is a UniqueConflict; removal by lower case', async () => {
  const { database, realmId, ownerId } = s;
  await database.transaction((tx) => insertAlertWords(tx, realmId, ownerId, ['Zeta', 'alpha']));
  await assert.rejects(database.transaction((tx) => insertAlertWords(tx, realmId, ownerId, ['ZETA'])), (e) => e instanceof UniqueConflict);
  assert.deepEqual(await alertWordsOf(database.db, ownerId), ['Zeta', 'alpha']);
  await database.transaction((tx) => deleteAlertWords(tx, ownerId, ['zeta']));
  assert.deepEqual(await alertWordsOf(database.db, ownerId), ['alpha']);
  assert.deepEqual([...(await alertWordsFor(database.db, [ownerId, ownerId + 999])).entries()], [[ownerId, ['alpha']]]);
});

test('linkifiers: appended in order, reordered, deleted only within their organization', async () => {
  const { database, realmId } = s;
  const l = (pattern: string) => ({ pattern, url_template: 'https://x.example.com/{id}', example_input: null, reverse_template: null, alternative_url_templates: [] });
  const a = await database.transaction((tx) => insertLinkifier(tx, realmId, l('#(?P<id>[0-9]+)')));
  const b = await database.transaction((tx) => insertLinkifier(tx, realmId, l('!(?P<id>[0-9]+)')));
  assert.deepEqual((await listLinkifiers(database.db, realmId)).map((x) => x.id), [a, b]);
  await database.transaction((tx) => setLinkifierOrder(tx, [b, a]));
  assert.deepEqual((await listLinkifiers(database.db, realmId)).map((x) => x.id), [b, a]);
  assert.equal(await database.transaction((tx) => deleteLinkifier(tx, realmId + 999, a)), false);
  assert.equal(await database.transaction((tx) => deleteLinkifier(tx, realmId, a)), true);
  assert.deepEqual((await listLinkifiers(database.db, realmId)).map((x) => x.id), [b]);
});

test('push registration: the push service answer lands only while that registration is still pending', async () => {
  const { database, ownerId } = s;
  const d = await database.transaction((tx) => insertClientDevice(tx, ownerId, 1));
  await database.transaction((tx) => updateClientDevicePush(tx, ownerId, d, { pending_push_token_id: 'first' }));
  await database.transaction((tx) => updateClientDevicePush(tx, ownerId, d, { pending_push_token_id: 'second' }));
  assert.equal(await database.transaction((tx) => finishPushRegistration(tx, d, 'first', null)), false);
  assert.equal(await hasPushRegisteredDevice(database.db, ownerId, d), false);
  assert.equal(await database.transaction((tx) => finishPushRegistration(tx, d, 'second', null)), true);
  assert.equal(await hasPushRegisteredDevice(database.db, ownerId, d), true);
});
