// Channel folders of an organization, in the administrators' order. A folder's name is unique
// among the organization's unarchived folders, ignoring case (a unique index on lower(name)).
import { sql } from 'kysely';
import type { Executor } from './db.js';
import type { ChannelFolderTable } from './schema.js';
import type { Selectable } from 'kysely';

export interface ChannelFolder {
  id: number;
  name: string;
  description: string;
  rendered_description: string;
  order: number;
  date_created: number;
  creator_id: number | null;
  is_archived: boolean;
}

function fromRow(r: Selectable<ChannelFolderTable>): ChannelFolder {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    rendered_description: r.rendered_description,
    order: Number(r.order_index),
    date_created: Number(r.date_created),
    creator_id: r.creator_id,
    is_archived: !!r.is_archived,
  };
}

/** The organization's folders in their order (ties, which a reorder never leaves, by id). */
export async function listChannelFolders(db: Executor, realmId: number, includeArchived: boolean): Promise<ChannelFolder[]> {
  let q = db.selectFrom('channel_folders').selectAll().where('realm_id', '=', realmId);
  if (!includeArchived) q = q.where('is_archived', '=', false);
  return (await q.orderBy('order_index').orderBy('id').execute()).map(fromRow);
}

export async function getChannelFolder(db: Executor, realmId: number, id: number): Promise<ChannelFolder | undefined> {
  const r = await db.selectFrom('channel_folders').selectAll().where('realm_id', '=', realmId).where('id', '=', id).executeTakeFirst();
  return r ? fromRow(r) : undefined;
}

/** Whether another unarchived folder of the organization has this name, in any case. */
export async function channelFolderNameTaken(db: Executor, realmId: number, name: string, exceptId?: number): Promise<boolean> {
  let q = db.selectFrom('channel_folders').select('id').where('realm_id', '=', realmId).where('is_archived', '=', false).where(sql<boolean>`lower(name) = lower(${name})`);
  if (exceptId !== undefined) q = q.where('id', '<>', exceptId);
  return !!(await q.executeTakeFirst());
}

/** Adds a folder after the organization's last one; a taken name fails with a UniqueConflict. */
export async function insertChannelFolder(
  db: Executor,
  realmId: number,
  f: { name: string; description: string; rendered_description: string; date_created: number; creator_id: number },
): Promise<ChannelFolder> {
  const max = await db.selectFrom('channel_folders').select((eb) => eb.fn.max('order_index').as('m')).where('realm_id', '=', realmId).executeTakeFirst();
  const order = Number(max?.m ?? -1) + 1;
  const row = await db
    .insertInto('channel_folders')
    .values({ realm_id: realmId, ...f, order_index: order, is_archived: false })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { id: row.id, name: f.name, description: f.description, rendered_description: f.rendered_description, order, date_created: f.date_created, creator_id: f.creator_id, is_archived: false };
}

/** Whether an unarchived channel is still in the folder (it cannot be archived then). */
export async function channelFolderInUse(db: Executor, folderId: number): Promise<boolean> {
  return !!(await db.selectFrom('streams').select('id').where('folder_id', '=', folderId).where('is_archived', '=', false).limit(1).executeTakeFirst());
}

export async function updateChannelFolderRow(
  db: Executor,
  id: number,
  set: { name?: string; description?: string; rendered_description?: string; is_archived?: boolean },
): Promise<void> {
  await db.updateTable('channel_folders').set(set).where('id', '=', id).execute();
}

/** Gives the folders the positions of `order` (all of the organization's folders' ids). */
export async function setChannelFolderOrder(db: Executor, order: number[]): Promise<void> {
  for (const [index, id] of order.entries()) await db.updateTable('channel_folders').set({ order_index: index }).where('id', '=', id).execute();
}
