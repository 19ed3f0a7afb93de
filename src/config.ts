// Operator configuration, read from the environment (names are part of the operator interface).
import { parseRateLimits, type RateLimitConfig } from './lib/rate_limit.js';

export interface Config {
  databaseUrl: string;
  host: string;
  port: number;
  externalUrl: string;
  /** Seconds a GET /events waits before answering with a heartbeat. */
  heartbeatSeconds: number;
  /** Seconds after which a queue nobody polls is deleted. */
  queueIdleSeconds: number;
  /**
   * Seconds a stopping process (SIGTERM) keeps serving with /health failing before it stops listening,
   * so the balancer sees it go (CONFAB_DRAIN_SECONDS; by default 3 with CONFAB_REDIS_URL, 0 without:
   * a lone process has nobody to hand its traffic to; left out: 0).
   */
  drainSeconds?: number;
  /** smtp://user:pass@host:port to send mail; without it, mail is written to outboxDir. */
  smtpUrl: string | null;
  /** Where mail goes when no SMTP server is configured: one .eml file per message. */
  outboxDir: string;
  mailFrom: string;
  /** The Jitsi Meet server for video calls (CONFAB_JITSI_SERVER_URL); null: not configured. */
  jitsiServerUrl: string | null;
  /** BigBlueButton API base URL and shared secret (both, or video calls through it are off). */
  bigBlueButton: { url: string; secret: string } | null;
  /** A Nextcloud server and the account Confab creates Talk conversations with. */
  nextcloud: { url: string; user: string; password: string } | null;
  /** CONFAB_REDIS_URL: several server processes share events, cache invalidations and rate limits. */
  redisUrl: string | null;
  /** Prefix of every Redis key and channel (CONFAB_REDIS_PREFIX), so deployments can share a Redis. */
  redisPrefix: string;
  /**
   * The address other processes of a cluster use to reach this one (forwarded long-polls), e.g.
   * http://10.0.0.5:9991; by default this process's own listening address.
   */
  internalUrl: string | null;
  /**
   * CONFAB_WORKERS: how many server processes `confab serve` runs on this machine, sharing one port
   * through node:cluster and joined through the cluster's primary process (no Redis needed). 1 (the
   * default): the one process serves everything itself.
   */
  workers: number;
  /** PostgreSQL connections per process (CONFAB_DATABASE_POOL_SIZE, default 20). */
  databasePoolSize: number;
  /** An image proxy (camo) for previews of external images: CONFAB_CAMO_URL and CONFAB_CAMO_KEY. */
  camo: { url: string; key: string } | null;
  /** null: rate limits off (CONFAB_RATE_LIMITS=off). */
  rateLimits: RateLimitConfig | null;
  /** Where uploaded files are stored (CONFAB_UPLOADS_DIR): `files/<path_id>` below it, custom emoji under `emoji/`. */
  uploadsDir: string;
  /** The largest file POST /user_uploads accepts, in MiB (Zulip's MAX_FILE_UPLOAD_SIZE; at most 100). */
  maxFileUploadSizeMib: number;
  /** Seconds an SMTP failure waits before the first retry (doubling on each further failure). */
  emailRetrySeconds: number;
  /**
   * Seconds a missed message waits before its email, for everyone (CONFAB_MISSED_MESSAGE_EMAIL_DELAY_SECONDS);
   * null: each person's email_notifications_batching_period_seconds (Zulip's two minutes by default).
   */
  missedMessageEmailDelaySeconds: number | null;
  /** Outgoing-webhook bots: request timeout (CONFAB_OUTGOING_WEBHOOK_TIMEOUT_SECONDS, Zulip's 10), queue poll and retry delay. */
  outgoingWebhooks: { timeoutMs: number; pollMs: number; retryDelayMs: number };
  /** Zulip's PASSWORD_MIN_LENGTH (CONFAB_PASSWORD_MIN_LENGTH, default 6; 0 turns the check off). */
  passwordMinLength: number;
  /**
   * Zulip's Mobile Push Notification Service (or another bouncer speaking its protocol), with this
   * server's registration there: CONFAB_PUSH_BOUNCER_URL, CONFAB_PUSH_BOUNCER_SERVER_ID (a UUID,
   * Zulip's ZULIP_ORG_ID) and CONFAB_PUSH_BOUNCER_SERVER_KEY (ZULIP_ORG_KEY). null: no mobile push.
   */
  pushBouncer: { url: string; serverId: string; serverKey: string } | null;
}

