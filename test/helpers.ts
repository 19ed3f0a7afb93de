// Test harness: a real server on a real port over a fresh database (a temporary SQLite file, or a
// fresh schema in the PostgreSQL named by CONFAB_TEST_DATABASE_URL), and an HTTP client that speaks
// the API the way Zulip clients do and can record every exchange for the conformance checker.
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { startServer, type RunningServer } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { dropPostgresSchema } from '../src/store/db.js';
import { createOrganization } from '../src/actions/realms.js';
import { insertAccount } from '../src/actions/users.js';
import { ROLE, type RoleName } from '../src/store/users.js';
import { nowSeconds } from '../src/services.js';
import { hashPassword } from '../src/lib/secrets.js';
import type { RateLimitConfig } from '../src/lib/rate_limit.js';

export const TEST_DATABASE_URL = process.env.CONFAB_TEST_DATABASE_URL || 'sqlite';
export const ON_POSTGRES = TEST_DATABASE_URL.startsWith('postgres');
const RECORD = process.env.CONFAB_RECORD_RESPONSES;

export interface ApiResponse {
  status: number;
  headers: Headers;
  // Tests read fields freely; the assertions say what they expect.
  body: any;
}

type Value = string | number | boolean | null | object;

function encode(params: Record<string, Value | undefined>): URLSearchParams {
  const out = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined) continue;
    out.append(k, typeof v === 'string' ? v : JSON.stringify(v));
  }
  return out;
}

export class Client {
  /** The account's full name, as made (for the mentions a test expects); empty when not known. */
  fullName = '';

  constructor(
    readonly baseUrl: string,
    readonly email: string,
    readonly apiKey: string,
    readonly userId: number,
    readonly userAgent = 'ConfabTest/1.0',
  ) {}

  get authHeader(): string {
    return 'Basic ' + Buffer.from(`${this.email}:${this.apiKey}`).toString('base64');
  }

  get(path: string, params: Record<string, Value | undefined> = {}) {
    const qs = encode(params).toString();
    return this.request('GET', qs ? `${path}?${qs}` : path);
  }
  post(path: string, params: Record<string, Value | undefined> = {}) {
    return this.request('POST', path, params);
  }
  patch(path: string, params: Record<string, Value | undefined> = {}) {
    return this.request('PATCH', path, params);
  }
  put(path: string, params: Record<string, Value | undefined> = {}) {
    return this.request('PUT', path, params);
  }
  delete(path: string, params: Record<string, Value | undefined> = {}) {
    return this.request('DELETE', path, params);
  }

  /** A multipart/form-data request, as clients send file uploads. */
  upload(path: string, files: Array<{ field?: string; name: string; type?: string; data: Buffer | string }>, fields: Record<string, string> = {}, method = 'POST') {
    const form = new FormData();
    for (const [k, v] of Object.entries(fields)) form.append(k, v);
    for (const f of files) form.append(f.field ?? 'file', new Blob([typeof f.data === 'string' ? f.data : new Uint8Array(f.data)], { type: f.type ?? 'application/octet-stream' }), f.name);
    const h: Record<string, string> = { 'User-Agent': this.userAgent };
    if (this.apiKey) h.Authorization = this.authHeader;
    return rawRequest(this.baseUrl, method, path, { headers: h, body: form });
  }

  request(method: string, path: string, params?: Record<string, Value | undefined>, headers: Record<string, string> = {}) {
    const h: Record<string, string> = { 'User-Agent': this.userAgent, ...headers };
    if (this.apiKey) h.Authorization = this.authHeader;
    let body: string | undefined;
    if (params) {
      body = encode(params).toString();
      h['Content-Type'] = 'application/x-www-form-urlencoded';
    }
    return rawRequest(this.baseUrl, method, path, { headers: h, body });
  }
}

/** One HTTP exchange, recorded when CONFAB_RECORD_RESPONSES names a file. */
export async function rawRequest(
  baseUrl: string,
  method: string,
  path: string,
  init: { headers?: Record<string, string>; body?: string | FormData } = {},
): Promise<ApiResponse> {
  const fullPath = path.startsWith('/api/') || path.startsWith('http') ? path : `/api/v1${path}`;
  const res = await fetch(new URL(fullPath, baseUrl), { method, headers: init.headers, body: init.body });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON: keep the text */
  }
  if (RECORD) appendFileSync(RECORD, JSON.stringify({ method, path: fullPath, status: res.status, body }) + '\n');
  return { status: res.status, headers: res.headers, body };
}

export interface AccountOptions {
  role?: RoleName;
  name?: string;
  email?: string;
  realmId?: number;
  password?: string;
}

export interface TestServer {
  url: string;
  /** The database URL another process can open to share this server's data. */
  databaseUrl: string;
  server: RunningServer;
  realmId: number;
  owner: Client;
  /**
   * Makes an account through the account-creating action, without the mail of a sign-up (fixture
   * setup; POST /users and the sign-up pages have their own tests); with `password`, one that can log in.
   */
  createUser(opts?: AccountOptions): Promise<Client>;
  /** Another organization on the same server, with its owner. */
  createOrg(name: string): Promise<{ realmId: number; owner: Client }>;
  close(): Promise<void>;
}

