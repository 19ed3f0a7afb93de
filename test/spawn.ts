// A Confab server in a child process over a test server's database, for tests that measure the
// process (its memory) or kill it (durability).
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestServer } from './helpers.js';

export interface ChildServer {
  url: string;
  child: ChildProcess;
  /** The process's peak resident memory so far (VmHWM), in bytes. */
  peakRss(): number;
  /** The process's resident memory now (VmRSS), in bytes. */
  rss(): number;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

function statusField(pid: number, name: string): number {
  const m = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : NaN;
}

export async function spawnServer(t: Pick<TestServer, 'databaseUrl'>, env: Record<string, string> = {}): Promise<ChildServer> {
  const bin = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'confab.js');
  const child = spawn(process.execPath, [bin, 'serve'], {
    env: { ...process.env, CONFAB_DATABASE_URL: t.databaseUrl, CONFAB_PORT: '0', CONFAB_HOST: '127.0.0.1', CONFAB_RATE_LIMITS: 'off', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (d: Buffer) => {
    err += d.toString();
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`server exited ${code}: ${out}${err}`)));
  });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  return {
    url,
    child,
    peakRss: () => statusField(child.pid!, 'VmHWM'),
    rss: () => statusField(child.pid!, 'VmRSS'),
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}
