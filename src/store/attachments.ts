// Uploaded files (attachments) and the messages that link them.
import type { AttachmentTable, Row } from './schema.js';
import { sql } from 'kysely';
import type { Executor } from './db.js';

export type Attachment = Row<AttachmentTable>;

function fromRow(r: Record<string, unknown>): Attachment {
  return {
    id: Number(r.id),
    realm_id: Number(r.realm_id),
    owner_id: Number(r.owner_id),
    path_id: String(r.path_id),
    file_name: String(r.file_name),
    content_type: String(r.content_type),
    size: Number(r.size),
    create_time: Number(r.create_time),
    url_secret: String(r.url_secret),
  };
}

export async function insertAttachment(db: Executor, a: Omit<Attachment, 'id'>): Promise<number> {
  const row = await db.insertInto('attachments').values(a).returning('id').executeTakeFirstOrThrow();
  return Number(row.id);
}

export async function attachmentByPath(db: Executor, pathId: string): Promise<Attachment | undefined> {
  const r = await db.selectFrom('attachments').selectAll().where('path_id', '=', pathId).executeTakeFirst();
  return r ? fromRow(r) : undefined;
}

/** `lockRows` (PostgreSQL): held until the transaction ends, so a concurrent delete waits for links made to them. */
export async function attachmentsByPaths(db: Executor, realmId: number, pathIds: readonly string[], lockRows = false): Promise<Attachment[]> {
  if (pathIds.length === 0) return [];
  let q = db.selectFrom('attachments').selectAll().where('realm_id', '=', realmId).where('path_id', 'in', pathIds);
  if (lockRows) q = q.forKeyShare();
  return (await q.execute()).map(fromRow);
}

export async function attachmentById(db: Executor, id: number): Promise<Attachment | undefined> {
  const r = await db.selectFrom('attachments').selectAll().where('id', '=', id).executeTakeFirst();
  return r ? fromRow(r) : undefined;
}

export async function attachmentsOfOwner(db: Executor, ownerId: number): Promise<Attachment[]> {
  const rows = await db.selectFrom('attachments').selectAll().where('owner_id', '=', ownerId).orderBy('id').execute();
  return rows.map(fromRow);
}

export async function deleteAttachmentRow(db: Executor, id: number): Promise<void> {
  await db.deleteFrom('attachment_messages').where('attachment_id', '=', id).execute();
  await db.deleteFrom('attachments').where('id', '=', id).execute();
}

/** The ids of the messages linking each attachment, ascending. */
export async function linkedMessageIds(db: Executor, attachmentIds: readonly number[]): Promise<Map<number, number[]>> {
  const out = new Map<number, number[]>(attachmentIds.map((id) => [id, []]));
  if (attachmentIds.length === 0) return out;
  const rows = await db
    .selectFrom('attachment_messages')
    .select(['attachment_id', 'message_id'])
    .where('attachment_id', 'in', attachmentIds)
    .orderBy('message_id')
    .execute();
  for (const r of rows) out.get(Number(r.attachment_id))?.push(Number(r.message_id));
  return out;
}

/** The attachments a message links now. */
export async function attachmentsOfMessage(db: Executor, messageId: number): Promise<Attachment[]> {
  const rows = await db
    .selectFrom('attachment_messages')
    .innerJoin('attachments', 'attachments.id', 'attachment_messages.attachment_id')
    .selectAll('attachments')
    .where('attachment_messages.message_id', '=', messageId)
    .execute();
  return rows.map(fromRow);
}

export async function linkAttachments(db: Executor, messageId: number, attachmentIds: readonly number[]): Promise<void> {
  if (attachmentIds.length === 0) return;
  await db
    .insertInto('attachment_messages')
    .values(attachmentIds.map((attachment_id) => ({ attachment_id, message_id: messageId })))
    .onConflict((oc) => oc.columns(['attachment_id', 'message_id']).doNothing())
    .execute();
}

export async function unlinkAttachments(db: Executor, messageId: number, attachmentIds: readonly number[]): Promise<void> {
  if (attachmentIds.length === 0) return;
  await db.deleteFrom('attachment_messages').where('message_id', '=', messageId).where('attachment_id', 'in', attachmentIds).execute();
}

/** Bytes of every file the organization's users have uploaded (Zulip's upload_space_used). */
export async function uploadSpaceUsed(db: Executor, realmId: number): Promise<number> {
  const r = await db
    .selectFrom('attachments')
    .select(sql<number | string | null>`sum(size)`.as('total'))
    .where('realm_id', '=', realmId)
    .executeTakeFirst();
  return Number(r?.total ?? 0);
}

/**
 * Of these attachments, the ones the user may read through a linking message, by Zulip's rules: a
 * linked message in a public channel (for non-guests), a linked message the user received, or
 * one in a channel the user is subscribed to whose history is open to subscribers. Three
 * queries, however many attachments.
 */
export async function readableThroughMessages(db: Executor, attachmentIds: readonly number[], user: { id: number; isGuest: boolean }): Promise<Set<number>> {
  const out = new Set<number>();
  if (attachmentIds.length === 0) return out;
  const linked = await db
    .selectFrom('attachment_messages')
    .innerJoin('messages', 'messages.id', 'attachment_messages.message_id')
    .leftJoin('streams', 'streams.id', 'messages.stream_id')
    .select(['attachment_messages.attachment_id', 'attachment_messages.message_id', 'messages.stream_id', 'streams.invite_only', 'streams.history_public_to_subscribers'])
    .where('attachment_messages.attachment_id', 'in', attachmentIds)
    .execute();
  const rows = linked.map((m) => ({
    attachment: Number(m.attachment_id),
    message: Number(m.message_id),
    stream: m.stream_id === null ? null : Number(m.stream_id),
    invite_only: !!m.invite_only,
    openHistory: !!m.history_public_to_subscribers,
  }));
  for (const m of rows) if (!user.isGuest && m.stream !== null && !m.invite_only) out.add(m.attachment);
  const rest = rows.filter((m) => !out.has(m.attachment));
  if (rest.length === 0) return out;
  const received = await db
    .selectFrom('user_messages')
    .select('message_id')
    .where('user_id', '=', user.id)
    .where('message_id', 'in', [...new Set(rest.map((m) => m.message))])
    .execute();
  const receivedIds = new Set(received.map((r) => Number(r.message_id)));
  for (const m of rest) if (receivedIds.has(m.message)) out.add(m.attachment);
  const streams = [...new Set(rest.filter((m) => !out.has(m.attachment) && m.stream !== null && m.openHistory).map((m) => m.stream!))];
  if (streams.length === 0) return out;
  const subs = await db.selectFrom('subscriptions').select('stream_id').where('user_id', '=', user.id).where('stream_id', 'in', streams).where('active', '=', true).execute();
  const subscribed = new Set(subs.map((r) => Number(r.stream_id)));
  for (const m of rest) if (m.stream !== null && m.openHistory && subscribed.has(m.stream)) out.add(m.attachment);
  return out;
}