let counter = 0;
const OWNER_NAME = 'Olivia Owner';

export async function startTestServer(
  opts: {
    heartbeatSeconds?: number;
    queueIdleSeconds?: number;
    rateLimits?: RateLimitConfig;
    jitsiServerUrl?: string;
    bigBlueButton?: { url: string; secret: string };
    redis?: { url: string; prefix: string };
    nextcloud?: { url: string; user: string; password: string };
    camo?: { url: string; key: string };
    maxFileUploadSizeMib?: number;
    /** Mail goes to this SMTP server (a test's own) instead of the outbox folder. */
    smtpUrl?: string;
    emailRetrySeconds?: number;
    missedMessageEmailDelaySeconds?: number;
    outgoingWebhooks?: { timeoutMs?: number; pollMs?: number; retryDelayMs?: number };
    passwordMinLength?: number;
    pushBouncer?: { url: string; serverId: string; serverKey: string };
  } = {},
): Promise<TestServer> {
  const tag = `${process.pid}_${randomBytes(4).toString('hex')}`;
  let databaseUrl: string;
  let schema: string | undefined;
  let dir: string | undefined;
  if (ON_POSTGRES) {
    databaseUrl = TEST_DATABASE_URL;
    schema = `t_${tag}`;
  } else {
    dir = mkdtempSync(join(tmpdir(), 'confab-test-'));
    databaseUrl = `sqlite:${join(dir, 'confab.db')}`;
  }
  const outboxParent = mkdtempSync(join(tmpdir(), 'confab-outbox-'));
  const config = {
    ...loadConfig({}),
    databaseUrl,
    host: '127.0.0.1',
    port: 0,
    outboxDir: join(outboxParent, 'outbox'),
    uploadsDir: join(outboxParent, 'uploads'),
    maxFileUploadSizeMib: opts.maxFileUploadSizeMib ?? 25,
    passwordMinLength: opts.passwordMinLength ?? 6,
    // Tests send far more than a person would: limits are on only where a test asks for them.
    rateLimits: opts.rateLimits ?? null,
    jitsiServerUrl: opts.jitsiServerUrl ?? null,
    bigBlueButton: opts.bigBlueButton ?? null,
    nextcloud: opts.nextcloud ?? null,
    camo: opts.camo ?? null,
    redisUrl: opts.redis?.url ?? null,
    redisPrefix: opts.redis?.prefix ?? 'confab-test',
    heartbeatSeconds: opts.heartbeatSeconds ?? 50,
    queueIdleSeconds: opts.queueIdleSeconds ?? 600,
    smtpUrl: opts.smtpUrl ?? null,
    emailRetrySeconds: opts.emailRetrySeconds ?? 60,
    missedMessageEmailDelaySeconds: opts.missedMessageEmailDelaySeconds ?? null,
    outgoingWebhooks: { ...loadConfig({}).outgoingWebhooks, ...opts.outgoingWebhooks },
    pushBouncer: opts.pushBouncer ?? null,
  };
  const server = await startServer(config, { schema });
  config.externalUrl = server.url;
  const { database, cache } = server.services;

  const org = await createOrganization(database, {
    name: 'Test Org',
    ownerEmail: 'owner@example.com',
    ownerPassword: 'owner-password',
    ownerName: OWNER_NAME,
  });
  const owner = new Client(server.url, org.email, org.api_key, org.user_id);
  owner.fullName = OWNER_NAME;

  const createUser: TestServer['createUser'] = async (o = {}) => {
    const n = ++counter;
    const role = ROLE[o.role ?? 'member'];
    const realmId = o.realmId ?? org.realm_id;
    const email = o.email ?? `user${n}-${o.role ?? 'member'}@example.com`;
    const passwordHash = o.password === undefined ? null : await hashPassword(o.password);
    const fullName = o.name ?? `User ${n}`;
    const created = await database.transaction((tx) => insertAccount(tx, { realmId, email, fullName, role, passwordHash, now: nowSeconds() }));
    cache.invalidateUsers(realmId);
    cache.invalidateGroups(realmId);
    const client = new Client(server.url, created.email, created.api_key, created.id);
    client.fullName = fullName;
    return client;
  };

  let sharedUrl = databaseUrl;
  if (schema) {
    const u = new URL(databaseUrl);
    u.searchParams.set('options', `-c search_path=${schema}`);
    sharedUrl = u.toString();
  }
  return {
    url: server.url,
    databaseUrl: sharedUrl,
    server,
    realmId: org.realm_id,
    owner,
    createUser,
    async createOrg(name) {
      const o = await createOrganization(database, { name, ownerEmail: `owner-${++counter}@other.example.com`, ownerPassword: 'pw-other-org', ownerName: 'Other Owner' });
      return { realmId: o.realm_id, owner: new Client(server.url, o.email, o.api_key, o.user_id) };
    },
    async close() {
      await server.close();
      if (schema) await dropPostgresSchema(databaseUrl, schema);
      if (dir) rmSync(dir, { recursive: true, force: true });
      rmSync(outboxParent, { recursive: true, force: true });
    },
  };
}

