// Channel folders.
import type { Router } from '../router.js';
import { pathInt } from '../router.js';
import { check } from '../../lib/params.js';
import { BadRequest } from '../../errors.js';
import { createChannelFolder, reorderChannelFolders, updateChannelFolder } from '../../actions/channel_folders.js';
import { listChannelFolders } from '../../store/channel_folders.js';

export function registerChannelFolderRoutes(r: Router): void {
  r.post('/channel_folders/create', async ({ params, services, user, realm }) =>
    createChannelFolder(services, user, realm, params.str('name'), params.optStr('description') ?? ''),
  );

  r.get('/channel_folders', async ({ params, services, realm }) => ({
    channel_folders: await listChannelFolders(services.database.db, realm.id, params.bool('include_archived', false)),
  }));

  r.patch('/channel_folders', async ({ params, services, user, realm }) => {
    await reorderChannelFolders(services, user, realm, params.json('order', check.intList));
    return {};
  });

  r.patch('/channel_folders/{channel_folder_id}', async (ctx) => {
    const id = pathInt(ctx, 'channel_folder_id', () => new BadRequest('Invalid channel folder ID'));
    await updateChannelFolder(ctx.services, ctx.user, ctx.realm, id, {
      name: ctx.params.optStr('name'),
      description: ctx.params.optStr('description'),
      isArchived: ctx.params.optBool('is_archived'),
    });
    return {};
  });
}
