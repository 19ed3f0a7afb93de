// The `confab` command: serve, create-org, create-user.
import { parseArgs } from 'node:util';
import { loadConfig } from '../config.js';
import { createServices, startServer } from '../app.js';
import { realmForOperator, setRealmDeactivated } from '../actions/realm_status.js';
import { isPostgresUrl, openDatabase } from '../store/db.js';
import { createFirstOrganization, createOrganization } from '../actions/realms.js';
import { createAccountFromCli } from '../actions/cli.js';
import { createGeneralChannel } from '../actions/channels.js';
import { generatePassword } from '../lib/secrets.js';
import { primaryChannel } from '../lib/ipc.js';
import { IpcWriteTurn } from '../lib/ipc_write_turn.js';
import { ApiError } from '../errors.js';
import { CONFAB_VERSION } from '../lib/version.js';
import { BouncerError, registerServer } from '../lib/push_bouncer.js';
import { randomBytes, randomUUID } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import cluster from 'node:cluster';
import { renderMarkdown } from '../markdown/render.js';

/** Rendered once when a server stops being idle: the parser's rules and the TLD list bare links need. */
const RENDERER_WARM_UP = 'Confab is **up**: see example.com';

const HELP = `confab ${CONFAB_VERSION}: a team chat server that speaks the Zulip API

Usage: confab <command> [options]

Commands:
  serve                  Run the server (migrates the database first; on an empty
                         database creates an organization and prints its owner's login)
  create-org             --name NAME --owner-email EMAIL --owner-password PW [--owner-name NAME]
                         Create an organization; prints {"realm_id","user_id","email","api_key"}
  create-user            --email E --password PW --full-name N
                         [--role owner|administrator|moderator|member|guest] [--realm-id ID]
                         Create a user in an organization (the only one, unless --realm-id)
  deactivate-org         [--realm-id ID | --subdomain S]
                         Deactivate an organization: its API refuses every login and key
                         until reactivate-org (the only organization, unless named)
  reactivate-org         [--realm-id ID | --subdomain S]
  register-push-server   --contact-email EMAIL [--url URL] [--hostname HOST]
                         Register this server with a mobile push notification service
                         (default: CONFAB_PUSH_BOUNCER_URL, else Zulip's); prints the settings
                         CONFAB_PUSH_BOUNCER_URL, _SERVER_ID and _SERVER_KEY to set
  help                   Show this text

Environment:
  CONFAB_DATABASE_URL    sqlite:PATH (default sqlite:data/confab.db) or postgres://...
  CONFAB_HOST            address to listen on (default 127.0.0.1)
  CONFAB_PORT            port (default 9991)
  CONFAB_EXTERNAL_URL    the address clients use (default http://HOST:PORT)
  CONFAB_DRAIN_SECONDS   on SIGTERM, seconds /health fails while requests are still
                         served, before the process stops listening (default 3 with
                         CONFAB_REDIS_URL, else 0)
  CONFAB_WORKERS         server processes sharing the port on this machine (default 1);
                         joined through the first process, no Redis needed
`;

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'serve':
        // `confab serve --help` asks for the text, not a server (it used to start one, on the
        // default database, creating an organization there).
        if (rest.includes('--help') || rest.includes('-h')) {
          process.stdout.write(HELP);
          return 0;
        }
        return await serve();
      case 'create-org':
        return await createOrg(rest);
      case 'create-user':
        return await createUser(rest);
      case 'deactivate-org':
        return await setOrgDeactivated(rest, true);
      case 'reactivate-org':
        return await setOrgDeactivated(rest, false);
      case 'register-push-server':
        return await registerPushServer(rest);
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        process.stdout.write(HELP);
        return 0;
      default:
        process.stderr.write(`confab: unknown command '${command}'\n\n${HELP}`);
        return 2;
    }
  } catch (err) {
    if (err instanceof ApiError || (err instanceof TypeError && 'code' in err && String(err.code).startsWith('ERR_PARSE_ARGS'))) {
      process.stderr.write(`confab: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
}

function required(values: Record<string, string | undefined>, name: string): string {
  const v = values[name];
  if (!v) throw new ApiError(`--${name} is required`);
  return v;
}

async function createOrg(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      name: { type: 'string' },
      'owner-email': { type: 'string' },
      'owner-password': { type: 'string' },
      'owner-name': { type: 'string' },
      subdomain: { type: 'string' },
    },
  });
  const config = loadConfig();
  const database = await openDatabase(config.databaseUrl, { poolSize: config.databasePoolSize });
  try {
    const created = await createOrganization(database, {
      name: required(values, 'name'),
      ownerEmail: required(values, 'owner-email'),
      ownerPassword: required(values, 'owner-password'),
      ownerName: values['owner-name'],
      stringId: values.subdomain,
    });
    process.stdout.write(JSON.stringify(created) + '\n');
    return 0;
  } finally {
    await database.close();
  }
}

async function createUser(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      email: { type: 'string' },
      password: { type: 'string' },
      'full-name': { type: 'string' },
      role: { type: 'string', default: 'member' },
      'realm-id': { type: 'string' },
    },
  });
  const config = loadConfig();
  const database = await openDatabase(config.databaseUrl, { poolSize: config.databasePoolSize });
  try {
    const created = await createAccountFromCli(database, {
      email: required(values, 'email'),
      password: required(values, 'password'),
      fullName: required(values, 'full-name'),
      role: values.role!,
      realmId: values['realm-id'] === undefined ? undefined : Number(values['realm-id']),
    });
    process.stdout.write(JSON.stringify(created) + '\n');
    return 0;
  } finally {
    await database.close();
  }
}

async function setOrgDeactivated(args: string[], deactivated: boolean): Promise<number> {
  const { values } = parseArgs({ args, options: { 'realm-id': { type: 'string' }, subdomain: { type: 'string' } } });
  const realmId = values['realm-id'] === undefined ? undefined : Number(values['realm-id']);
  if (realmId !== undefined && !Number.isSafeInteger(realmId)) throw new ApiError('--realm-id must be a number');
  // Full services (with Redis when configured), so running servers hear of it at once.
  const services = await createServices(loadConfig());
  try {
    const realm = await realmForOperator(services, { realmId, subdomain: values.subdomain });
    const changed = await setRealmDeactivated(services, realm.id, deactivated);
    process.stdout.write(JSON.stringify({ realm_id: realm.id, deactivated, changed }) + '\n');
    return 0;
  } finally {
    await services.rateLimiter?.close();
    await services.bus.close();
    await services.database.close();
  }
}

async function serve(): Promise<number> {
  const config = loadConfig();
  // CONFAB_WORKERS: this process becomes the primary, which forks the workers (bin/confab.js
  // loads primary.js directly, without the server; this covers main() called some other way).
  if (config.workers > 1 && cluster.isPrimary) return (await import('./primary.js')).runPrimary();
  const worker = cluster.isWorker;
  // Workers on one SQLite file take turns at writing, handed out by the primary (lib/ipc_write_turn.ts).
  const channel = worker && !isPostgresUrl(config.databaseUrl) ? primaryChannel() : null;
  const writeTurn = channel ? new IpcWriteTurn(channel) : undefined;
  const database = await openDatabase(config.databaseUrl, { poolSize: config.databasePoolSize, writeTurn });
  let firstOrg: { realm_id: number; user_id: number } | undefined;
  // Servers started together on a fresh database all come here: one of them makes the
  // organization (and prints its login, and later makes #general); the others find it made.
  const password = generatePassword();
  const host = new URL(config.externalUrl).hostname;
  const email = `owner@${host.includes('.') && !/^[\d.]+$/.test(host) ? host : 'confab.example.com'}`;
  const created = await createFirstOrganization(database, { name: 'Confab', ownerEmail: email, ownerPassword: password, ownerName: 'Owner' });
  if (created) {
    firstOrg = created;
    process.stdout.write(
      `Created organization ${created.realm_id} with its owner account (shown only this once):\n` +
        `  email:    ${created.email}\n  password: ${password}\n  api key:  ${created.api_key}\n`,
    );
  }
  const server = await startServer(config, { database, worker });
  // With CONFAB_PORT=0 the port is known only now; links the server writes must carry it.
  if (!process.env.CONFAB_EXTERNAL_URL && config.port === 0) config.externalUrl = server.url;
  if (firstOrg) {
    const realm = await server.services.cache.realm(firstOrg.realm_id);
    const owner = await server.services.cache.user(firstOrg.realm_id, firstOrg.user_id);
    if (realm && owner) await createGeneralChannel(server.services, realm, owner);
  }
  // Signal handlers stay installed from before the address is printed until the process exits, so
  // no signal ever meets Node's default (an abrupt exit). The first stops gracefully; a second one
  // during the drain period stops at once (still finishing requests in flight).
  let signals = 0;
  let stopRequested!: () => void;
  const requested = new Promise<void>((resolve) => (stopRequested = resolve));
  const onSignal = () => {
    if (++signals === 1) stopRequested();
    else void server.close({ now: true });
  };
  process.on('SIGTERM', onSignal);
  if (worker) {
    // Ctrl-C reaches the whole process group: the primary stops the workers one at a time, so
    // each can hand its queues to one still running; a worker that stopped on its own would not.
    process.on('SIGINT', () => undefined);
    // The primary is gone (killed outright): nobody relays events or hands out connections any more.
    process.once('disconnect', () => {
      if (++signals === 1) stopRequested();
      void server.close({ now: true });
    });
  } else {
    process.on('SIGINT', onSignal);
  }
  // bin/confab.js held V8's young generation at its initial size during start-up; from here on
  // it grows with the load as V8 sizes it by default.
  setFlagsFromString('--semi-space-growth-factor=2');
  // It also kept TurboFan off: start-up code runs once, and while no request has come the only
  // work is the background jobs' polls, which need no optimized code (one optimizing compile pages
  // in ~4 MB of the compiler). The first request turns it on; its hot code is optimized from then.
  // The first request also loads the Markdown parser, which an idle server does not carry: right after
  // it instead of inside the first message's send, where loading markdown-it, building its
  // rules and unpacking the TLD list took 53-207 ms (loaded machine) while every later delivery
  // queued behind it.
  server.http.server.once('request', () => {
    setFlagsFromString('--turbofan');
    setImmediate(() => {
      try {
        renderMarkdown(RENDERER_WARM_UP);
      } catch (err) {
        console.error('warming the Markdown renderer failed (the first message will load it):', err);
      }
    });
  });
  if (worker) process.send!({ confab: 'ready', url: server.url });
  else process.stdout.write(`Confab ${CONFAB_VERSION} listening on ${server.url} (clients use ${config.externalUrl})\n`);
  await requested;
  if (config.drainSeconds) process.stdout.write(`Draining for ${config.drainSeconds} s (health checks fail, requests are still served)\n`);
  await server.close();
  if (worker) {
    // The channel to the primary would keep this process alive; anything else still holding it
    // (a socket a client keeps open) gets two seconds.
    if (process.connected) process.disconnect();
    setTimeout(() => process.exit(), 2000).unref();
    return 0;
  }
  process.stdout.write('Confab stopped.\n');
  return 0;
}

async function registerPushServer(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { url: { type: 'string' }, 'contact-email': { type: 'string' }, hostname: { type: 'string' } },
  });
  const config = loadConfig();
  const url = values.url ?? config.pushBouncer?.url ?? 'https://push.zulipchat.com';
  // Registering again keeps the existing identity (the service knows the server by it).
  const serverId = config.pushBouncer?.serverId ?? randomUUID();
  const serverKey = config.pushBouncer?.serverKey ?? randomBytes(32).toString('hex');
  try {
    await registerServer(url, { serverId, serverKey, hostname: values.hostname ?? new URL(config.externalUrl).host, contactEmail: required(values, 'contact-email') });
  } catch (err) {
    if (!(err instanceof BouncerError)) throw err;
    process.stderr.write(`confab: the push notification service refused: ${err.message}\n`);
    return 1;
  }
  process.stdout.write(`CONFAB_PUSH_BOUNCER_URL=${url}\nCONFAB_PUSH_BOUNCER_SERVER_ID=${serverId}\nCONFAB_PUSH_BOUNCER_SERVER_KEY=${serverKey}\n`);
  return 0;
}
