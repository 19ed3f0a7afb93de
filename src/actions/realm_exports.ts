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
import type { RealmExportTable, Row } from '../store/schema.js';
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

type ExportRow = Row<RealmExportTable>;

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

async function exportRows(db: Executor, realmId: number): Promise<ExportRow[]> {
  return db.selectFrom('realm_exports').selectAll().where('realm_id', '=', realmId).orderBy('id').execute();
}

function requireAdmin(user: User): void {
  if (!isRealmAdmin(user)) throw new AdminRequired();
}

export async function listExports(services: Services, user: User, realm: Realm): Promise<RealmExport[]> {
  requireAdmin(user);
  return (await exportRows(services.database.db, realm.id)).map((r) => shape(services, r));
}

async function adminIds(services: Services, realmId: number): Promise<number[]> {
  return [...(await services.cache.users(realmId)).values()].filter((u) => u.is_active && !u.is_bot && isRealmAdmin(u)).map((u) => u.id);
}

/** Zulip sends the whole list to the organization's administrators whenever an export changes. */
async function announce(services: Services, tx: Executor, onCommit: OnCommit, realmId: number, admins: number[]): Promise<void> {
  const exports = (await exportRows(tx, realmId)).map((r) => shape(services, r));
  publishAfterCommit(services, onCommit, { realmId, userIds: admins, event: { type: 'realm_export', exports } });
}

// Exports being written, per server, so that shutting down waits for them.
const running = new WeakMap<Services, Set<Promise<void>>>();

export async function settleExports(services: Services): Promise<void> {
  const set = running.get(services);
  if (set) await Promise.allSettled([...set]);
}

function startInBackground(services: Services, exportId: number): void {
  let set = running.get(services);
  if (!set) running.set(services, (set = new Set()));
  const p: Promise<void> = new Promise<void>((resolve) => setImmediate(resolve))
    .then(() => runExport(services, exportId))
    .catch((err) => console.error(`export ${exportId} failed:`, err))
    .finally(() => set.delete(p));
  set.add(p);
}

