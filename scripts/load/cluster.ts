// The cluster under load: Confab processes (each on a fixed port, so a restarted one takes its
// place behind the balancer), HAProxy configured from docs/haproxy.cfg, and throwaway databases.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export class ConfabProcess {
  child: ChildProcess | null = null;
  /** The last lines the process wrote to stderr, shown when something goes wrong. */
  stderrTail: string[] = [];
  starts = 0;

  constructor(
    readonly name: string,
    readonly port: number,
    private readonly root: string,
    private readonly env: Record<string, string>,
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  async start(): Promise<void> {
    this.starts++;
    const child = spawn(process.execPath, [join(this.root, 'bin', 'confab.js'), 'serve'], {
      env: { ...process.env, CONFAB_PORT: String(this.port), CONFAB_HOST: '127.0.0.1', CONFAB_RATE_LIMITS: 'off', CONFAB_DATABASE_POOL_SIZE: '10', ...this.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    child.stderr!.on('data', (d: Buffer) => {
      this.stderrTail.push(...d.toString().split('\n').filter(Boolean));
      if (this.stderrTail.length > 20) this.stderrTail.splice(0, this.stderrTail.length - 20);
    });
    await new Promise<void>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`${this.name} did not start: ${out}`)), 60_000);
      const onData = (d: Buffer) => {
        out += d.toString();
        if (/listening on http/.test(out)) {
          clearTimeout(timer);
          child.stdout!.off('data', onData);
          child.stdout!.resume();
          resolve();
        }
      };
      child.stdout!.on('data', onData);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`${this.name} exited with ${code} while starting: ${out}\n${this.stderrTail.join('\n')}`));
      });
    });
  }

  /** Sends the signal and waits for the process to exit; resolves with the milliseconds it took. */
  async stop(signal: NodeJS.Signals): Promise<number> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return 0;
    const started = Date.now();
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    child.kill(signal);
    await exited;
    return Date.now() - started;
  }
}

export class Balancer {
  private child: ChildProcess | null = null;
  private dir = '';
  url = '';

  async start(repoRoot: string, backends: ConfabProcess[]): Promise<void> {
    const port = await freePort();
    this.dir = mkdtempSync(join(tmpdir(), 'confab-load-haproxy-'));
    const servers = backends.map((b, i) => `    server confab${i + 1} 127.0.0.1:${b.port}`).join('\n');
    // The documented sample, with this run's ports.
    const cfg = readFileSync(join(repoRoot, 'docs', 'haproxy.cfg'), 'utf8')
      .replace(/bind 127\.0\.0\.1:\d+/, `bind 127.0.0.1:${port}`)
      .replace(/(    server confab\d 127\.0\.0\.1:\d+\n?)+/, `${servers}\n`);
    if (!cfg.includes(`127.0.0.1:${backends[0]!.port}`)) throw new Error('docs/haproxy.cfg no longer has the expected server lines');
    writeFileSync(join(this.dir, 'haproxy.cfg'), cfg);
    this.child = spawn(process.env.CONFAB_HAPROXY || 'haproxy', ['-db', '-f', join(this.dir, 'haproxy.cfg')], { stdio: ['ignore', 'ignore', 'ignore'] });
    this.url = `http://127.0.0.1:${port}`;
    const until = Date.now() + 15_000;
    for (;;) {
      const ok = await fetch(`${this.url}/health`).then((r) => r.status === 200, () => false);
      if (ok) break;
      if (Date.now() > until) throw new Error('HAProxy did not come up');
      await sleep(100);
    }
    // Every backend up (HAProxy's first checks pass within a second).
    await sleep(1500);
  }

  async stop(): Promise<void> {
    if (this.child && this.child.exitCode === null) {
      const exited = new Promise<void>((r) => this.child!.once('exit', () => r()));
      this.child.kill('SIGTERM');
      await exited;
    }
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
  }
}

/** A fresh PostgreSQL database for one scenario; drop() removes it. */
export async function createPgDatabase(adminUrl: string, name: string): Promise<{ url: string; drop(): Promise<void> }> {
  const run = async (sql: string) => {
    const c = new pg.Client({ connectionString: adminUrl });
    await c.connect();
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  };
  await run(`DROP DATABASE IF EXISTS ${name}`);
  await run(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => run(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

/** A fresh SQLite file for one scenario. */
export function createSqliteDatabase(): { url: string; drop(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'confab-load-'));
  return { url: `sqlite:${join(dir, 'load.db')}`, drop: () => rmSync(dir, { recursive: true, force: true }) };
}
