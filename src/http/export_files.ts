// Downloading a data export at its export_url, /user_avatars/exports/{realm_id}/{secret}/{file}:
// to the organization's administrators (HTTP Basic, or `?api_key=` for a browser link).
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { FastifyInstance } from 'fastify';
import type { Services } from '../services.js';
import { requestUser } from './user_uploads.js';
import { isRealmAdmin } from '../access/channel_access.js';
import { exportByPath } from '../actions/realm_exports.js';

export function registerExportFiles(app: FastifyInstance, services: Services): void {
  app.get('/user_avatars/exports/:realm_id/:secret/:file', async (request, reply) => {
    const { realm_id: realmId, secret, file } = request.params as { realm_id: string; secret: string; file: string };
    const user = await requestUser(services, request);
    const notFound = () => reply.code(404).send({ result: 'error', msg: 'Not Found', code: 'NOT_FOUND' });
    // Only names the server made; someone else's organization looks like a missing file.
    if (!/^\d{1,15}$/.test(realmId) || !/^[A-Za-z0-9_-]{1,64}$/.test(secret) || !/^zulip-export-[0-9a-f]+\.tar\.gz$/.test(file)) return notFound();
    if (Number(realmId) !== user.realm_id || !isRealmAdmin(user)) return notFound();
    const path = await exportByPath(services, user.realm_id, `exports/${realmId}/${secret}/${file}`);
    const info = path ? await stat(path).catch(() => undefined) : undefined;
    if (!path || !info?.isFile()) return notFound();
    reply.header('Content-Length', String(info.size));
    reply.header('Content-Disposition', `attachment; filename="${file}"`);
    reply.header('Cache-Control', 'private, no-store');
    reply.header('X-Content-Type-Options', 'nosniff');
    return reply.type('application/gzip').send(createReadStream(path));
  });
}
