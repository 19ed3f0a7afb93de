// The operator interface: `confab create-org`, `confab create-user`, `confab serve` (first start
// prints a usable login; SIGTERM stops it cleanly), and `confab --help`.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client, emptyDatabases, rawRequest } from './helpers.js';

const run = promisify(execFile);
const bin = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'confab.js');
const databases = emptyDatabases('cli');
after(() => databases.drop());

async function confab(args: string[], env: Record<string, string>) {
  return run(process.execPath, [bin, ...args], { env: { ...process.env, ...env } });
}

test('--help lists the commands', async () => {
  const { stdout } = await confab(['--help'], {});
  for (const cmd of ['serve', 'create-org', 'create-user']) assert.match(stdout, new RegExp(cmd));
});

test('serve --help prints the help and starts nothing (no database made, no organization)', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'confab-cli-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const { stdout } = await confab(['serve', '--help'], { CONFAB_DATABASE_URL: `sqlite:${join(dir, 'never.db')}`, CONFAB_PORT: '1' });
  assert.match(stdout, /Usage: confab/);
  assert.equal(existsSync(join(dir, 'never.db')), false);
});

test('create-org and create-user print one JSON line each, on an empty database', async () => {
  const db = await databases.fresh();
  const org = await confab(['create-org', '--name', 'Acme', '--owner-email', 'boss@acme.example.com', '--owner-password', 'correct horse', '--owner-name', 'Boss'], {
    CONFAB_DATABASE_URL: db,
  });
  const lines = org.stdout.trim().split('\n');
  assert.equal(lines.length, 1);
  const created = JSON.parse(lines[0]!);
  assert.deepEqual(Object.keys(created).sort(), ['api_key', 'email', 'realm_id', 'user_id']);
  assert.equal(created.email, 'boss@acme.example.com');
  assert.equal(typeof created.api_key, 'string');

  const user = await confab(['create-user', '--email', 'ann@acme.example.com', '--password', 'pw-ann-123', '--full-name', 'Ann', '--role', 'moderator'], {
    CONFAB_DATABASE_URL: db,
  });
  const u = JSON.parse(user.stdout.trim());
  assert.equal(u.realm_id, created.realm_id);
  assert.equal(u.email, 'ann@acme.example.com');
  assert.notEqual(u.user_id, created.user_id);

  // A bad role and a duplicate email are refused with a message and a non-zero exit.
  await assert.rejects(confab(['create-user', '--email', 'x@acme.example.com', '--password', 'p', '--full-name', 'X', '--role', 'emperor'], { CONFAB_DATABASE_URL: db }), /role/);
  await assert.rejects(confab(['create-user', '--email', 'ann@acme.example.com', '--password', 'p', '--full-name', 'Ann'], { CONFAB_DATABASE_URL: db }), /already in use/);
});

test('serve: first start prints a login that works, SIGTERM stops cleanly', async () => {
  const db = await databases.fresh();
  const child = spawn(process.execPath, [bin, 'serve'], {
    env: { ...process.env, CONFAB_DATABASE_URL: db, CONFAB_PORT: '0', CONFAB_HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  try {
    const deadline = Date.now() + 20_000;
    while (!/listening on (http:\/\/\S+)/.test(out) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
    assert.ok(url, `server did not start: ${out}`);
    const email = /email:\s+(\S+)/.exec(out)?.[1];
    const password = /password:\s+(\S+)/.exec(out)?.[1];
    const apiKey = /api key:\s+(\S+)/.exec(out)?.[1];
    assert.ok(email && password && apiKey, `credentials printed: ${out}`);

    const login = await rawRequest(url, 'POST', '/fetch_api_key', {
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ username: email, password }).toString(),
    });
    assert.equal(login.status, 200);
    assert.equal(login.body.api_key, apiKey);
    const me = await new Client(url, email, apiKey, 0).get('/users/me');
    assert.equal(me.status, 200);
    assert.equal(me.body.role, 100);
  } finally {
    child.kill('SIGTERM');
  }
  assert.equal(await exited, 0);
  assert.match(out, /stopped/);
});