/**
 * A test file's usual set-up: a server started before its tests, with these accounts made in the
 * order given, and closed after them. The object returned is the server, with each account's
 * client under its key, filled in by the time the tests run.
 */
export function testServerFor<K extends string>(
  accounts: Record<K, AccountOptions> & { [P in keyof TestServer]?: never },
  opts?: Parameters<typeof startTestServer>[0],
): TestServer & Record<K, Client> {
  const t = {} as TestServer & Record<K, Client>;
  before(async () => {
    Object.assign(t, await startTestServer(opts));
    for (const [key, o] of Object.entries(accounts) as Array<[K, AccountOptions]>) (t as Record<K, Client>)[key] = await t.createUser(o);
  });
  after(async () => {
    await t.close();
  });
  return t;
}

/** The Notification Bot's address: the sender of Zulip's automated notices. */
export const NOTIFICATION_BOT = 'notification-bot@zulip.com';

/** A channel's id by its name, as `c` finds it; fails the test unless found. */
export async function channelId(c: Client, name: string): Promise<number> {
  const res = await c.get('/get_stream_id', { stream: name });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.stream_id as number;
}

/** The messages among queued events, each with the flags its event carries. */
export function messagesIn(events: any[]): any[] {
  return events.filter((e) => e.type === 'message').map((e) => ({ ...e.message, flags: e.flags }));
}

/** A message's stored Markdown, or (`applyMarkdown`) its HTML, as `c` reads it. */
export async function messageContent(c: Client, id: number, applyMarkdown = false): Promise<string> {
  const res = await c.get(`/messages/${id}`, { apply_markdown: applyMarkdown });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.message.content;
}

/** Sends a channel message and returns its id; fails the test unless the send succeeded. */
export async function sendToChannel(c: Client, to: string, topic: string, content: string): Promise<number> {
  const res = await c.post('/messages', { type: 'stream', to, topic, content });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.id as number;
}

/** Sends a message with the given parameters and returns its id; fails the test unless it succeeded. */
export async function sendMessage(c: Client, params: Record<string, Value | undefined>): Promise<number> {
  const res = await c.post('/messages', params);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.id as number;
}

/** Posts a channel message and returns the whole response, for a test that expects a refusal or reads other fields. */
export function postToChannel(c: Client, to: string, topic: string, content: string): Promise<ApiResponse> {
  return c.post('/messages', { type: 'stream', to, topic, content });
}

/** Registers an event queue for these event types (the initial state is kept small). */
export async function openQueue(c: Client, eventTypes: string[], fetchEventTypes: string[] = ['message']): Promise<string> {
  // As Zulip's current clients do, it declares the capabilities that change event formats.
  const client_capabilities = { bulk_message_deletion: true, stream_typing_notifications: true, linkifier_url_template: true, include_deactivated_groups: true };
  const reg = await c.post('/register', { event_types: eventTypes, fetch_event_types: fetchEventTypes, client_capabilities });
  if (reg.status !== 200) throw new Error(`register failed: ${JSON.stringify(reg.body)}`);
  return reg.body.queue_id as string;
}

/** Every event waiting in the queue, without blocking. */
export async function queuedEvents(c: Client, queueId: string): Promise<any[]> {
  const res = await c.get('/events', { queue_id: queueId, last_event_id: -1, dont_block: true });
  if (res.status !== 200) throw new Error(`events failed: ${JSON.stringify(res.body)}`);
  return res.body.events;
}

/**
 * Fresh, empty databases (no tables yet) of the kind under test, for tests that start `confab`
 * processes themselves: a temporary SQLite file, or a new PostgreSQL database beside
 * CONFAB_TEST_DATABASE_URL's. `drop()` removes every one made.
 */
export function emptyDatabases(prefix: string): { fresh(): Promise<string>; drop(): Promise<void> } {
  const dirs: string[] = [];
  const names: string[] = [];
  return {
    async fresh() {
      if (ON_POSTGRES) {
        const name = `confab_${prefix}_${randomBytes(4).toString('hex')}`;
        const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
        await admin.connect();
        await admin.query(`CREATE DATABASE ${name}`);
        await admin.end();
        names.push(name);
        const url = new URL(TEST_DATABASE_URL);
        url.pathname = `/${name}`;
        return url.toString();
      }
      const dir = mkdtempSync(join(tmpdir(), `confab-${prefix}-`));
      dirs.push(dir);
      return `sqlite:${join(dir, `${prefix}.db`)}`;
    },
    async drop() {
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
      if (names.length) {
        const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
        await admin.connect();
        for (const name of names) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await admin.end();
      }
    },
  };
}