export async function createExport(services: Services, user: User, realm: Realm, type: ExportTypeName): Promise<{ id: number }> {
  requireAdmin(user);
  if (type === 'full_without_consent' && !(realm.settings as unknown as Record<string, unknown>).owner_full_content_access) {
    throw new BadRequest('Full export without consent is not enabled for this organization.');
  }
  const db = services.database.db;
  // Zulip's estimate of the size: messages in public channels, and the space uploads take.
  const messages = await db
    .selectFrom('messages')
    .innerJoin('streams', 'streams.id', 'messages.stream_id')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('messages.realm_id', '=', realm.id)
    .where('streams.invite_only', '=', false)
    .executeTakeFirstOrThrow();
  const uploads = await db.selectFrom('attachments').select((eb) => eb.fn.sum<number | string | null>('size').as('bytes')).where('realm_id', '=', realm.id).executeTakeFirstOrThrow();
  if (Number(messages.n) > MAX_MESSAGE_HISTORY || Number(uploads.bytes ?? 0) > MAX_UPLOAD_BYTES) {
    throw new BadRequest(`Please request a manual export from ${services.config.mailFrom}.`);
  }
  const admins = await adminIds(services, realm.id);
  return services.database.transaction(async (tx, onCommit) => {
    const now = Date.now();
    const recent = await tx
      .selectFrom('realm_exports')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('realm_id', '=', realm.id)
      .where('requested_ms', '>=', now - EXPORT_WINDOW_MS)
      .executeTakeFirstOrThrow();
    if (Number(recent.n) >= EXPORT_LIMIT) throw new BadRequest('Exceeded rate limit.');
    const row = await tx
      .insertInto('realm_exports')
      .values({ realm_id: realm.id, acting_user_id: user.id, export_type: EXPORT_TYPES[type], requested_ms: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    await announce(services, tx, onCommit, realm.id, admins);
    onCommit(() => startInBackground(services, row.id));
    return { id: row.id };
  });
}

export async function deleteExport(services: Services, user: User, realm: Realm, exportId: number): Promise<void> {
  requireAdmin(user);
  const admins = await adminIds(services, realm.id);
  let path: string | null = null;
  await services.database.transaction(async (tx, onCommit) => {
    const row = await tx.selectFrom('realm_exports').selectAll().where('id', '=', exportId).where('realm_id', '=', realm.id).executeTakeFirst();
    if (!row) throw new BadRequest('Invalid data export ID');
    if (row.deleted_ms !== null) throw new BadRequest('Export already deleted');
    if (row.file_path === null) {
      if (row.failed_ms !== null) throw new BadRequest('Export failed, nothing to delete');
      throw new BadRequest('Export still in progress');
    }
    path = row.file_path;
    await tx.updateTable('realm_exports').set({ deleted_ms: Date.now() }).where('id', '=', row.id).execute();
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

/** The JSON files of an export: what the export type allows, never a secret. */
type Db = Services['database']['db'];

/** The organization's users; settings only of those whose private data goes in (`consenting`). */
async function exportUsers(db: Db, realmId: number, type: number) {
  const userRows = await db
    .selectFrom('users')
    .select(['id', 'email', 'full_name', 'role', 'is_bot', 'bot_type', 'bot_owner_id', 'is_active', 'date_joined', 'timezone', 'avatar_version', 'settings'])
    .where('realm_id', '=', realmId)
    .orderBy('id')
    .execute();
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
async function exportChannels(db: Db, realmId: number, consenting: ReadonlySet<number>, everyone: boolean) {
  const streams = await db.selectFrom('streams').selectAll().where('realm_id', '=', realmId).orderBy('id').execute();
  const publicStreams = new Set(streams.filter((s) => !s.invite_only).map((s) => s.id));
  const subs = await db
    .selectFrom('subscriptions')
    .select(['user_id', 'stream_id', 'active', 'color', 'is_muted', 'pin_to_top'])
    .where('realm_id', '=', realmId)
    .orderBy('id')
    .execute();
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
async function exportedDirectIds(db: Db, realmId: number, type: number, consenting: ReadonlySet<number>, everyone: boolean): Promise<Set<number>> {
  // Direct messages a consenting user sent or received (every one without consent).
  const directIds = new Set<number>();
  if (type !== EXPORT_TYPES.public) {
    const ids = [...consenting];
    for (let i = 0; i < ids.length; i += CHUNK) {
      let q = db.selectFrom('user_messages').innerJoin('messages', 'messages.id', 'user_messages.message_id').select('messages.id').where('messages.recipient_type', '=', 'direct');
      if (!everyone) q = q.where('user_messages.user_id', 'in', ids.slice(i, i + CHUNK));
      else q = q.where('messages.realm_id', '=', realmId);
      for (const r of await q.execute()) directIds.add(r.id);
      if (everyone) break;
    }
  }

  return directIds;
}

/** The messages that go in, read in id order a batch at a time, and the direct-message groups they name. */
async function exportMessages(db: Db, realmId: number, included: (id: number | null) => boolean, directIds: ReadonlySet<number>) {
  const messages: Record<string, unknown>[] = [];
  const dmGroups = new Set<number>();
  let after = 0;
  for (;;) {
    const batch = await db
      .selectFrom('messages')
      .select(['id', 'sender_id', 'recipient_type', 'stream_id', 'dm_group_id', 'topic', 'content', 'rendered_content', 'date_sent', 'last_edit_time', 'sending_client'])
      .where('realm_id', '=', realmId)
      .where('id', '>', after)
      .orderBy('id')
      .limit(CHUNK * 4)
      .execute();
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

export async function exportFiles(services: Services, realmId: number, type: number, mtime: number): Promise<TarEntry[]> {
  const db = services.database.db;
  const realm = await db.selectFrom('realms').selectAll().where('id', '=', realmId).executeTakeFirstOrThrow();
  const { users, consenting, everyone } = await exportUsers(db, realmId, type);
  const { channels, subscriptions, included } = await exportChannels(db, realmId, consenting, everyone);
  const directIds = await exportedDirectIds(db, realmId, type, consenting, everyone);
  const { messages, dmGroups } = await exportMessages(db, realmId, included, directIds);
  const messageIds = messages.map((m) => m.id as number);
  const reactions = await inChunks(messageIds, (ids) =>
    db.selectFrom('reactions').select(['message_id', 'user_id', 'emoji_name', 'emoji_code', 'reaction_type']).where('message_id', 'in', ids).orderBy('id').execute(),
  );
  const groups = await inChunks([...dmGroups], (ids) => db.selectFrom('direct_message_groups').select(['id', 'user_ids_key']).where('id', 'in', ids).execute());
  const attachmentLinks = await inChunks(messageIds, (ids) => db.selectFrom('attachment_messages').select(['attachment_id', 'message_id']).where('message_id', 'in', ids).execute());
  // Each upload's messages, grouped once (not one scan of every link per upload).
  const messagesByAttachment = new Map<number, number[]>();
  for (const l of attachmentLinks) {
    const list = messagesByAttachment.get(l.attachment_id);
    if (list) list.push(l.message_id);
    else messagesByAttachment.set(l.attachment_id, [l.message_id]);
  }
  const attachmentIds = [...messagesByAttachment.keys()];
  const attachments = await inChunks(attachmentIds, (ids) =>
    db.selectFrom('attachments').select(['id', 'owner_id', 'path_id', 'file_name', 'content_type', 'size', 'create_time']).where('id', 'in', ids).execute(),
  );
  const emoji = await db.selectFrom('realm_emoji').select(['id', 'name', 'author_id', 'file_name', 'is_animated', 'deactivated']).where('realm_id', '=', realmId).orderBy('id').execute();

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
    const current = await tx.selectFrom('realm_exports').select('deleted_ms').where('id', '=', row.id).executeTakeFirst();
    if (!current || current.deleted_ms !== null) return false;
    await tx.updateTable('realm_exports').set(patch).where('id', '=', row.id).execute();
    await announce(services, tx, onCommit, row.realm_id, admins);
    return true;
  });
}

/** Writes the archive of one requested export, then records (and announces) success or failure. */
export async function runExport(services: Services, exportId: number): Promise<void> {
  const row = await services.database.db.selectFrom('realm_exports').selectAll().where('id', '=', exportId).executeTakeFirst();
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
  const row = await services.database.db
    .selectFrom('realm_exports')
    .select(['file_path'])
    .where('realm_id', '=', realmId)
    .where('file_path', '=', filePath)
    .where('deleted_ms', 'is', null)
    .executeTakeFirst();
  return row?.file_path ? join(services.config.uploadsDir, row.file_path) : null;
}
