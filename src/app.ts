// Starts and stops one server process: database (migrated), caches, event bus and queues, HTTP.
import type { FastifyInstance } from 'fastify';
import type { Config } from './config.js';
import { openDatabase, type Database } from './store/db.js';
import { randomBytes } from 'node:crypto';
import { Cache, type CacheInvalidation } from './store/cache.js';
import { InProcessBus, type EventBus } from './events/bus.js';
import { QueueManager } from './events/queues.js';
import type { QueueDirectory } from './events/directory.js';
import { QueueHandover } from './events/handover.js';
import { buildHttpServer } from './http/server.js';
import { endForwardedPolls, isForwardedByPeer } from './http/queue_forward.js';
import { handOverQueues } from './http/queue_handover.js';
import { RateLimiter, type Limiter } from './lib/rate_limit.js';
import { RealmEmailDomains } from './lib/realm_email_domains.js';
import { BackgroundJobs } from './lib/jobs.js';
import { primaryChannel } from './lib/ipc.js';
import { createServer, type Server } from 'node:http';

/** Bus messages that carry cache invalidations between processes (never delivered to queues). */
const CACHE_EVENT = '__cache_invalidation';
import type { Services } from './services.js';
import { startScheduledDelivery } from './actions/scheduled.js';
import { startRetention } from './actions/retention.js';
import { listRealms } from './store/realms.js';
import { botDomain } from './shapes/realm.js';
import { startFullMemberPromotion } from './actions/full_members.js';
import { startMailDelivery } from './actions/email.js';
import { startMissedMessageEmails } from './actions/missed_messages.js';
import { startOutgoingWebhooks } from './actions/outgoing_webhooks.js';
import { startRealmStatusWatch } from './actions/realm_status.js';
import { ensureSystemBots } from './actions/notification_bot.js';
import { startPushDelivery } from './actions/push_notifications.js';
import { startDigests } from './actions/digest.js';

/** The accept queue's length asked of the kernel (see the listen call). */
const LISTEN_BACKLOG = 4096;

export interface RunningServer {
  services: Services;
  http: FastifyInstance;
  /** The address the server listens on, e.g. http://127.0.0.1:9991 */
  url: string;
  /**
   * Stops gracefully: /health fails at once and for config.drainSeconds the process keeps serving
   * everything else (so a balancer moves new work elsewhere); then it stops listening, answers its
   * parked long-polls, finishes requests in flight and closes. `now` skips (or cuts short) the drain.
   */
  close(opts?: { now?: boolean }): Promise<void>;
}

export interface StartOptions {
  database?: Database;
  bus?: EventBus;
  /** Redis URL: several processes share events, cache invalidations and rate limits through it. */
  redisUrl?: string | null;
  /** PostgreSQL schema, for tests that give each server its own. */
  schema?: string;
  /**
   * This process is a worker of `confab serve` with CONFAB_WORKERS (node:cluster): it is joined to
   * the other workers through the primary process (IPC bus, queue directory and rate limits) unless
   * Redis joins them, and listens on a private loopback port of its own for forwarded long-polls
   * and queue hand-overs (the public port is shared by all workers).
   */
  worker?: boolean;
}

export async function createServices(config: Config, opts: StartOptions = {}): Promise<Services> {
  const database = opts.database ?? (await openDatabase(config.databaseUrl, { schema: opts.schema, poolSize: config.databasePoolSize }));
  const redisUrl = opts.redisUrl === undefined ? config.redisUrl : opts.redisUrl;
  let bus = opts.bus;
  // Workers of one machine joined through the primary: only without Redis, which joins them otherwise.
  const ipc = opts.worker && !redisUrl && !opts.bus ? primaryChannel() : null;
  if (ipc) {
    const { IpcBus } = await import('./events/ipc_bus.js');
    bus = new IpcBus(ipc);
  } else if (!bus && redisUrl) {
    // Loaded only for several processes: a single process never pulls in the Redis client.
    const { RedisBus } = await import('./events/redis_bus.js');
    const redisBus = new RedisBus(redisUrl, `${config.redisPrefix}:events`, { connectionName: `${config.redisPrefix}-bus` });
    await redisBus.whenReady();
    bus = redisBus;
  }
  bus ??= new InProcessBus();
  // This process's id: it tags cache invalidations it sends and, in a cluster, its queues' ids.
  const origin = randomBytes(8).toString('hex');
  let cluster: QueueDirectory | null = null;
  if (ipc) {
    const { IpcQueueDirectory } = await import('./events/ipc_directory.js');
    cluster = new IpcQueueDirectory(origin, ipc);
  } else if (redisUrl && !opts.bus) {
    const { RedisQueueDirectory } = await import('./events/cluster.js');
    cluster = new RedisQueueDirectory(redisUrl, config.redisPrefix, origin);
  }
  const queues = new QueueManager(bus, config.heartbeatSeconds * 1000, config.queueIdleSeconds * 1000, cluster ? `${origin}-` : '');
  const handover = cluster ? new QueueHandover(bus, queues, origin, config.queueIdleSeconds * 1000) : null;
  const cache = new Cache(database);
  bus.subscribe((e) => {
    if (e.event.type === 'message') cache.noteMessage(Number((e.event.message as { id: number }).id), e.userIds);
    // Another process changed cached data: forget our copy. (Ours went out as we made it.)
    if (e.event.type === CACHE_EVENT && e.event.origin !== origin) cache.applyRemote(e.event.what as CacheInvalidation);
  });
  // Cache invalidations travel on the bus too: after a possible loss, nothing cached is trusted.
  bus.onLoss?.(() => cache.clear());
  if (!(bus instanceof InProcessBus)) {
    cache.broadcast = (what) => bus.publish({ realmId: what.realmId, userIds: [], event: { type: CACHE_EVENT, origin, what } });
  }
  let rateLimiter: Limiter | null = null;
  if (config.rateLimits && ipc) {
    const { IpcRateLimiter } = await import('./lib/ipc_rate_limit.js');
    rateLimiter = new IpcRateLimiter(config.rateLimits, ipc);
  } else if (config.rateLimits && redisUrl) {
    const { RedisRateLimiter } = await import('./lib/redis_rate_limit.js');
    rateLimiter = new RedisRateLimiter(config.rateLimits, redisUrl, config.redisPrefix);
  } else if (config.rateLimits) {
    rateLimiter = new RateLimiter(config.rateLimits);
  }
  return { config, database, cache, bus, queues, rateLimiter, cluster, handover, emailDomains: new RealmEmailDomains(), jobs: new BackgroundJobs(), draining: false };
}

