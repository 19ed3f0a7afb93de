// Browser tests' harness: a real Confab server (restartable on the same port and SQLite file),
// accounts with passwords to log in with, and Debian's Chromium driven by playwright-core.
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';
import { startServer, type RunningServer } from '../src/app.js';
import { loadConfig, type Config } from '../src/config.js';
import { createOrganization } from '../src/actions/realms.js';
import { insertAccount } from '../src/actions/users.js';
import { hashPassword } from '../src/lib/secrets.js';
import { ROLE, type RoleName } from '../src/store/users.js';
import { nowSeconds } from '../src/services.js';
import { Client } from '../test/helpers.js';

export const CHROMIUM = process.env.CONFAB_CHROMIUM ?? '/usr/bin/chromium';
export const SCREENSHOTS = join(process.cwd(), 'docs', 'screenshots');

export interface Person {
  email: string;
  password: string;
  name: string;
  api: Client;
}

export interface WebServer {
  url: string;
  realmId: number;
  owner: Person;
  makePerson(name: string, role?: RoleName): Promise<Person>;
  restart(downMs?: number): Promise<void>;
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

let counter = 0;

export async function startWebServer(): Promise<WebServer> {
  const dir = mkdtempSync(join(tmpdir(), 'confab-web-'));
  const port = await freePort();
  const config: Config = {
    ...loadConfig({}),
    databaseUrl: `sqlite:${join(dir, 'confab.db')}`,
    host: '127.0.0.1',
    port,
    externalUrl: `http://127.0.0.1:${port}`,
    outboxDir: join(dir, 'outbox'),
    uploadsDir: join(dir, 'uploads'),
    rateLimits: null,
  };
  let server: RunningServer = await startServer(config);
  const org = await createOrganization(server.services.database, { name: 'Web Test Org', ownerEmail: 'owner@example.com', ownerPassword: 'owner-password', ownerName: 'Olivia Owner' });
  const owner: Person = { email: org.email, password: 'owner-password', name: 'Olivia Owner', api: new Client(server.url, org.email, org.api_key, org.user_id) };
  return {
    url: server.url,
    realmId: org.realm_id,
    owner,
    async makePerson(name, role = 'member') {
      const email = `person${++counter}@example.com`;
      const password = `pw-${counter}-secret`;
      const passwordHash = await hashPassword(password);
      const created = await server.services.database.transaction((tx) =>
        insertAccount(tx, { realmId: org.realm_id, email, fullName: name, role: ROLE[role], passwordHash, now: nowSeconds() }),
      );
      server.services.cache.invalidateUsers(org.realm_id);
      server.services.cache.invalidateGroups(org.realm_id);
      return { email: created.email, password, name, api: new Client(server.url, created.email, created.api_key, created.id) };
    },
    async restart(downMs = 1500) {
      await server.close();
      await new Promise((r) => setTimeout(r, downMs));
      server = await startServer(config);
    },
    async close() {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

/** A new browser context (its own localStorage: another person) with the page open and logged in. */
export async function loggedIn(
  browser: Browser,
  url: string,
  who: Person,
  viewport = { width: 1280, height: 800 },
  prepare?: (context: BrowserContext) => Promise<void>,
  options: BrowserContextOptions = {},
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ ...options, viewport });
  await prepare?.(context);
  const page = await context.newPage();
  page.on('pageerror', (e) => console.error(`[page error ${who.email}]`, e.message));
  await page.goto(url);
  await page.getByLabel('Email').fill(who.email);
  await page.getByLabel('Password').fill(who.password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('searchbox', { name: 'Search' }).waitFor();
  return { context, page };
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** The page's serious and critical axe-core violations (its context needs `bypassCSP` to inject axe). */
export async function axe(page: Page): Promise<string[]> {
  await page.addScriptTag({ content: axeSource });
  const result = (await page.evaluate('axe.run(document, { resultTypes: ["violations"] })')) as { violations: Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }> };
  return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')}`);
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`) });
}

/**
 * A `loggedIn` preparation: the page believes it is in the background (another tab in front), may
 * notify, and records each desktop notification it raises as it is shown (read with
 * `notificationsShown`, clicked with `clickNotification`).
 */
export function hiddenRecordingNotifications(origin: string): (context: BrowserContext) => Promise<void> {
  return async (context) => {
    await context.grantPermissions(['notifications'], { origin });
    await context.addInitScript(() => {
      Object.defineProperty(document, 'visibilityState', { get: () => 'hidden' });
      const Real = window.Notification;
      const shown: Array<{ title: string; body: string; click: () => void }> = [];
      (window as unknown as { shown: typeof shown }).shown = shown;
      class Recorded extends Real {
        constructor(title: string, options?: NotificationOptions) {
          super(title, options);
          shown.push({ title, body: options?.body ?? '', click: () => this.onclick?.call(this, new Event('click')) });
        }
      }
      Object.defineProperty(window, 'Notification', { value: Recorded });
    });
  };
}

/** The notifications a `hiddenRecordingNotifications` page has shown, as "title: body", once there are at least `atLeast`. */
export async function notificationsShown(page: Page, atLeast = 0): Promise<string[]> {
  if (atLeast > 0) await page.waitForFunction((n) => (window as unknown as { shown: unknown[] }).shown.length >= n, atLeast, { timeout: 5000 });
  return page.evaluate(() => (window as unknown as { shown: Array<{ title: string; body: string }> }).shown.map((n) => `${n.title}: ${n.body}`));
}

/** Clicks the i-th notification a `hiddenRecordingNotifications` page has shown. */
export async function clickNotification(page: Page, i: number): Promise<void> {
  await page.evaluate((i) => (window as unknown as { shown: Array<{ click: () => void }> }).shown[i]!.click(), i);
}

/** Makes a channel with these people subscribed; returns its id. */
export async function makeChannel(owner: Person, name: string, people: Person[]): Promise<number> {
  const res = await owner.api.post('/users/me/subscriptions', { subscriptions: [{ name }], principals: people.map((p) => p.email) });
  if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  const id = await owner.api.get('/get_stream_id', { stream: name });
  const streamId = id.body.stream_id as number;
  // The channel starts with the Notification Bot's channel-created message, unread for everyone
  // but the owner; the people have seen it, so the tests' unread counts are their own messages.
  for (const p of people) {
    const read = await p.api.post('/mark_stream_as_read', { stream_id: streamId });
    if (read.status !== 200) throw new Error(JSON.stringify(read.body));
  }
  return streamId;
}

/** Where most browser tests start: a server, a browser, Alice and Bob, and #general with them and the owner. */
export interface Scene {
  srv: WebServer;
  browser: Browser;
  alice: Person;
  bob: Person;
  general: number;
}

export async function openScene(): Promise<Scene> {
  const s = {} as Scene;
  try {
    await fillScene(s);
  } catch (e) {
    await closeScene(s);
    throw e;
  }
  return s;
}

/** Opens a scene into `s` step by step, so that what was started is known when a step fails. */
async function fillScene(s: Scene): Promise<void> {
  s.srv = await startWebServer();
  s.browser = await launch();
  s.alice = await s.srv.makePerson('Alice Anders');
  s.bob = await s.srv.makePerson('Bob Brown');
  s.general = await makeChannel(s.srv.owner, 'general', [s.srv.owner, s.alice, s.bob]);
}

/** Closes what a scene started (either part may be missing when opening it failed half-way). */
export async function closeScene(s: Partial<Scene>): Promise<void> {
  await s.browser?.close();
  await s.srv?.close();
}

/**
 * A test file's scene, as test/helpers.ts' testServerFor is an API test file's server: opened
 * before the file's tests, then `setup` (the file's own channels and messages), closed after them.
 * The object returned is filled in by the time the tests run.
 */
export function testScene(setup?: () => Promise<void>): Scene {
  const s = {} as Scene;
  before(async () => {
    await fillScene(s);
    await setup?.();
  });
  after(() => closeScene(s));
  return s;
}
