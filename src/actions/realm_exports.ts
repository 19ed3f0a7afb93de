// Organization data exports: administrators request one, the server writes a .tar.gz of JSON files
// below the uploads folder after the request has been answered, and administrators download it.
import { randomBytes } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import type { Services } from '../services.js';
import type { Realm } from '../store/realms.js';
import type { User } from '../store/users.js';
import type { Executor } from '../store/db.js';
import { uploadSpaceUsed } from '../store/attachments.js';
import {
  attachmentLinksOfMessages,
  attachmentRowsForExport,
  channelRowsForExport,
  countExportsRequestedSince,
  countPublicChannelMessages,
  directMessageIdsOfRealm,
  directMessageIdsOfUsers,
  dmGroupRowsForExport,
  emojiRowsForExport,
  exportDeletedMs,
  insertRealmExport,
  listRealmExports,
  liveExportFilePath,
  messageBatchForExport,
  reactionRowsForExport,
  realmExportById,
  realmExportOf,
  realmRowForExport,
  subscriptionRowsForExport,
  updateRealmExport,
  userRowsForExport,
  type RealmExportRow,
} from '../store/realm_exports.js';
import type { OnCommit } from '../events/publish.js';
import { publishAfterCommit } from '../events/publish.js';
import { BadRequest, AdminRequired } from '../errors.js';
import { isRealmAdmin } from '../access/channel_access.js';
import { userSettingsOf } from '../lib/user_settings.js';
import { tarArchive, type TarEntry } from '../lib/tar.js';

export const EXPORT_TYPES = { public: 1, full_with_consent: 2, full_without_consent: 3 } as const;
export type ExportTypeName = keyof typeof EXPORT_TYPES;
const TYPE_NAMES = new Map<number, ExportTypeName>(Object.entries(EXPORT_TYPES).map(([k, v]) => [v, k as ExportTypeName]));

/** Zulip's limits: five exports a week per organization; larger organizations are exported by hand. */
export const EXPORT_LIMIT = 5;
const EXPORT_WINDOW_MS = 7 * 24 * 3600 * 1000;
const MAX_MESSAGE_HISTORY = 250_000;
const MAX_UPLOAD_BYTES = 10 * 1024 * 1024 * 1024;
const CHUNK = 500;

export interface RealmExport {
  id: number;
  acting_user_id: number;
  export_time: number;
  deleted_timestamp: number | null;
  failed_timestamp: number | null;
  export_url: string | null;
  pending: boolean;
  export_type: ExportTypeName;
}

type ExportRow = RealmExportRow;

/** The address of an export's file: Zulip's local-storage path, answered by http/export_files.ts. */
export function exportUrl(services: Services, filePath: string): string {
  return `${services.config.externalUrl}/user_avatars/${filePath}`;
}

function shape(services: Services, r: ExportRow): RealmExport {
  const done = r.succeeded_ms !== null && r.deleted_ms === null && r.file_path !== null;
  return {
    id: r.id,
    acting_user_id: r.acting_user_id ?? 0,
    export_time: r.requested_ms / 1000,
    deleted_timestamp: r.deleted_ms === null ? null : r.deleted_ms / 1000,
    failed_timestamp: r.failed_ms === null ? null : r.failed_ms / 1000,
    export_url: done ? exportUrl(services, r.file_path!) : null,
    pending: r.succeeded_ms === null && r.failed_ms === null && r.deleted_ms === null,
    export_type: TYPE_NAMES.get(r.export_type) ?? 'public',
  };
}

function requireAdmin(user: User): void {
  if (!isRealmAdmin(user)) throw new AdminRequired();
}

export async function listExports(services: Services, user: User, realm: Realm): Promise<RealmExport[]> {
  requireAdmin(user);
  return (await listRealmExports(services.database.db, realm.id)).map((r) => shape(services, r));
}

async function adminIds(services: Services, realmId: number): Promise<number[]> {
  return [...(await services.cache.users(realmId)).values()].filter((u) => u.is_active && !u.is_bot && isRealmAdmin(u)).map((u) => u.id);
}