function intFromEnv(env: NodeJS.ProcessEnv, name: string, dflt: number): number {
  const v = env[name];
  if (v === undefined || v === '') return dflt;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a non-negative number, got ${JSON.stringify(v)}`);
  return n;
}

/** The most worker processes CONFAB_WORKERS may ask for: far above any machine's useful count. */
const MAX_WORKERS = 64;

function workersFromEnv(v: string | undefined): number {
  if (v === undefined || v === '') return 1;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > MAX_WORKERS) throw new Error(`CONFAB_WORKERS must be a whole number from 1 to ${MAX_WORKERS}, got ${JSON.stringify(v)}`);
  return n;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const host = env.CONFAB_HOST || '127.0.0.1';
  const port = intFromEnv(env, 'CONFAB_PORT', 9991);
  const externalUrl = (env.CONFAB_EXTERNAL_URL || `http://${host.includes(':') ? `[${host}]` : host}:${port}`).replace(/\/+$/, '');
  return {
    databaseUrl: env.CONFAB_DATABASE_URL || 'sqlite:data/confab.db',
    host,
    port,
    externalUrl,
    heartbeatSeconds: intFromEnv(env, 'CONFAB_HEARTBEAT_SECONDS', 50),
    queueIdleSeconds: intFromEnv(env, 'CONFAB_QUEUE_IDLE_SECONDS', 600),
    // HAProxy's sample checks every second and needs two failures: 3 s covers that with a margin.
    drainSeconds: intFromEnv(env, 'CONFAB_DRAIN_SECONDS', env.CONFAB_REDIS_URL ? 3 : 0),
    smtpUrl: env.CONFAB_SMTP_URL || null,
    outboxDir: env.CONFAB_OUTBOX_DIR || 'data/outbox',
    mailFrom: env.CONFAB_MAIL_FROM || `noreply@${new URL(externalUrl).hostname}`,
    rateLimits: parseRateLimits(env.CONFAB_RATE_LIMITS),
    nextcloud:
      env.CONFAB_NEXTCLOUD_URL && env.CONFAB_NEXTCLOUD_USER && env.CONFAB_NEXTCLOUD_PASSWORD
        ? { url: env.CONFAB_NEXTCLOUD_URL.replace(/\/+$/, ''), user: env.CONFAB_NEXTCLOUD_USER, password: env.CONFAB_NEXTCLOUD_PASSWORD }
        : null,
    redisUrl: env.CONFAB_REDIS_URL || null,
    camo: env.CONFAB_CAMO_URL && env.CONFAB_CAMO_KEY ? { url: env.CONFAB_CAMO_URL.replace(/\/*$/, '/'), key: env.CONFAB_CAMO_KEY } : null,
    redisPrefix: env.CONFAB_REDIS_PREFIX || 'confab',
    workers: workersFromEnv(env.CONFAB_WORKERS),
    databasePoolSize: Math.max(1, intFromEnv(env, 'CONFAB_DATABASE_POOL_SIZE', 20)),
    internalUrl: env.CONFAB_INTERNAL_URL ? env.CONFAB_INTERNAL_URL.replace(/\/+$/, '') : null,
    bigBlueButton:
      env.CONFAB_BIGBLUEBUTTON_URL && env.CONFAB_BIGBLUEBUTTON_SECRET
        ? { url: env.CONFAB_BIGBLUEBUTTON_URL.replace(/\/*$/, '/'), secret: env.CONFAB_BIGBLUEBUTTON_SECRET }
        : null,
    jitsiServerUrl: env.CONFAB_JITSI_SERVER_URL ? env.CONFAB_JITSI_SERVER_URL.replace(/\/+$/, '') : null,
    uploadsDir: env.CONFAB_UPLOADS_DIR || 'data/uploads',
    maxFileUploadSizeMib: Math.min(100, Math.floor(intFromEnv(env, 'CONFAB_MAX_FILE_UPLOAD_SIZE_MIB', 25))),
    emailRetrySeconds: intFromEnv(env, 'CONFAB_EMAIL_RETRY_SECONDS', 60),
    pushBouncer:
      env.CONFAB_PUSH_BOUNCER_URL && env.CONFAB_PUSH_BOUNCER_SERVER_ID && env.CONFAB_PUSH_BOUNCER_SERVER_KEY
        ? { url: env.CONFAB_PUSH_BOUNCER_URL.replace(/\/+$/, ''), serverId: env.CONFAB_PUSH_BOUNCER_SERVER_ID, serverKey: env.CONFAB_PUSH_BOUNCER_SERVER_KEY }
        : null,
    missedMessageEmailDelaySeconds: env.CONFAB_MISSED_MESSAGE_EMAIL_DELAY_SECONDS ? intFromEnv(env, 'CONFAB_MISSED_MESSAGE_EMAIL_DELAY_SECONDS', 120) : null,
    outgoingWebhooks: {
      timeoutMs: intFromEnv(env, 'CONFAB_OUTGOING_WEBHOOK_TIMEOUT_SECONDS', 10) * 1000,
      pollMs: intFromEnv(env, 'CONFAB_OUTGOING_WEBHOOK_POLL_MS', 1000),
      retryDelayMs: intFromEnv(env, 'CONFAB_OUTGOING_WEBHOOK_RETRY_SECONDS', 5) * 1000,
    },
    passwordMinLength: Math.floor(intFromEnv(env, 'CONFAB_PASSWORD_MIN_LENGTH', 6)),
  };
}
