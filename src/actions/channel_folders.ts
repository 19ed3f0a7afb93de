// Channel folders: created, renamed, described, archived and ordered by administrators.
import { sql } from 'kysely';
import type { Services } from '../services.js';
import { nowSeconds } from '../services.js';
import type { Realm } from '../store/realms.js';
import type { User } from '../store/users.js';
import type { Executor } from '../store/db.js';
import { BadRequest, AdminRequired } from '../errors.js';
import { publishAfterCommit } from '../events/publish.js';
import { renderMarkdown } from '../markdown/render.js';
import { isRealmAdmin } from '../access/channel_access.js';
import { onConflict } from '../store/conflicts.js';

export const MAX_FOLDER_NAME_LENGTH = 60;
export const MAX_FOLDER_DESCRIPTION_LENGTH = 1024;

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

function fromRow(r: Record<string, any>): ChannelFolder {
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

export async function listChannelFolders(db: Executor, realmId: number, includeArchived: boolean): Promise<ChannelFolder[]> {
  let q = db.selectFrom('channel_folders').selectAll().where('realm_id', '=', realmId);
  if (!includeArchived) q = q.where('is_archived', '=', false);
  return (await q.orderBy('order_index').orderBy('id').execute()).map(fromRow);
}

export async function getChannelFolder(db: Executor, realmId: number, id: number): Promise<ChannelFolder | undefined> {
  const r = await db.selectFrom('channel_folders').selectAll().where('realm_id', '=', realmId).where('id', '=', id).executeTakeFirst();
  return r ? fromRow(r) : undefined;
}

function requireAdmin(user: User): void {
  if (!isRealmAdmin(user)) throw new AdminRequired();
}

function validName(raw: string): string {
  const name = raw.trim();
  if (!name) throw new BadRequest("Channel folder name can't be empty.");
  if (name.length > MAX_FOLDER_NAME_LENGTH) throw new BadRequest(`Channel folder name too long (limit: ${MAX_FOLDER_NAME_LENGTH} characters).`);
  return name;
}

function validDescription(raw: string): string {
  if (raw.length > MAX_FOLDER_DESCRIPTION_LENGTH) throw new BadRequest(`Channel folder description too long (limit: ${MAX_FOLDER_DESCRIPTION_LENGTH} characters).`);
  return raw;
}

async function nameTaken(db: Executor, realmId: number, name: string, exceptId?: number): Promise<boolean> {
  let q = db.selectFrom('channel_folders').select('id').where('realm_id', '=', realmId).where('is_archived', '=', false).where(sql<boolean>`lower(name) = lower(${name})`);
  if (exceptId !== undefined) q = q.where('id', '<>', exceptId);
  return !!(await q.executeTakeFirst());
}

async function everyone(services: Services, realmId: number): Promise<number[]> {
  return [...(await services.cache.users(realmId)).values()].filter((u) => u.is_active).map((u) => u.id);
}

export async function createChannelFolder(services: Services, caller: User, realm: Realm, name: string, description: string): Promise<{ channel_folder_id: number }> {
  requireAdmin(caller);
  const n = validName(name);
  const d = validDescription(description);
  const rendered = renderMarkdown(d).html;
  const audience = await everyone(services, realm.id);
  return onConflict(services.database.transaction(async (tx, onCommit) => {
    if (await nameTaken(tx, realm.id, n)) throw new BadRequest('Channel folder name already in use');
    const max = await tx.selectFrom('channel_folders').select((eb) => eb.fn.max('order_index').as('m')).where('realm_id', '=', realm.id).executeTakeFirst();
    const order = Number(max?.m ?? -1) + 1;
    const now = nowSeconds();
    const row = await tx
      .insertInto('channel_folders')
      .values({ realm_id: realm.id, name: n, description: d, rendered_description: rendered, order_index: order, date_created: now, creator_id: caller.id, is_archived: false })
      .returning('id')
      .executeTakeFirstOrThrow();
    const folder: ChannelFolder = { id: row.id, name: n, description: d, rendered_description: rendered, order, date_created: now, creator_id: caller.id, is_archived: false };
    publishAfterCommit(services, onCommit, { realmId: realm.id, userIds: audience, event: { type: 'channel_folder', op: 'add', channel_folder: folder } });
    return { channel_folder_id: row.id };
  }), () => new BadRequest('Channel folder name already in use'));
}

export async function updateChannelFolder(
  services: Services,
  caller: User,
  realm: Realm,
  id: number,
  u: { name?: string; description?: string; isArchived?: boolean },
): Promise<void> {
  requireAdmin(caller);
  const audience = await everyone(services, realm.id);
  await onConflict(services.database.transaction(async (tx, onCommit) => {
    const folder = await getChannelFolder(tx, realm.id, id);
    if (!folder) throw new BadRequest('Invalid channel folder ID');
    const data: Record<string, unknown> = {};
    const set: Record<string, unknown> = {};
    if (u.name !== undefined) {
      const n = validName(u.name);
      if (await nameTaken(tx, realm.id, n, id)) throw new BadRequest('Channel folder name already in use');
      if (n !== folder.name) data.name = set.name = n;
    }
    if (u.description !== undefined) {
      const d = validDescription(u.description);
      if (d !== folder.description) {
        data.description = set.description = d;
        data.rendered_description = set.rendered_description = renderMarkdown(d).html;
      }
    }
    if (u.isArchived !== undefined && u.isArchived !== folder.is_archived) {
      if (u.isArchived) {
        const inUse = await tx.selectFrom('streams').select('id').where('folder_id', '=', id).where('is_archived', '=', false).limit(1).executeTakeFirst();
        if (inUse) throw new BadRequest('You need to remove all the channels from this folder to archive it.');
      }
      data.is_archived = set.is_archived = u.isArchived;
    }
    if (Object.keys(set).length === 0) return;
    await tx.updateTable('channel_folders').set(set).where('id', '=', id).execute();
    publishAfterCommit(services, onCommit, { realmId: realm.id, userIds: audience, event: { type: 'channel_folder', op: 'update', channel_folder_id: id, data } });
  }), () => new BadRequest('Channel folder name already in use'));
}

export async function reorderChannelFolders(services: Services, caller: User, realm: Realm, order: number[]): Promise<void> {
  requireAdmin(caller);
  const audience = await everyone(services, realm.id);
  await services.database.transaction(async (tx, onCommit) => {
    const all = await listChannelFolders(tx, realm.id, true);
    const ids = new Set(all.map((f) => f.id));
    if (order.length !== ids.size || new Set(order).size !== order.length || !order.every((id) => ids.has(id))) throw new BadRequest('Invalid order mapping');
    for (const [index, id] of order.entries()) await tx.updateTable('channel_folders').set({ order_index: index }).where('id', '=', id).execute();
    publishAfterCommit(services, onCommit, { realmId: realm.id, userIds: audience, event: { type: 'channel_folder', op: 'reorder', order } });
  });
}