export async function startServer(config: Config, opts: StartOptions = {}): Promise<RunningServer> {
  const services = await createServices(config, opts);
  // Placeholder addresses (users who hide theirs) name each organization's domain; background
  // jobs shape users before any request has come in.
  for (const realm of await listRealms(services.database.db)) services.emailDomains.set(realm.id, botDomain(realm, config.externalUrl));
  await ensureSystemBots(services);
  const http = buildHttpServer(services);
  const delivery = startScheduledDelivery(services);
  const retention = startRetention(services);
  const promotion = startFullMemberPromotion(services);
  const mail = startMailDelivery(services);
  const missed = startMissedMessageEmails(services);
  const webhooks = startOutgoingWebhooks(services);
  const realmStatus = startRealmStatusWatch(services);
  const push = startPushDelivery(services);
  const digests = startDigests(services);
  // When the balancer last sent us work (health checks and polls relayed by other processes for
  // our queues aside): a stopping process keeps serving until that has gone quiet.
  let lastBalancedAt = 0;
  http.addHook('onRequest', async (request) => {
    if (services.draining && request.url !== '/health' && !isForwardedByPeer(services, request)) lastBalancedAt = Date.now();
  });
  // Thousands of long-polling clients reconnect at once after a restart or a network blip. With
  // Node's default accept queue (511) the kernel dropped most of a burst of 5,000 connections and
  // their SYNs were retried after 1, 3, 7 s: p50 7.4 s to a first answer on this machine. The
  // kernel caps the figure at net.core.somaxconn (4096 on current Linux).
  await http.listen({ host: config.host, port: config.port, backlog: LISTEN_BACKLOG });
  const address = http.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const reachableHost = config.host === '0.0.0.0' ? '127.0.0.1' : config.host === '::' ? '[::1]' : host;
  // A worker of `confab serve` shares the public port with the others (node:cluster hands each new
  // connection to one of them), so a peer could not choose which worker it reaches there: each
  // worker also listens on a loopback port of its own (`exclusive`, not shared through the primary)
  // where the others forward long-polls for its queues and hand queues over to it.
  let internal: Server | null = null;
  let internalUrl = config.internalUrl ?? `http://${reachableHost}:${port}`;
  if (opts.worker) {
    const own = createServer((req, res) => http.server.emit('request', req, res));
    own.keepAliveTimeout = http.server.keepAliveTimeout;
    own.requestTimeout = 0;
    await new Promise<void>((resolve, reject) => {
      own.once('error', reject);
      own.listen({ host: '127.0.0.1', port: 0, exclusive: true }, () => resolve());
    });
    internal = own;
    internalUrl = `http://127.0.0.1:${(own.address() as { port: number }).port}`;
  }
  await services.cluster?.announce(internalUrl);
  let closing: Promise<void> | null = null;
  let endDrain: (() => void) | null = null;
  const shutDown = async (drainMs: number) => {
    services.draining = true;
    if (drainMs > 0) {
      // Everything but /health keeps working meanwhile: our queues, polls forwarded to us, sends.
      let cut = false;
      const pause = (ms: number) =>
        new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, ms);
          endDrain = () => {
            cut = true;
            clearTimeout(timer);
            resolve();
          };
        });
      const drainStart = Date.now();
      await pause(drainMs);
      // A balancer slow to notice (a busy machine) still sends requests: wait until a second has
      // passed without one, up to three times the drain period in all.
      while (!cut && Date.now() - lastBalancedAt < 1000 && Date.now() - drainStart < 3 * drainMs) await pause(100);
    }
    // Our queues go to another process if one takes them (their ids then lead there); otherwise
    // other processes stop forwarding long-polls here before our queues go away.
    // Polls parked here are answered at once with nothing; clients poll again and reach the adopter.
    if (await handOverQueues(services)) services.queues.close();
    await services.cluster?.withdraw();
    await delivery.stop();
    await retention.stop();
    await promotion.stop();
    await missed.stop();
    await push?.stop();
    await digests.stop();
    await mail.stop();
    await webhooks.stop();
    await realmStatus.stop();
    // Parked polls are answered (with no events); the client's next poll is told its queue is gone.
    services.queues.close();
    endForwardedPolls(services);
    await services.rateLimiter?.close();
    // Stops listening, closes idle keep-alive connections, waits for requests in flight.
    const own = internal;
    const internalClosed = own ? new Promise<void>((resolve) => own.close(() => resolve())) : null;
    own?.closeIdleConnections();
    await http.close();
    await internalClosed;
    // Exports being written finish (their files and rows) before the database closes.
    await services.jobs.settle();
    await services.bus.close();
    await services.cluster?.close();
    await services.database.close();
  };
  return {
    services,
    http,
    url: `http://${host}:${port}`,
    close(opts = {}) {
      if (opts.now) endDrain?.();
      closing ??= shutDown(opts.now ? 0 : (config.drainSeconds ?? 0) * 1000);
      return closing;
    },
  };
}
