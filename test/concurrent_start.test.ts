// Several `confab serve` processes started at the same moment on one fresh database, joined by Redis
// (as a cluster's first start): they migrate it together, exactly one of them makes the first
// organization (and prints its login, and makes #general), and every process then serves it.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { Client, emptyDatabases } from './helpers.js';
import { openDatabase } from '../src/store/db.js';
import { listRealms } from '../src/store/realms.js';

const REDIS_URL = process.env.CONFAB_TEST_REDIS_URL || 'redis://127.0.0.1:6379';
const bin = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'confab.js');
const PROCESSES = 3;
const ROUNDS = 2;
const databases = emptyDatabases('start');
after(() => databases.drop());

interface Started {
  child: ChildProcess;
  /** Everything the process wrote to stdout and stderr. */
  output: () => string;
  url: Promise<string>;
  exited: Promise<number | null>;
}

function start(databaseUrl: string, prefix: string): Started {
  const child = spawn(process.execPath, [bin, 'serve'], {
    env: { ...process.env, CONFAB_DATABASE_URL: databaseUrl, CONFAB_PORT: '0', CONFAB_HOST: '127.0.0.1', CONFAB_RATE_LIMITS: 'off', CONFAB_REDIS_URL: REDIS_URL, CONFAB_REDIS_PREFIX: prefix, CONFAB_DRAIN_SECONDS: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = new Promise<string>((resolve, reject) => {
    const seen = (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    };
    child.stdout!.on('data', seen);
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    void exited.then((code) => reject(new Error(`server exited ${code} before listening:\n${out}`)));
  });
  return { child, output: () => out, url, exited };
}

for (let round = 1; round <= ROUNDS; round++) {
  test(`${PROCESSES} servers started together on a fresh database make one organization (round ${round})`, async () => {
    const databaseUrl = await databases.fresh();
    const prefix = `confab-start-${randomBytes(4).toString('hex')}`;
    // All spawned in the same turn of the event loop: they open, migrate and look for an
    // organization at nearly the same moment.
    const servers = Array.from({ length: PROCESSES }, () => start(databaseUrl, prefix));
    try {
      const urls = await Promise.all(servers.map((s) => s.url));
      const creators = servers.filter((s) => /Created organization/.test(s.output()));
      assert.equal(creators.length, 1, `exactly one process prints a login:\n${servers.map((s) => s.output()).join('\n---\n')}`);
      for (const s of servers) assert.doesNotMatch(s.output(), /error/i, s.output());

      const out = creators[0]!.output();
      const email = /email:\s+(\S+)/.exec(out)![1]!;
      const apiKey = /api key:\s+(\S+)/.exec(out)![1]!;
      const database = await openDatabase(databaseUrl, { poolSize: 2 });
      try {
        const realms = await listRealms(database.db);
        assert.equal(realms.length, 1, JSON.stringify(realms.map((r) => r.id)));
        assert.equal(realms[0]!.string_id, '');
      } finally {
        await database.close();
      }
      // The printed login works on every process, and the organization has one #general (made
      // by its creator once it listened).
      const owner = new Client(urls[0]!, email, apiKey, 0);
      const me = await owner.get('/users/me');
      assert.equal(me.status, 200);
      for (const url of urls) {
        const here = new Client(url, email, apiKey, me.body.user_id);
        assert.equal((await here.get('/users/me')).body.role, 100);
        let general: string[] = [];
        for (let i = 0; i < 50 && general.length === 0; i++) {
          general = (await here.get('/streams')).body.streams.map((s: { name: string }) => s.name).filter((n: string) => n === 'general');
          if (general.length === 0) await new Promise((r) => setTimeout(r, 100));
        }
        assert.deepEqual(general, ['general']);
      }
    } finally {
      for (const s of servers) if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGTERM');
      await Promise.all(servers.map((s) => s.exited));
    }
    // Each stopped cleanly.
    assert.deepEqual(await Promise.all(servers.map((s) => s.exited)), servers.map(() => 0), servers.map((s) => s.output()).join('\n---\n'));
  });
}
