// The message window's SQL (store/message_window.ts) and the export rows (store/realm_exports.ts):
// a viewer reads their own rows, and with open history also the rest flagged read+historical;
// windows come back oldest first, limited from the anchor; filters and negations; the first
// unread; the organization scope of export lookups and the weekly count.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openStore, type StoreFixture } from './store_helpers.js';
import { FLAG_BITS, getOrCreateDmGroup, insertMessage, insertUserMessages } from '../../src/store/messages.js';
import { insertAccount } from '../../src/actions/users.js';
import { createOrganization } from '../../src/actions/realms.js';
import { insertStream, RECIPIENT_STREAM, STREAM_GROUP_SETTINGS } from '../../src/store/channels.js';
import { getSystemGroupIds } from '../../src/store/groups.js';
import {
  firstMessageIdSince,
  firstRealmMessageIdSince,
  firstUnreadMessageId,
  HISTORICAL_FLAGS,
  messageAt,
  messagesAfter,
  messagesBefore,
  type MessageScope,
} from '../../src/store/message_window.js';
import {
  countExportsRequestedSince,
  directMessageIdsOfUsers,
  exportDeletedMs,
  insertRealmExport,
  listRealmExports,
  liveExportFilePath,
  realmExportOf,
  updateRealmExport,
} from '../../src/store/realm_exports.js';

let s: StoreFixture;
before(async () => {
  s = await openStore();
});
after(() => s.close());

async function channel(name: string): Promise<{ id: number; recipientId: number }> {
  const { database, realmId, ownerId } = s;
  const sys = await getSystemGroupIds(database.db, realmId);
  const settings = Object.fromEntries(STREAM_GROUP_SETTINGS.map((k) => [k, sys['role:everyone']])) as Record<(typeof STREAM_GROUP_SETTINGS)[number], number>;
  const id = await database.transaction((tx) =>
    insertStream(tx, {
      realm_id: realmId, name, description: '', rendered_description: '', invite_only: false, is_web_public: false,
      history_public_to_subscribers: true, date_created: 1, creator_id: ownerId, message_retention_days: null, is_archived: false,
      folder_id: null, topics_policy: 'inherit', ...settings,
    }),
  );
  const r = await database.db.selectFrom('recipients').select('id').where('type_id', '=', id).where('type', '=', RECIPIENT_STREAM).executeTakeFirstOrThrow();
  return { id, recipientId: r.id };
}

test('message window: own rows or open history, oldest first, limits, filters, first unread', async () => {
  const { database, realmId, ownerId } = s;
  const db = database.db;
  const ch = await channel('window');
  const reader = await database.transaction((tx) => insertAccount(tx, { realmId, email: 'reader@example.com', fullName: 'Reader', role: 400, passwordHash: null, now: 1 }));
  const send = (topic: string, date: number, rows: Array<[number, number]>) =>
    database.transaction(async (tx) => {
      const id = await insertMessage(tx, {
        realm_id: realmId, sender_id: ownerId, recipient_type: 'stream', recipient_id: ch.recipientId, stream_id: ch.id, dm_group_id: null,
        topic, content: 'x', rendered_content: '<p>x</p>', date_sent: date, last_edit_time: null, sending_client: 'test', edit_history: null,
      } as Parameters<typeof insertMessage>[1]);
      await insertUserMessages(tx, rows.map(([user_id, flags]) => ({ user_id, message_id: id, flags })));
      return id;
    });
  // m1 before the reader joined (no row of theirs); m2 read, m3 unread, m4 starred and unread.
  const m1 = await send('old', 100, [[ownerId, FLAG_BITS.read]]);
  const m2 = await send('talk', 200, [[ownerId, 0], [reader.id, FLAG_BITS.read]]);
  const m3 = await send('Talk', 300, [[ownerId, 0], [reader.id, 0]]);
  const m4 = await send('other', 400, [[ownerId, 0], [reader.id, FLAG_BITS.starred]]);
  const scope = (o: Partial<MessageScope> = {}): MessageScope => ({
    dialect: database.dialect, viewerId: reader.id, realmId, withHistory: false, filters: [{ kind: 'channel', streamId: ch.id, negated: false }], ...o,
  });
  const ids = (rows: Array<{ id: number }>) => rows.map((r) => r.id);

  // Own rows only, unless history is open: then m1 comes too, flagged read+historical.
  assert.deepEqual(ids(await messagesAfter(db, scope(), 0, 10)), [m2, m3, m4]);
  const open = await messagesAfter(db, scope({ withHistory: true }), 0, 10);
  assert.deepEqual(ids(open), [m1, m2, m3, m4]);
  assert.equal(open[0]!.flags, HISTORICAL_FLAGS);
  assert.equal(open[3]!.flags, FLAG_BITS.starred);
  // Before the anchor: the nearest ones, oldest first; after: the nearest, oldest first; at: that one.
  assert.deepEqual(ids(await messagesBefore(db, scope({ withHistory: true }), m4, 2)), [m2, m3]);
  assert.deepEqual(ids(await messagesAfter(db, scope({ withHistory: true }), m1, 2)), [m2, m3]);
  assert.equal((await messageAt(db, scope(), m1)), undefined);
  assert.equal((await messageAt(db, scope({ withHistory: true }), m1))?.id, m1);
  // Filters: topic case-blind, negation, flags, message ids; another organization's viewer sees nothing.
  assert.deepEqual(ids(await messagesAfter(db, scope({ filters: [{ kind: 'topic', topic: 'TALK', negated: false }] }), 0, 10)), [m2, m3]);
  assert.deepEqual(ids(await messagesAfter(db, scope({ filters: [{ kind: 'topic', topic: 'talk', negated: true }] }), 0, 10)), [m4]);
  assert.deepEqual(ids(await messagesAfter(db, scope({ filters: [{ kind: 'is', what: 'starred', negated: false }] }), 0, 10)), [m4]);
  assert.deepEqual(ids(await messagesAfter(db, scope({ filters: [{ kind: 'is', what: 'unread', negated: false }] }), 0, 10)), [m3, m4]);
  assert.deepEqual(ids(await messagesAfter(db, scope({ messageIds: [m2, m4] }), 0, 10)), [m2, m4]);
  assert.deepEqual(ids(await messagesAfter(db, scope({ messageIds: [] }), 0, 10)), []);
  assert.deepEqual(ids(await messagesAfter(db, scope({ filters: [{ kind: 'dm_group', groupId: undefined, negated: false }] }), 0, 10)), []);
  const other = await createOrganization(database, { name: 'Elsewhere', ownerEmail: 'e@elsewhere.example.com', ownerPassword: null, ownerName: 'E' });
  assert.deepEqual(ids(await messagesAfter(db, scope({ realmId: other.realm_id, withHistory: true }), 0, 10)), []);

  // The first unread, and the first message since a date (the organization's, then the scope's).
  assert.equal(await firstUnreadMessageId(db, scope(), true), m3);
  assert.equal(await firstUnreadMessageId(db, scope({ filters: [{ kind: 'topic', topic: 'old', negated: false }] }), true), undefined);
  assert.equal(await firstRealmMessageIdSince(db, realmId, 250), m3);
  assert.equal(await firstRealmMessageIdSince(db, realmId, 10_000), undefined);
  assert.equal(await firstMessageIdSince(db, scope({ filters: [{ kind: 'topic', topic: 'other', negated: false }] }), m3, 250), m4);
});