/** Zulip sends the whole list to the organization's administrators whenever an export changes. */
async function announce(services: Services, tx: Executor, onCommit: OnCommit, realmId: number, admins: number[]): Promise<void> {
  const exports = (await listRealmExports(tx, realmId)).map((r) => shape(services, r));
  publishAfterCommit(services, onCommit, { realmId, userIds: admins, event: { type: 'realm_export', exports } });
}

/** Writes the export after the request has been answered; shutting down waits for it (services.jobs). */
function startInBackground(services: Services, exportId: number): void {
  services.jobs.runSoon(`export ${exportId}`, () => runExport(services, exportId));
}

export async function createExport(services: Services, user: User, realm: Realm, type: ExportTypeName): Promise<{ id: number }> {
  requireAdmin(user);
  if (type === 'full_without_consent' && !(realm.settings as unknown as Record<string, unknown>).owner_full_content_access) {
    throw new BadRequest('Full export without consent is not enabled for this organization.');
  }
  const db = services.database.db;
  // Zulip's estimate of the size: messages in public channels, and the space uploads take.
  if ((await countPublicChannelMessages(db, realm.id)) > MAX_MESSAGE_HISTORY || (await uploadSpaceUsed(db, realm.id)) > MAX_UPLOAD_BYTES) {
    throw new BadRequest(`Please request a manual export from ${services.config.mailFrom}.`);
  }
  const admins = await adminIds(services, realm.id);
  return services.database.transaction(async (tx, onCommit) => {
    const now = Date.now();
    if ((await countExportsRequestedSince(tx, realm.id, now - EXPORT_WINDOW_MS)) >= EXPORT_LIMIT) throw new BadRequest('Exceeded rate limit.');
    const id = await insertRealmExport(tx, { realm_id: realm.id, acting_user_id: user.id, export_type: EXPORT_TYPES[type], requested_ms: now });
    await announce(services, tx, onCommit, realm.id, admins);
    onCommit(() => startInBackground(services, id));
    return { id };
  });
}

export async function deleteExport(services: Services, user: User, realm: Realm, exportId: number): Promise<void> {
  requireAdmin(user);
  const admins = await adminIds(services, realm.id);
  let path: string | null = null;
  await services.database.transaction(async (tx, onCommit) => {
    const row = await realmExportOf(tx, realm.id, exportId);
    if (!row) throw new BadRequest('Invalid data export ID');
    if (row.deleted_ms !== null) throw new BadRequest('Export already deleted');
    if (row.file_path === null) {
      if (row.failed_ms !== null) throw new BadRequest('Export failed, nothing to delete');
      throw new BadRequest('Export still in progress');
    }
    path = row.file_path;
    await updateRealmExport(tx, row.id, { deleted_ms: Date.now() });
    await announce(services, tx, onCommit, realm.id, admins);
  });
  if (path) await rm(dirname(join(services.config.uploadsDir, path)), { recursive: true, force: true });
}

/** Whether each active human user lets administrators export their private data. */
export async function exportConsents(services: Services, user: User, realm: Realm) {
  requireAdmin(user);
  const users = [...(await services.cache.users(realm.id)).values()].filter((u) => u.is_active && !u.is_bot).sort((a, b) => a.id - b.id);
  return users.map((u) => {
    const s = userSettingsOf(u.settings);
    return { user_id: u.id, consented: !!s.allow_private_data_export, email_address_visibility: s.email_address_visibility };
  });
}

// Writing the export.

function json(name: string, value: unknown, mtime: number): TarEntry {
  return { name, data: Buffer.from(JSON.stringify(value, null, 1)), mtime };
}

async function inChunks<T, R>(items: T[], fn: (chunk: T[]) => Promise<R[]>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += CHUNK) out.push(...(await fn(items.slice(i, i + CHUNK))));
  return out;
}

