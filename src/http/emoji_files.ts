// The Unicode emoji data clients fetch, and custom emoji images at Zulip's address, /user_avatars/{realm_id}/emoji/images/{file}. Like
// Zulip's local file storage, they need no credentials (clients load them in <img> tags).
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Services } from '../services.js';
import { emojiFolder } from '../actions/realm_emoji.js';
import { emojiApiData } from '../lib/emoji.js';

const TYPES: Record<string, string> = { '.png': 'image/png', '.gif': 'image/gif', '.jpeg': 'image/jpeg', '.webp': 'image/webp' };

const notFound = (reply: FastifyReply) => reply.code(404).send({ result: 'error', msg: 'Not Found', code: 'NOT_FOUND' });

/** An emoji image's answer: its name never changes meaning, and uploaded bytes are served only as the image type they were checked to be. */
function immutableImage(reply: FastifyReply, type: string): FastifyReply {
  reply.header('Cache-Control', 'public, max-age=31536000, immutable');
  reply.header('X-Content-Type-Options', 'nosniff');
  return reply.type(type);
}

export function registerEmojiFiles(app: FastifyInstance, services: Services): void {
  // The Unicode emoji names clients offer (server_emoji_data_url in /register), without credentials.
  app.get('/static/generated/emoji/emoji_api.json', async (_request, reply) => {
    reply.header('Cache-Control', 'public, max-age=86400');
    return reply.type('application/json').send(JSON.stringify(emojiApiData()));
  });

  // An animated emoji's still image (still_url): its first frame, named .png as in Zulip; a
  // WebP animation's still is a WebP, so the type comes from the file's first bytes.
  app.get('/user_avatars/:realm_id/emoji/images/still/:file', async (request, reply) => {
    const { realm_id: realmId, file } = request.params as { realm_id: string; file: string };
    if (!/^\d{1,15}$/.test(realmId) || !/^[0-9a-f]{8}\.png$/.test(file)) return notFound(reply);
    const data = await readFile(join(emojiFolder(services.config.uploadsDir, Number(realmId)), 'still', file)).catch(() => undefined);
    if (!data) return notFound(reply);
    return immutableImage(reply, data.subarray(0, 4).toString('latin1') === 'RIFF' ? 'image/webp' : 'image/png').send(data);
  });

  app.get('/user_avatars/:realm_id/emoji/images/:file', async (request, reply) => {
    const { realm_id: realmId, file } = request.params as { realm_id: string; file: string };
    const type = TYPES[/\.[a-z]+$/.exec(file)?.[0] ?? ''];
    // Only names the server made: hex and a known extension (no path can be smuggled in).
    if (!/^\d{1,15}$/.test(realmId) || !/^[0-9a-f]{8}\.[a-z]+$/.test(file) || !type) return notFound(reply);
    const path = join(emojiFolder(services.config.uploadsDir, Number(realmId)), file);
    const info = await stat(path).catch(() => undefined);
    if (!info?.isFile()) return notFound(reply);
    reply.header('Content-Length', String(info.size));
    return immutableImage(reply, type).send(createReadStream(path));
  });
}
