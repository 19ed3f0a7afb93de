// Channel folders: created, renamed, described, archived and ordered by administrators.
import type { Services } from '../services.js';
import { nowSeconds } from '../services.js';
import type { Realm } from '../store/realms.js';
import type { User } from '../store/users.js';
import { BadRequest, AdminRequired } from '../errors.js';
import { publishAfterCommit } from '../events/publish.js';
import { renderMarkdown } from '../markdown/render.js';
import { isRealmAdmin } from '../access/channel_access.js';
import { onConflict } from '../store/conflicts.js';
import type { ChannelFolder } from '../store/channel_folders.js';
import { channelFolderInUse, channelFolderNameTaken, getChannelFolder, insertChannelFolder, listChannelFolders, setChannelFolderOrder, updateChannelFolderRow } from '../store/channel_folders.js';

export const MAX_FOLDER_NAME_LENGTH = 60;
export const MAX_FOLDER_DESCRIPTION_LENGTH = 1024;

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
    if (await channelFolderNameTaken(tx, realm.id, n)) throw new BadRequest('Channel folder name already in use');
    const folder: ChannelFolder = await insertChannelFolder(tx, realm.id, { name: n, description: d, rendered_description: rendered, date_created: nowSeconds(), creator_id: caller.id });
    publishAfterCommit(services, onCommit, { realmId: realm.id, userIds: audience, event: { type: 'channel_folder', op: 'add', channel_folder: folder } });
    return { channel_folder_id: folder.id };
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
    const set: { name?: string; description?: string; rendered_description?: string; is_archived?: boolean } = {};
    if (u.name !== undefined) {
      const n = validName(u.name);
      if (await channelFolderNameTaken(tx, realm.id, n, id)) throw new BadRequest('Channel folder name already in use');
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
        if (await channelFolderInUse(tx, id)) throw new BadRequest('You need to remove all the channels from this folder to archive it.');
      }
      data.is_archived = set.is_archived = u.isArchived;
    }
    if (Object.keys(set).length === 0) return;
    await updateChannelFolderRow(tx, id, set);
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
    await setChannelFolderOrder(tx, order);
    publishAfterCommit(services, onCommit, { realmId: realm.id, userIds: audience, event: { type: 'channel_folder', op: 'reorder', order } });
  });
}