/** The organization's users; settings only of those whose private data goes in (`consenting`). */
async function exportUsers(db: Executor, realmId: number, type: number) {
  const userRows = await userRowsForExport(db, realmId);
  const everyone = type === EXPORT_TYPES.full_without_consent;
  // Users whose private data (settings, direct messages, private channels) goes in.
  const consenting = new Set<number>(
    type === EXPORT_TYPES.public ? [] : userRows.filter((u) => everyone || userSettingsOf(JSON.parse(u.settings)).allow_private_data_export).map((u) => u.id),
  );
  const users = userRows.map((u) => {
    const { settings, ...rest } = u;
    const base = { ...rest, is_bot: !!u.is_bot, is_active: !!u.is_active };
    return consenting.has(u.id) ? { ...base, settings: userSettingsOf(JSON.parse(settings)) } : base;
  });

  return { users, consenting, everyone };
}

/** The channels and subscriptions that go in, and which channels' messages do. */
async function exportChannels(db: Executor, realmId: number, consenting: ReadonlySet<number>, everyone: boolean) {
  const streams = await channelRowsForExport(db, realmId);
  const publicStreams = new Set(streams.filter((s) => !s.invite_only).map((s) => s.id));
  const subs = await subscriptionRowsForExport(db, realmId);
  // Private channels go in when someone who consented is subscribed (all of them without consent).
  const privateIncluded = new Set(
    everyone ? streams.filter((s) => s.invite_only).map((s) => s.id) : subs.filter((s) => consenting.has(s.user_id) && !publicStreams.has(s.stream_id)).map((s) => s.stream_id),
  );
  const included = (id: number | null) => id !== null && (publicStreams.has(id) || privateIncluded.has(id));
  const channels = streams
    .filter((s) => included(s.id))
    .map((s) => ({
      id: s.id,
      name: s.name,
      description: s.description,
      invite_only: !!s.invite_only,
      is_web_public: !!s.is_web_public,
      history_public_to_subscribers: !!s.history_public_to_subscribers,
      date_created: s.date_created,
      creator_id: s.creator_id,
      is_archived: !!s.is_archived,
    }));
  const subscriptions = subs
    .filter((s) => included(s.stream_id))
    .map((s) => ({ ...s, active: !!s.active, is_muted: !!s.is_muted, pin_to_top: !!s.pin_to_top }));

  return { channels, subscriptions, included };
}

/** The ids of the direct messages that go in. */
async function exportedDirectIds(db: Executor, realmId: number, type: number, consenting: ReadonlySet<number>, everyone: boolean): Promise<Set<number>> {
  // Direct messages a consenting user sent or received (every one without consent).
  const directIds = new Set<number>();
  if (type !== EXPORT_TYPES.public) {
    const ids = [...consenting];
    if (everyone) {
      if (ids.length) for (const id of await directMessageIdsOfRealm(db, realmId)) directIds.add(id);
    } else {
      for (const id of await inChunks(ids, (chunk) => directMessageIdsOfUsers(db, chunk))) directIds.add(id);
    }
  }

  return directIds;
}

/** The messages that go in, read in id order a batch at a time, and the direct-message groups they name. */
async function exportMessages(db: Executor, realmId: number, included: (id: number | null) => boolean, directIds: ReadonlySet<number>) {
  const messages: Record<string, unknown>[] = [];
  const dmGroups = new Set<number>();
  let after = 0;
  for (;;) {
    const batch = await messageBatchForExport(db, realmId, after, CHUNK * 4);
    if (batch.length === 0) break;
    after = batch[batch.length - 1].id;
    for (const m of batch) {
      if (m.recipient_type === 'stream' ? included(m.stream_id) : directIds.has(m.id)) {
        messages.push(m);
        if (m.dm_group_id !== null) dmGroups.add(m.dm_group_id);
      }
    }
  }
  return { messages, dmGroups };
}

