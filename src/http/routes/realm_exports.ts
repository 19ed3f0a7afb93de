// Organization data exports (administrators): create, list, delete, and members' consent.
import { pathInt, type Router } from '../router.js';
import { BadRequest } from '../../errors.js';
import { createExport, deleteExport, EXPORT_TYPES, exportConsents, listExports, type ExportTypeName } from '../../actions/realm_exports.js';

export function registerRealmExportRoutes(r: Router): void {
  r.post('/export/realm', async ({ params, services, user, realm }) => {
    const type = params.optStr('export_type') ?? 'public';
    if (!Object.hasOwn(EXPORT_TYPES, type)) throw new BadRequest('Invalid export_type');
    return createExport(services, user, realm, type as ExportTypeName);
  });
  r.get('/export/realm', async ({ services, user, realm }) => ({ exports: await listExports(services, user, realm) }));
  r.delete('/export/realm/{export_id}', async (ctx) => {
    await deleteExport(ctx.services, ctx.user, ctx.realm, pathInt(ctx, 'export_id', () => new BadRequest('Invalid data export ID')));
    return {};
  });
  r.get('/export/realm/consents', async ({ services, user, realm }) => ({ export_consents: await exportConsents(services, user, realm) }));
}
