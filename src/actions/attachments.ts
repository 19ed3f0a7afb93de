// File uploads and the bookkeeping of which messages link them: upload, list, delete, who may
// read a file, and the claims a sent or edited message makes on the files it links.
import type { Transaction } from 'kysely';
import type { DB } from '../store/schema.js';
import type { Services } from '../services.js';
import { nowSeconds } from '../services.js';
import type { Realm } from '../store/realms.js';
import { ROLE, type User } from '../store/users.js';
import type { UploadedFile } from '../lib/uploads.js';
import { BadRequest } from '../errors.js';
import { publishAfterCommit, type OnCommit } from '../events/publish.js';
import {
  attachmentById,
  attachmentsByPaths,
  attachmentsOfMessage,
  attachmentsOfOwner,
  deleteAttachmentRow,
  insertAttachment,
  linkAttachments,
  linkedMessageIds,
  readableThroughMessages,
  unlinkAttachments,
  uploadSpaceUsed,
  type Attachment,
} from '../store/attachments.js';
import type { Executor } from '../store/db.js';
import { deleteStoredFile, linkedUploadPaths, newPathId, newUrlSecret, sanitizeFileName, storeUploadedFile, uploadContentType } from '../lib/uploads.js';

/** The attachment as the API shows it (GET /attachments, attachment events, detached_uploads). */
export function attachmentDict(a: Attachment, messageIds: number[]): Record<string, unknown> {
  return { id: a.id, name: a.file_name, path_id: a.path_id, size: a.size, create_time: a.create_time, message_ids: messageIds };
}

/** Zulip un-percent-encodes the name a client sent; NUL cannot be stored. */
function clientFileName(raw: string): string {
  let name = raw;
  try {
    name = decodeURIComponent(raw);
  } catch {
    /* not percent-encoded: keep it as sent */
  }
  return name.replace(/\u0000/g, '');
}

/** The organization's max_file_upload_size_mib, in bytes. */
export function maxUploadBytes(services: Services): number {
  return services.config.maxFileUploadSizeMib * 1024 * 1024;
}

export function uploadTooLarge(services: Services): BadRequest {
  return new BadRequest(`File is larger than this server's configured maximum upload size (${services.config.maxFileUploadSizeMib} MiB).`);
}

export async function uploadFile(services: Services, user: User, realm: Realm, files: UploadedFile[]): Promise<{ url: string; filename: string }> {
  if (files.length === 0) throw new BadRequest('You must specify a file to upload');
  if (files.length !== 1) throw new BadRequest('You may only upload one file at a time');
  const file = files[0]!;
  // The multipart parser refused a file past the limit while it streamed; this holds for any caller.
  if (file.size > maxUploadBytes(services)) throw uploadTooLarge(services);
  const fileName = clientFileName(file.filename);
  const pathId = newPathId(realm.id, sanitizeFileName(fileName));
  const contentType = uploadContentType(file.mimeType, fileName, file);
  const uploadsDir = services.config.uploadsDir;
  await storeUploadedFile(uploadsDir, pathId, file.path);
  try {
    await services.database.transaction(async (tx, onCommit) => {
      const row: Omit<Attachment, 'id'> = {
        realm_id: realm.id,
        owner_id: user.id,
        path_id: pathId,
        file_name: fileName,
        content_type: contentType,
        size: file.size,
        create_time: nowSeconds(),
        url_secret: newUrlSecret(),
      };
      const id = await insertAttachment(tx, row);
      const used = await uploadSpaceUsed(tx, realm.id);
      publishAfterCommit(services, onCommit, {
        realmId: realm.id,
        userIds: [user.id],
        event: { type: 'attachment', op: 'add', attachment: attachmentDict({ ...row, id }, []), upload_space_used: used },
      });
    });
  } catch (err) {
    await deleteStoredFile(uploadsDir, pathId).catch(() => undefined);
    throw err;
  }
  return { url: `/user_uploads/${pathId}`, filename: fileName };
}

export async function listAttachments(services: Services, user: User, realm: Realm): Promise<{ attachments: Record<string, unknown>[]; upload_space_used: number }> {
  const db = services.database.db;
  const own = await attachmentsOfOwner(db, user.id);
  const links = await linkedMessageIds(db, own.map((a) => a.id));
  return { attachments: own.map((a) => attachmentDict(a, links.get(a.id) ?? [])), upload_space_used: await uploadSpaceUsed(db, realm.id) };
}