/** The JSON files of an export: what the export type allows, never a secret. */
export async function exportFiles(services: Services, realmId: number, type: number, mtime: number): Promise<TarEntry[]> {
  const db = services.database.db;
  const realm = await realmRowForExport(db, realmId);
  const { users, consenting, everyone } = await exportUsers(db, realmId, type);
  const { channels, subscriptions, included } = await exportChannels(db, realmId, consenting, everyone);
  const directIds = await exportedDirectIds(db, realmId, type, consenting, everyone);
  const { messages, dmGroups } = await exportMessages(db, realmId, included, directIds);
  const messageIds = messages.map((m) => m.id as number);
  const reactions = await inChunks(messageIds, (ids) => reactionRowsForExport(db, ids));
  const groups = await inChunks([...dmGroups], (ids) => dmGroupRowsForExport(db, ids));
  const attachmentLinks = await inChunks(messageIds, (ids) => attachmentLinksOfMessages(db, ids));
  // Each upload's messages, grouped once (not one scan of every link per upload).
  const messagesByAttachment = new Map<number, number[]>();
  for (const l of attachmentLinks) {
    const list = messagesByAttachment.get(l.attachment_id);
    if (list) list.push(l.message_id);
    else messagesByAttachment.set(l.attachment_id, [l.message_id]);
  }
  const attachmentIds = [...messagesByAttachment.keys()];
  const attachments = await inChunks(attachmentIds, (ids) => attachmentRowsForExport(db, ids));
  const emoji = await emojiRowsForExport(db, realmId);

  return [
    json('realm.json', { id: realm.id, string_id: realm.string_id, name: realm.name, description: realm.description, date_created: realm.date_created, settings: JSON.parse(realm.settings) }, mtime),
    json('users.json', users, mtime),
    json('channels.json', channels, mtime),
    json('subscriptions.json', subscriptions, mtime),
    json('messages.json', messages, mtime),
    json('direct_message_groups.json', groups.map((g) => ({ id: g.id, user_ids: g.user_ids_key.split(',').map(Number) })), mtime),
    json('reactions.json', reactions, mtime),
    json('custom_emoji.json', emoji.map((e) => ({ ...e, is_animated: !!e.is_animated, deactivated: !!e.deactivated })), mtime),
    json('uploads.json', attachments.map((a) => ({ ...a, message_ids: messagesByAttachment.get(a.id) ?? [] })), mtime),
  ];
}

async function finish(services: Services, row: ExportRow, patch: { succeeded_ms?: number; failed_ms?: number; file_path?: string }): Promise<boolean> {
  const admins = await adminIds(services, row.realm_id);
  return services.database.transaction(async (tx, onCommit) => {
    // Deleted meanwhile (or gone): nothing to record.
    if ((await exportDeletedMs(tx, row.id)) !== null) return false;
    await updateRealmExport(tx, row.id, patch);
    await announce(services, tx, onCommit, row.realm_id, admins);
    return true;
  });
}

/** Writes the archive of one requested export, then records (and announces) success or failure. */
export async function runExport(services: Services, exportId: number): Promise<void> {
  const row = await realmExportById(services.database.db, exportId);
  if (!row || row.succeeded_ms !== null || row.failed_ms !== null || row.deleted_ms !== null) return;
  const stamp = Math.floor(row.requested_ms / 1000);
  const dirName = `zulip-export-${randomBytes(4).toString('hex')}`;
  const relPath = `exports/${row.realm_id}/${randomBytes(18).toString('base64url')}/${dirName}.tar.gz`;
  const full = join(services.config.uploadsDir, relPath);
  try {
    const files = await exportFiles(services, row.realm_id, row.export_type, stamp);
    // zlib loads here, on the first export (~1.5 MB resident if loaded at start).
    const { gzip } = await import('node:zlib');
    const archive = await promisify(gzip)(tarArchive(files.map((f) => ({ ...f, name: `${dirName}/${f.name}` }))));
    await mkdir(dirname(full), { recursive: true });
    await writeFile(full, archive);
  } catch (err) {
    console.error(`export ${exportId} failed:`, err);
    await rm(dirname(full), { recursive: true, force: true }).catch(() => undefined);
    await finish(services, row, { failed_ms: Date.now() });
    return;
  }
  // Deleted while it was being written: nothing to keep.
  if (!(await finish(services, row, { succeeded_ms: Date.now(), file_path: relPath }))) await rm(dirname(full), { recursive: true, force: true });
}

/** The stored export a download address names, if it is still there. */
export async function exportByPath(services: Services, realmId: number, filePath: string): Promise<string | null> {
  const path = await liveExportFilePath(services.database.db, realmId, filePath);
  return path ? join(services.config.uploadsDir, path) : null;
}
