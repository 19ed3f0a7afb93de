// The long-lived parts of one server process, handed to routes and actions.
import type { Config } from './config.js';
import type { Database } from './store/db.js';
import type { Cache } from './store/cache.js';
import type { EventBus } from './events/bus.js';
import type { QueueManager } from './events/queues.js';
import type { QueueDirectory } from './events/directory.js';
import type { QueueHandover } from './events/handover.js';
import type { Limiter } from './lib/rate_limit.js';
import type { RealmEmailDomains } from './lib/realm_email_domains.js';
import type { BackgroundJobs } from './lib/jobs.js';

export interface Services {
  config: Config;
  database: Database;
  cache: Cache;
  bus: EventBus;
  queues: QueueManager;
  /** null when rate limits are off. */
  rateLimiter: Limiter | null;
  /** Where other processes' queues live; null for a single process. */
  cluster: QueueDirectory | null;
  /** Hands this process's queues to another on a graceful stop, and adopts others'; with `cluster`. */
  handover: QueueHandover | null;
  /** Each organization's placeholder-address domain, for user objects (shapes/users.ts apiEmail). */
  emailDomains: RealmEmailDomains;
  /** This server's queue runners (woken after commits) and background tasks (waited for on shutdown). */
  jobs: BackgroundJobs;
  /** Set once the process is shutting down: the health check fails so balancers move on. */
  draining: boolean;
}

/** UNIX time in whole seconds, as Zulip's API reports timestamps. */
export function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}