/** Only the owner may delete a file; any other id is "Invalid attachment", as for a missing one. */
export async function removeAttachment(services: Services, user: User, realm: Realm, attachmentId: number): Promise<void> {
  const pathId = await services.database.transaction(async (tx, onCommit) => {
    const a = await attachmentById(tx, attachmentId);
    if (!a || a.owner_id !== user.id || a.realm_id !== realm.id) throw new BadRequest('Invalid attachment');
    await deleteAttachmentRow(tx, a.id);
    const used = await uploadSpaceUsed(tx, realm.id);
    publishAfterCommit(services, onCommit, {
      realmId: realm.id,
      userIds: [user.id],
      event: { type: 'attachment', op: 'remove', attachment: { id: a.id }, upload_space_used: used },
    });
    return a.path_id;
  });
  // The row is gone: nobody can reach the file any more, so it goes after the commit.
  await deleteStoredFile(services.config.uploadsDir, pathId);
}

/** Zulip's validate_attachment_request for a logged-in user: the owner, or a reader of a linking message. */
export async function mayAccessAttachment(db: Executor, user: User, a: Attachment): Promise<boolean> {
  return (await accessibleAttachments(db, user, [a])).length === 1;
}

/** The attachments of the list the user may read, in a bounded number of queries. */
async function accessibleAttachments(db: Executor, user: User, list: Attachment[]): Promise<Attachment[]> {
  const mine = list.filter((a) => a.realm_id === user.realm_id);
  const others = mine.filter((a) => a.owner_id !== user.id);
  const readable = await readableThroughMessages(db, others.map((a) => a.id), { id: user.id, isGuest: user.role === ROLE.guest });
  return mine.filter((a) => a.owner_id === user.id || readable.has(a.id));
}

/** Tells each owner that these attachments' lists of messages changed. */
async function notifyUpdated(services: Services, tx: Transaction<DB>, onCommit: OnCommit, realmId: number, changed: Attachment[]): Promise<void> {
  if (changed.length === 0) return;
  const links = await linkedMessageIds(tx, changed.map((a) => a.id));
  const used = await uploadSpaceUsed(tx, realmId);
  for (const a of changed) {
    publishAfterCommit(services, onCommit, {
      realmId,
      userIds: [a.owner_id],
      event: { type: 'attachment', op: 'update', attachment: attachmentDict(a, links.get(a.id) ?? []), upload_space_used: used },
    });
  }
}

/** The linked files the sender may share: their own, or ones they can already read (as Zulip). */
async function claimable(services: Services, tx: Transaction<DB>, sender: User, realmId: number, paths: string[]): Promise<Attachment[]> {
  const found = await attachmentsByPaths(tx, realmId, paths, services.database.dialect === 'postgres');
  return accessibleAttachments(tx, sender, found);
}

export interface LinkingMessage {
  id: number;
  realmId: number;
  sender: User;
  renderedHtml: string;
}

/** A new message claims the uploaded files it links (run inside the send's transaction). */
export async function claimMessageAttachments(services: Services, tx: Transaction<DB>, onCommit: OnCommit, m: LinkingMessage): Promise<void> {
  const paths = linkedUploadPaths(m.renderedHtml, services.config.externalUrl);
  if (paths.length === 0) return;
  const claimed = await claimable(services, tx, m.sender, m.realmId, paths);
  await linkAttachments(tx, m.id, claimed.map((a) => a.id));
  await notifyUpdated(services, tx, onCommit, m.realmId, claimed);
}

/**
 * An edited message's links follow its new content: files no longer linked are released, newly
 * linked ones claimed. Returns the editor's own files that no message links any more (Zulip's
 * detached_uploads).
 */
export async function updateMessageAttachments(services: Services, tx: Transaction<DB>, onCommit: OnCommit, m: LinkingMessage & { previousHtml: string }): Promise<Record<string, unknown>[]> {
  const paths = linkedUploadPaths(m.renderedHtml, services.config.externalUrl);
  if (paths.length === 0 && !m.previousHtml.includes('user_uploads/')) return [];
  const before = await attachmentsOfMessage(tx, m.id);
  const wanted = new Set(paths);
  const released = before.filter((a) => !wanted.has(a.path_id));
  const had = new Set(before.map((a) => a.path_id));
  const added = await claimable(services, tx, m.sender, m.realmId, paths.filter((p) => !had.has(p)));
  await unlinkAttachments(tx, m.id, released.map((a) => a.id));
  await linkAttachments(tx, m.id, added.map((a) => a.id));
  await notifyUpdated(services, tx, onCommit, m.realmId, [...released, ...added]);
  if (released.length === 0) return [];
  const remaining = await linkedMessageIds(tx, released.map((a) => a.id));
  return released.filter((a) => a.owner_id === m.sender.id && (remaining.get(a.id) ?? []).length === 0).map((a) => attachmentDict(a, []));
}
