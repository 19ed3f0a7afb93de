// The browser client (web/, built by scripts/build_web.mjs into dist/web): the page at `/` and its
// hashed assets under /static/. The page is never cached (it names the current assets); assets are
// immutable. Files are compressed at build time (.br, .gz) and read into memory on first use.
import { readFileSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join, extname } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Services } from '../services.js';

// dist/src/http/web_client.js → dist/web/
const WEB_DIR = fileURLToPath(new URL('../../web/', import.meta.url));

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.ttf': 'font/ttf',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

interface StaticFile {
  raw: Buffer;
  gz?: Buffer;
  br?: Buffer;
  type: string;
}

function loadFile(path: string): StaticFile | undefined {
  if (!existsSync(path)) return undefined;
  const opt = (p: string) => (existsSync(p) ? readFileSync(p) : undefined);
  return { raw: readFileSync(path), gz: opt(`${path}.gz`), br: opt(`${path}.br`), type: TYPES[extname(path)] ?? 'application/octet-stream' };
}

/** The Content-Security-Policy of the page: no inline script, no eval, images from here and camo. */
export function webClientCsp(services: Services): string {
  const camo = services.config.camo ? ` ${new URL(services.config.camo.url).origin}` : '';
  return [
    "default-src 'self'",
    "script-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
    "form-action 'self'",
    `img-src 'self' data: blob:${camo}`,
    // KaTeX and the server's renderer write style attributes; style elements only from here.
    "style-src 'self'",
    "style-src-attr 'unsafe-inline'",
    "connect-src 'self'",
    "font-src 'self'",
    "media-src 'self'",
  ].join('; ');
}

function send(request: FastifyRequest, reply: FastifyReply, file: StaticFile) {
  const accept = String(request.headers['accept-encoding'] ?? '');
  reply.header('Content-Type', file.type);
  reply.header('Vary', 'Accept-Encoding');
  reply.header('X-Content-Type-Options', 'nosniff');
  if (file.br && /\bbr\b/.test(accept)) {
    reply.header('Content-Encoding', 'br');
    return reply.send(file.br);
  }
  if (file.gz && /\bgzip\b/.test(accept)) {
    reply.header('Content-Encoding', 'gzip');
    return reply.send(file.gz);
  }
  return reply.send(file.raw);
}

export function registerWebClient(app: FastifyInstance, services: Services, dir = WEB_DIR): void {
  const csp = webClientCsp(services);
  const assets = new Map<string, StaticFile | null>();
  let page: StaticFile | undefined;

  app.get('/', async (request, reply) => {
    // Read again until a build exists, so a server started before `npm run build` picks it up.
    page ??= loadFile(join(dir, 'index.html'));
    reply.header('Cache-Control', 'no-cache');
    reply.header('Content-Security-Policy', csp);
    reply.header('Referrer-Policy', 'same-origin');
    reply.header('X-Frame-Options', 'DENY');
    if (!page) {
      reply.code(503).type('text/plain; charset=utf-8');
      return 'The web client is not built: run `npm run build`.';
    }
    return send(request, reply, page);
  });

  app.get('/static/:file', async (request, reply) => {
    const { file } = request.params as { file: string };
    if (!/^[A-Za-z0-9_-]+\.[A-Za-z0-9.]+$/.test(file) || file.endsWith('.gz') || file.endsWith('.br')) {
      return reply.code(404).send({ result: 'error', msg: 'Not Found', code: 'NOT_FOUND' });
    }
    let found = assets.get(file);
    if (found === undefined) {
      found = loadFile(join(dir, 'static', file)) ?? null;
      if (found) assets.set(file, found);
    }
    if (!found) return reply.code(404).send({ result: 'error', msg: 'Not Found', code: 'NOT_FOUND' });
    reply.header('Cache-Control', 'public, max-age=31536000, immutable');
    return send(request, reply, found);
  });
}
