// Serving uploaded files at /user_uploads/… (outside the API prefix, so that links in messages
// work in a browser): to the uploader and to those who can read a message linking the file.
// Credentials: HTTP Basic, or Zulip's legacy `?api_key=` for clients that cannot set headers;
// a temporary URL from GET /api/v1/user_uploads/… needs none for a minute.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Services } from '../services.js';
import { nowSeconds } from '../services.js';
import { BadRequest, Unauthorized } from '../errors.js';
import { authenticate, authenticateApiKey } from './auth.js';
import type { User } from '../store/users.js';
import { attachmentByPath, type Attachment } from '../store/attachments.js';
import { mayAccessAttachment } from '../actions/attachments.js';
import { bareType, contentDisposition, filePath, parseTemporaryToken, servedInline, temporaryTokenValid } from '../lib/uploads.js';
import { FILE_NOT_FOUND } from './routes/uploads.js';

export async function requestUser(services: Services, request: FastifyRequest): Promise<User> {
  if (request.headers.authorization) return (await authenticate(services, request)).user;
  const apiKey = (request.query as Record<string, unknown> | undefined)?.api_key;
  if (typeof apiKey !== 'string') throw new Unauthorized();
  return (await authenticateApiKey(services, apiKey)).user;
}

function notFound(reply: FastifyReply): FastifyReply {
  return reply.code(404).type('text/html; charset=utf-8').send(`<p>${FILE_NOT_FOUND}</p>`);
}

async function sendFile(services: Services, reply: FastifyReply, a: Attachment, forceDownload: boolean): Promise<FastifyReply> {
  const full = filePath(services.config.uploadsDir, a.path_id);
  let size: number;
  try {
    size = (await stat(full)).size;
  } catch {
    return notFound(reply);
  }
  reply.header('Content-Type', a.content_type);
  reply.header('Content-Length', String(size));
  reply.header('Content-Disposition', contentDisposition(!forceDownload && servedInline(a.content_type), a.file_name));
  reply.header('Cache-Control', 'private, immutable');
  // The browser must take the stored type as it is, never guess a more dangerous one.
  reply.header('X-Content-Type-Options', 'nosniff');
  // An SVG shown in place may not run scripts or load anything.
  if (bareType(a.content_type) === 'image/svg+xml') reply.header('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; sandbox");
  return reply.send(createReadStream(full));
}

export function registerUserUploads(app: FastifyInstance, services: Services): void {
  const serve = (forceDownload: boolean) => async (request: FastifyRequest, reply: FastifyReply) => {
    const params = request.params as { realm_id_str: string; '*': string };
    const user = await requestUser(services, request);
    const rest = params['*'] ?? '';
    if (!/^\d+$/.test(params.realm_id_str) || !rest || rest.includes('\u0000')) return notFound(reply);
    const db = services.database.db;
    const a = await attachmentByPath(db, `${params.realm_id_str}/${rest}`);
    // A file the user may not see looks exactly like one that does not exist.
    if (!a || !(await mayAccessAttachment(db, user, a))) return notFound(reply);
    return sendFile(services, reply, a, forceDownload);
  };
  app.get('/user_uploads/download/:realm_id_str/*', serve(true));
  app.get('/user_uploads/:realm_id_str/*', serve(false));

  app.get('/user_uploads/temporary/:token/:filename', async (request, reply) => {
    const { token, filename } = request.params as { token: string; filename: string };
    const parsed = parseTemporaryToken(token);
    const a = parsed ? await attachmentByPath(services.database.db, parsed.pathId) : undefined;
    if (!parsed || !a || !temporaryTokenValid(parsed, a.url_secret, nowSeconds())) throw new BadRequest('Invalid token');
    if (parsed.pathId.split('/').pop() !== filename) throw new BadRequest('Invalid filename');
    return sendFile(services, reply, a, false);
  });
}
