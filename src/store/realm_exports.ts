// Organization data exports: the realm_exports rows (requested, written, failed, deleted), and the
// reads that gather an organization's data for the archive (actions/realm_exports.ts decides what
// goes in).
import type { Executor } from './db.js';
import type { RealmExportTable, Row } from './schema.js';

export type RealmExportRow = Row<RealmExportTable>;

/** The organization's exports, oldest first. */
export async function listRealmExports(db: Executor, realmId: number): Promise<RealmExportRow[]> {
  return db.selectFrom('realm_exports').selectAll().where('realm_id', '=', realmId).orderBy('id').execute();
}

/** An export of this organization. */
export async function realmExportOf(db: Executor, realmId: number, exportId: number): Promise<RealmExportRow | undefined> {
  return db.selectFrom('realm_exports').selectAll().where('id', '=', exportId).where('realm_id', '=', realmId).executeTakeFirst();
}

/** An export by id alone (the background writer, which has no organization at hand). */
export async function realmExportById(db: Executor, exportId: number): Promise<RealmExportRow | undefined> {
  return db.selectFrom('realm_exports').selectAll().where('id', '=', exportId).executeTakeFirst();
}

/** How many exports the organization requested at or after this time (ms); index realm_exports_realm_requested. */
export async function countExportsRequestedSince(db: Executor, realmId: number, sinceMs: number): Promise<number> {
  const r = await db
    .selectFrom('realm_exports')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('realm_id', '=', realmId)
    .where('requested_ms', '>=', sinceMs)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

export async function insertRealmExport(db: Executor, e: { realm_id: number; acting_user_id: number; export_type: number; requested_ms: number }): Promise<number> {
  const row = await db.insertInto('realm_exports').values(e).returning('id').executeTakeFirstOrThrow();
  return row.id;
}

/** When the export was deleted: null while it is not, undefined when there is no such export. */
export async function exportDeletedMs(db: Executor, exportId: number): Promise<number | null | undefined> {
  const row = await db.selectFrom('realm_exports').select('deleted_ms').where('id', '=', exportId).executeTakeFirst();
  return row ? row.deleted_ms : undefined;
}

export async function updateRealmExport(
  db: Executor,
  exportId: number,
  patch: { succeeded_ms?: number; failed_ms?: number; deleted_ms?: number; file_path?: string },
): Promise<void> {
  await db.updateTable('realm_exports').set(patch).where('id', '=', exportId).execute();
}

/** The file of the organization's export stored at this path, unless the export was deleted. */
export async function liveExportFilePath(db: Executor, realmId: number, filePath: string): Promise<string | null> {
  const row = await db
    .selectFrom('realm_exports')
    .select(['file_path'])
    .where('realm_id', '=', realmId)
    .where('file_path', '=', filePath)
    .where('deleted_ms', 'is', null)
    .executeTakeFirst();
  return row?.file_path ?? null;
}

// What an export reads.

/** How many messages the organization has in public channels (Zulip's estimate of an export's size). */
export async function countPublicChannelMessages(db: Executor, realmId: number): Promise<number> {
  const r = await db
    .selectFrom('messages')
    .innerJoin('streams', 'streams.id', 'messages.stream_id')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('messages.realm_id', '=', realmId)
    .where('streams.invite_only', '=', false)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/** The organization's row as stored (settings as JSON text). */
export async function realmRowForExport(db: Executor, realmId: number) {
  return db.selectFrom('realms').selectAll().where('id', '=', realmId).executeTakeFirstOrThrow();
}

/** The organization's users, by id, with their settings as JSON text and no secrets. */
export async function userRowsForExport(db: Executor, realmId: number) {
  return db
    .selectFrom('users')
    .select(['id', 'email', 'full_name', 'role', 'is_bot', 'bot_type', 'bot_owner_id', 'is_active', 'date_joined', 'timezone', 'avatar_version', 'settings'])
    .where('realm_id', '=', realmId)
    .orderBy('id')
    .execute();
}

/** The organization's channels, by id. */
export async function channelRowsForExport(db: Executor, realmId: number) {
  return db.selectFrom('streams').selectAll().where('realm_id', '=', realmId).orderBy('id').execute();
}

/** The organization's subscriptions, by id. */
export async function subscriptionRowsForExport(db: Executor, realmId: number) {
  return db
    .selectFrom('subscriptions')
    .select(['user_id', 'stream_id', 'active', 'color', 'is_muted', 'pin_to_top'])
    .where('realm_id', '=', realmId)
    .orderBy('id')
    .execute();
}

/** The ids of the direct messages these users sent or received. */
export async function directMessageIdsOfUsers(db: Executor, userIds: readonly number[]): Promise<number[]> {
  if (userIds.length === 0) return [];
  const rows = await db
    .selectFrom('user_messages')
    .innerJoin('messages', 'messages.id', 'user_messages.message_id')
    .select('messages.id')
    .where('messages.recipient_type', '=', 'direct')
    .where('user_messages.user_id', 'in', userIds)
    .execute();
  return rows.map((r) => r.id);
}

/** The ids of the organization's direct messages (every one that has a recipient row). */
export async function directMessageIdsOfRealm(db: Executor, realmId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('user_messages')
    .innerJoin('messages', 'messages.id', 'user_messages.message_id')
    .select('messages.id')
    .where('messages.recipient_type', '=', 'direct')
    .where('messages.realm_id', '=', realmId)
    .execute();
  return rows.map((r) => r.id);
}

/** The organization's next `limit` messages after this id, in id order. */
export async function messageBatchForExport(db: Executor, realmId: number, afterId: number, limit: number) {
  return db
    .selectFrom('messages')
    .select(['id', 'sender_id', 'recipient_type', 'stream_id', 'dm_group_id', 'topic', 'content', 'rendered_content', 'date_sent', 'last_edit_time', 'sending_client'])
    .where('realm_id', '=', realmId)
    .where('id', '>', afterId)
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** The reactions to these messages, in the order they were added. */
export async function reactionRowsForExport(db: Executor, messageIds: readonly number[]) {
  if (messageIds.length === 0) return [];
  return db.selectFrom('reactions').select(['message_id', 'user_id', 'emoji_name', 'emoji_code', 'reaction_type']).where('message_id', 'in', messageIds).orderBy('id').execute();
}

/** These direct-message groups and their members' key. */
export async function dmGroupRowsForExport(db: Executor, groupIds: readonly number[]) {
  if (groupIds.length === 0) return [];
  return db.selectFrom('direct_message_groups').select(['id', 'user_ids_key']).where('id', 'in', groupIds).execute();
}

/** Which uploads these messages link. */
export async function attachmentLinksOfMessages(db: Executor, messageIds: readonly number[]) {
  if (messageIds.length === 0) return [];
  return db.selectFrom('attachment_messages').select(['attachment_id', 'message_id']).where('message_id', 'in', messageIds).execute();
}

/** These uploads' records. */
export async function attachmentRowsForExport(db: Executor, attachmentIds: readonly number[]) {
  if (attachmentIds.length === 0) return [];
  return db.selectFrom('attachments').select(['id', 'owner_id', 'path_id', 'file_name', 'content_type', 'size', 'create_time']).where('id', 'in', attachmentIds).execute();
}

/** The organization's custom emoji, deactivated ones included, by id. */
export async function emojiRowsForExport(db: Executor, realmId: number) {
  return db.selectFrom('realm_emoji').select(['id', 'name', 'author_id', 'file_name', 'is_animated', 'deactivated']).where('realm_id', '=', realmId).orderBy('id').execute();
}
