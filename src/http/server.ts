// The HTTP server: Fastify with Zulip's conventions (form bodies, the error envelope, 401 with a
// challenge, 404 and 405 as JSON) and every route of src/http/routes.
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import formbody from '@fastify/formbody';
import { parse as parseQuery } from 'node:querystring';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { ApiError, MethodNotAllowed, NotFound, ServerShuttingDown } from '../errors.js';
import { UniqueConflict } from '../store/conflicts.js';
import type { Services } from '../services.js';
import { API_PREFIX, PUBLIC_BODY_LIMIT, Router } from './router.js';
import { RateLimitExceeded } from '../lib/rate_limit.js';
import { registerAllRoutes } from './routes/index.js';
import { registerHealth } from './health.js';
import { registerQueueHandover } from './queue_handover.js';
import { registerQueueMove } from './queue_move.js';
import { registerPages } from './pages.js';
import { registerEmojiFiles } from './emoji_files.js';
import { registerMultipart } from './multipart.js';
import { registerUserUploads } from './user_uploads.js';
import { registerExportFiles } from './export_files.js';
import { registerWebhooks } from './webhooks.js';
import { registerWebClient } from './web_client.js';
import { serveLongPoll } from './long_poll.js';

/**
 * Fastify's schema compilers (Ajv for validation, fast-json-stringify for serialization), loaded
 * only if a route ever declares a schema. No route does (parameters are read by Params), so an
 * idle server does not hold the ~90 modules of Ajv. Resolved from Fastify's own dependencies.
 */
type CompilerBuilder = (...args: unknown[]) => unknown;
const fastifyRequire = createRequire(createRequire(import.meta.url).resolve('fastify'));
const lazyCompiler = (pkg: string) => (...args: unknown[]) => ((fastifyRequire(pkg) as () => CompilerBuilder)())(...args);

function errorBody(err: ApiError) {
  return err.toBody();
}

/**
 * How long a connection whose request body was left unread stays open after the answer: nginx's
 * lingering_timeout (5 s). At 2 s a client on a loaded machine had not yet read the answer to its
 * refused 30 MiB upload when the connection was dropped (request_bodies failed in CI).
 */
const LINGER_MS = 5000;
const LINGERING = new WeakSet<object>();

/** See the onResponse hook: an answer before the body ends closes the connection gently. */
function closeWithoutReading(request: FastifyRequest, reply: FastifyReply): void {
  const raw = request.raw;
  const socket = raw.socket as (typeof raw.socket & { destroySoon?: () => void }) | null;
  if (raw.complete || !socket || socket.destroyed || LINGERING.has(raw)) return;
  LINGERING.add(raw);
  reply.header('Connection', 'close');
  raw.pause();
  // Node ends a `Connection: close` answer with destroySoon(), a reset while unread bytes wait:
  // end our side only, and destroy after the grace period if the client does not close first.
  socket.destroySoon = () => socket.end();
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
}

