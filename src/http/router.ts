// Route registration: each route names its method and Zulip path, whether it needs credentials,
// and a handler that returns the fields added to the success envelope.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Services } from '../services.js';
import type { Realm } from '../store/realms.js';
import type { User } from '../store/users.js';
import { Params } from '../lib/params.js';
import { authenticate } from './auth.js';
import { rateLimitHeaders, type Verdict } from '../lib/rate_limit.js';
import { BadRequest, Unauthorized } from '../errors.js';
import { BOT_TYPE } from '../store/users.js';
import { botDomain } from '../shapes/realm.js';
import type { FileRouteSpec } from './multipart.js';
import { isForwardedByPeer } from './queue_forward.js';

export const API_PREFIX = '/api/v1';

export interface PublicContext {
  services: Services;
  params: Params;
  request: FastifyRequest;
  reply: FastifyReply;
  /** Path parameters as strings, e.g. {user_id: "12"}. */
  path: Record<string, string>;
  /** The client's name: the `client` parameter or the first word of the User-Agent. */
  clientName: string;
}

export interface AuthedContext extends PublicContext {
  user: User;
  realm: Realm;
}

export type Reply = object | void;

/** The largest body of a route without credentials (logins, sign-up): nothing there is long. */
export const PUBLIC_BODY_LIMIT = 1024 * 1024;
/** The largest non-file body of a logged-in route; far above any Zulip client's request. */
export const AUTHED_BODY_LIMIT = 10 * 1024 * 1024;

const LOGIN = Symbol('login');
type WithLogin = { [LOGIN]?: { user: User; realm: Realm } };
type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/**
 * The registered paths of one server and their methods, for telling 405 (wrong method) from 404
 * (no such route).
 */
export class PathRegistry {
  private readonly paths: Array<{ pattern: RegExp; methods: Set<string> }> = [];

  methodsFor(url: string): Set<string> | undefined {
    const path = url.split('?')[0]!;
    for (const p of this.paths) if (p.pattern.test(path)) return p.methods;
    return undefined;
  }

  add(fastifyPath: string, method: string): void {
    const escape = (seg: string) => seg.replace(/[.*+?^$()|[\]\\{}]/g, '\\$&');
    const parts = fastifyPath.split('/').map((seg) => (seg === '*' ? '.+' : seg.startsWith(':') ? '[^/]+' : escape(seg)));
    const source = '^' + parts.join('/') + '/?$';
    let entry = this.paths.find((p) => p.pattern.source === source);
    if (!entry) this.paths.push((entry = { pattern: new RegExp(source), methods: new Set() }));
    entry.methods.add(method);
  }
}

export function clientNameOf(request: FastifyRequest, params: Params): string {
  const fromParam = params.optStr('client');
  if (fromParam) return fromParam;
  const ua = request.headers['user-agent'] ?? '';
  return ua.split(/[/ ]/)[0] || 'Unspecified';
}

function buildParams(request: FastifyRequest): Params {
  const query = (request.query ?? {}) as Record<string, unknown>;
  const body = request.body;
  const raw = typeof body === 'object' && body !== null && !Buffer.isBuffer(body) && !Array.isArray(body) ? { ...query, ...(body as object) } : { ...query };
  return new Params(raw);
}

export function success(params: Params, data: Reply): Record<string, unknown> {
  const out: Record<string, unknown> = { result: 'success', msg: '', ...(data ?? {}) };
  const ignored = params.ignored();
  if (ignored.length) out.ignored_parameters_unsupported = ignored;
  return out;
}

export class Router {
  /** Organizations whose placeholder-address domain is recorded in services.emailDomains (see shapes/users.ts apiEmail). */
  private readonly knownRealms = new Set<number>();

  /** This server's API paths (404 or 405 for what matches none). */
  readonly paths = new PathRegistry();

  constructor(
    private readonly app: FastifyInstance,
    readonly services: Services,
  ) {}