test('realm exports: listed by id, scoped to their organization, counted since a time, deleted ones not served', async () => {
  const { database, realmId, ownerId } = s;
  const db = database.db;
  const a = await database.transaction((tx) => insertRealmExport(tx, { realm_id: realmId, acting_user_id: ownerId, export_type: 1, requested_ms: 1000 }));
  const b = await database.transaction((tx) => insertRealmExport(tx, { realm_id: realmId, acting_user_id: ownerId, export_type: 2, requested_ms: 5000 }));
  assert.deepEqual((await listRealmExports(db, realmId)).map((r) => r.id), [a, b]);
  assert.equal(await countExportsRequestedSince(db, realmId, 1000), 2);
  assert.equal(await countExportsRequestedSince(db, realmId, 1001), 1);
  assert.equal(await realmExportOf(db, realmId + 1000, a), undefined);
  assert.equal((await realmExportOf(db, realmId, a))?.export_type, 1);

  await database.transaction((tx) => updateRealmExport(tx, a, { succeeded_ms: 2000, file_path: 'exports/1/x/a.tar.gz' }));
  assert.equal(await liveExportFilePath(db, realmId, 'exports/1/x/a.tar.gz'), 'exports/1/x/a.tar.gz');
  assert.equal(await liveExportFilePath(db, realmId + 1000, 'exports/1/x/a.tar.gz'), null);
  assert.equal(await exportDeletedMs(db, a), null);
  await database.transaction((tx) => updateRealmExport(tx, a, { deleted_ms: 3000 }));
  assert.equal(await exportDeletedMs(db, a), 3000);
  assert.equal(await exportDeletedMs(db, b + 1000), undefined);
  assert.equal(await liveExportFilePath(db, realmId, 'exports/1/x/a.tar.gz'), null);
});

test('realm exports: the direct messages of the given users, none for no users', async () => {
  const { database, realmId, ownerId } = s;
  const peer = await database.transaction((tx) => insertAccount(tx, { realmId, email: 'peer@example.com', fullName: 'Peer', role: 400, passwordHash: null, now: 1 }));
  const dm = await database.transaction(async (tx) => {
    const group = await getOrCreateDmGroup(tx, realmId, [ownerId, peer.id]);
    const id = await insertMessage(tx, {
      realm_id: realmId, sender_id: ownerId, recipient_type: 'direct', recipient_id: group.recipientId, stream_id: null, dm_group_id: group.id,
      topic: '', content: 'hi', rendered_content: '<p>hi</p>', date_sent: 1, last_edit_time: null, sending_client: 'test', edit_history: null,
    } as Parameters<typeof insertMessage>[1]);
    await insertUserMessages(tx, [{ user_id: ownerId, message_id: id, flags: FLAG_BITS.read }, { user_id: peer.id, message_id: id, flags: 0 }]);
    return id;
  });
  assert.deepEqual(await directMessageIdsOfUsers(database.db, [peer.id]), [dm]);
  assert.deepEqual(await directMessageIdsOfUsers(database.db, []), []);
});