export function buildHttpServer(services: Services): FastifyInstance {
  const app = Fastify({
    logger: false,
    schemaController: {
      compilersFactory: {
        buildValidator: lazyCompiler('@fastify/ajv-compiler') as never,
        buildSerializer: lazyCompiler('@fastify/fast-json-stringify-compiler') as never,
      },
    },
    // Routes set their own (router.ts); this is the limit of pages and of 404s.
    bodyLimit: PUBLIC_BODY_LIMIT,
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true, maxParamLength: 2000 },
    return503OnClosing: false,
    // Plain long-polls are served before Fastify sees them (long_poll.ts); the rest go on to it.
    // The settings are the ones Fastify gives the server it makes itself.
    serverFactory: (handler) => {
      const server = createServer((req, res) => {
        serveLongPoll(services, req, res).then(
          (served) => {
            if (!served) handler(req, res);
          },
          (err: unknown) => {
            if (res.headersSent) return void res.destroy();
            console.error('long-poll fast path failed; the route answers instead:', err);
            handler(req, res);
          },
        );
      });
      server.keepAliveTimeout = 72_000;
      server.requestTimeout = 0;
      server.setTimeout(0);
      return server;
    },
    // Errors of the router itself (a malformed URL, a path segment too long) in the envelope too.
    frameworkErrors: (_err, _request, reply) => {
      // Always 400: the statuses Zulip's clients (and its API description) expect for a bad request.
      void (reply as FastifyReply).code(400).send({ result: 'error', msg: 'Bad request: malformed or oversized URL', code: 'BAD_REQUEST' });
    },
    // Errors the HTTP parser meets before any route runs (oversized headers, garbage) still get
    // Zulip's envelope.
    clientErrorHandler: (err: NodeJS.ErrnoException, socket) => {
      if (!socket.writable) return socket.destroy(err);
      const msg = err.code === 'HPE_HEADER_OVERFLOW' ? 'Bad request: headers or URL too large' : 'Bad request';
      const body = JSON.stringify({ result: 'error', msg, code: 'BAD_REQUEST' });
      socket.end(`HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
    },
  });

  // A request answered before its body was read whole (refused credentials, a limit passed): the
  // rest is never read. Closing at once would reset the connection while the client is still
  // sending, and a reset can discard the answer before the client reads it; so the server stops
  // reading (the client's sends stall), says `Connection: close`, ends its side, and drops the
  // connection when the client has closed or after a grace period.
  app.addHook('onResponse', async (request) => {
    const raw = request.raw;
    // Node drains an unread body after the answer (req._dump): stop that too.
    if (LINGERING.has(raw)) {
      raw.pause();
      raw.socket?.pause();
    }
  });

  app.register(formbody, { parser: (s) => parseQuery(s) });
  registerMultipart(app, services.config.uploadsDir, PUBLIC_BODY_LIMIT);
  // Bodies of other types (text/plain, …) are read as no parameters.
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, _body, done) => done(null, {}));

  app.setErrorHandler((err: FastifyError | ApiError, request, reply) => {
    closeWithoutReading(request, reply);
    if (err instanceof ApiError) {
      if (err.status === 401) reply.header('WWW-Authenticate', 'Basic realm="zulip"');
      if (err instanceof RateLimitExceeded) {
        reply.headers(err.headers());
      }
      // The retry must reach another process: not this connection again.
      if (err instanceof ServerShuttingDown) reply.header('Retry-After', '1').header('Connection', 'close');
      return reply.status(err.status).send(errorBody(err));
    }
    if (err instanceof UniqueConflict) {
      // An action that does not name the error its race deserves: still the loser's 400, not a 500.
      console.error(`unmapped unique conflict on ${request.method} ${request.url}: ${err.message}`);
      return reply.status(400).send({ result: 'error', msg: 'The request conflicts with a concurrent change; please retry.', code: 'BAD_REQUEST' });
    }
    const status = typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
    if (status === 500) {
      request.log.error(err);
      console.error(`internal error on ${request.method} ${request.url}:`, err);
      return reply.status(500).send({ result: 'error', msg: 'Internal server error', code: 'INTERNAL_SERVER_ERROR' });
    }
    const msg = err.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || err instanceof SyntaxError ? 'Malformed JSON' : status === 413 ? 'Request body too large' : 'Bad request';
    // Zulip answers request errors with 400; keep to the statuses its clients know (413 is what
    // its web server answers for a body past the limit).
    return reply.status([401, 403, 404, 405, 413, 429].includes(status) ? status : 400).send({ result: 'error', msg, code: 'BAD_REQUEST' });
  });

  const router = new Router(app, services);
  const notFound = (request: FastifyRequest, reply: FastifyReply) => {
    const methods = request.url.startsWith(API_PREFIX) ? router.paths.methodsFor(request.url) : undefined;
    const err = methods && !methods.has(request.method) ? new MethodNotAllowed() : new NotFound();
    if (err instanceof MethodNotAllowed) reply.header('Allow', [...methods!].join(', '));
    closeWithoutReading(request, reply);
    return reply.status(err.status).send(errorBody(err));
  };
  // No route: answered before the body is read (it would only be thrown away).
  app.addHook('onRequest', async (request, reply) => {
    if (request.is404) return notFound(request, reply);
  });
  app.setNotFoundHandler(notFound);

  registerAllRoutes(router);
  registerPages(app, services);
  registerHealth(app, services);
  registerQueueHandover(app, services);
  registerQueueMove(app, services);
  registerUserUploads(app, services);
  registerEmojiFiles(app, services);
  registerExportFiles(app, services);
  registerWebhooks(app, services);
  registerWebClient(app, services);
  return app;
}