  private add(method: Method, path: string, auth: boolean, handler: (c: AuthedContext) => Promise<Reply>, files?: FileRouteSpec): void {
    // Zulip paths write parameters as {name}; the last one may span slashes (navigation views).
    const fastifyPath = API_PREFIX + path.replace(/\{(\w+)\*\}/g, '*').replace(/\{(\w+)\}/g, ':$1');
    const wildcardName = /\{(\w+)\*\}/.exec(path)?.[1];
    this.paths.add(fastifyPath, method);
    this.app.route({
      method,
      url: fastifyPath,
      // An anonymous body is small (a login); a logged-in user's can carry long lists.
      bodyLimit: auth ? AUTHED_BODY_LIMIT : PUBLIC_BODY_LIMIT,
      config: { confabFiles: files },
      // Credentials and rate limits are checked before the body is read: a request that will be
      // refused never makes the server read (or store) what it sends.
      onRequest: async (request, reply) => {
        if (auth) {
          const { user, realm } = await authenticate(this.services, request);
          // An incoming-webhook bot's key may only post messages (its key sits in third-party services).
          if (user.is_bot && user.bot_type === BOT_TYPE.incoming_webhook && !(method === 'POST' && path === '/messages')) {
            throw new Unauthorized('This API is not available to incoming webhook bots.');
          }
          if (!this.knownRealms.has(realm.id)) {
            this.services.emailDomains.set(realm.id, botDomain(realm, this.services.config.externalUrl));
            this.knownRealms.add(realm.id);
          }
          (request as WithLogin)[LOGIN] = { user, realm };
        }
        const limiter = this.services.rateLimiter;
        // A poll a peer process relays here was counted where it arrived; counting it again would
        // charge a clustered client twice for each long-poll.
        if (limiter && !isForwardedByPeer(this.services, request)) {
          const login = (request as WithLogin)[LOGIN];
          const verdict = login ? await limiter.hit(`user:${login.user.id}`, limiter.config.user) : await limiter.hit(`ip:${request.ip}`, limiter.config.anonymous);
          setRateLimitHeaders(reply, verdict);
        }
      },
      handler: async (request, reply) => {
        const params = buildParams(request);
        const pathParams = { ...(request.params as Record<string, string>) };
        if (wildcardName) {
          pathParams[wildcardName] = pathParams['*'] ?? '';
          delete pathParams['*'];
        }
        const base = { services: this.services, params, request, reply, path: pathParams, clientName: '' };
        const login = (request as WithLogin)[LOGIN];
        const ctx = (login ? { ...base, user: login.user, realm: login.realm } : base) as AuthedContext;
        ctx.clientName = clientNameOf(request, params);
        const data = await handler(ctx);
        if (reply.sent) return reply;
        return success(params, data);
      },
    });
  }

  /** A logged-in route whose multipart body may carry files (streamed to disk within `files`' limits). */
  upload(path: string, files: FileRouteSpec, handler: (c: AuthedContext) => Promise<Reply>) {
    this.add('POST', path, true, handler, files);
  }

  /** The user and organization of a logged-in request, for the limits of a FileRouteSpec. */
  static login(request: FastifyRequest): { user: User; realm: Realm } | undefined {
    return (request as WithLogin)[LOGIN];
  }

  get(path: string, handler: (c: AuthedContext) => Promise<Reply>) {
    this.add('GET', path, true, handler);
  }
  post(path: string, handler: (c: AuthedContext) => Promise<Reply>) {
    this.add('POST', path, true, handler);
  }
  patch(path: string, handler: (c: AuthedContext) => Promise<Reply>) {
    this.add('PATCH', path, true, handler);
  }
  put(path: string, handler: (c: AuthedContext) => Promise<Reply>) {
    this.add('PUT', path, true, handler);
  }
  delete(path: string, handler: (c: AuthedContext) => Promise<Reply>) {
    this.add('DELETE', path, true, handler);
  }
  /** A route that needs no credentials (server_settings, fetch_api_key). */
  publicRoute(method: Method, path: string, handler: (c: PublicContext) => Promise<Reply>) {
    this.add(method, path, false, handler as (c: AuthedContext) => Promise<Reply>);
  }
}

export function setRateLimitHeaders(reply: FastifyReply, v: Verdict): void {
  reply.headers(rateLimitHeaders(v));
}

/**
 * A path segment decoded once more (clients may percent-encode emails and fragments), refused if
 * it is malformed or carries a NUL (which no stored value can contain).
 */
export function decodedPathPart(ctx: PublicContext, name: string): string {
  let v = ctx.path[name] ?? '';
  try {
    v = decodeURIComponent(v);
  } catch {
    /* already decoded by the router: keep it */
  }
  if (v.includes('\u0000')) throw new BadRequest(`Invalid ${name}`);
  return v;
}

/** Path parameter as a positive integer id; Zulip answers a non-number with BAD_REQUEST. */
export function pathInt(ctx: PublicContext, name: string, invalid: () => Error): number {
  const v = ctx.path[name] ?? '';
  if (!/^\d{1,15}$/.test(v)) throw invalid();
  return Number(v);
}
