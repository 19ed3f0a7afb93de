#!/usr/bin/env node
// Entry point for `npx confab` and `npm start`; the compiled CLI lives in dist/ (built by `npm run build`).
// It runs the one-file bundle of the server (dist/server/bundle, made by scripts/build_server.mjs)
// when that is newer than every file tsc wrote to dist/src, else dist/src itself
// (CONFAB_NO_BUNDLE=1 forces dist/src).
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';

// While the server starts, V8's young generation does not grow: nearly everything allocated then
// (modules, caches) lives on, so a larger young generation would only hold ~14 MB more pages for
// the life of the process. `confab serve` restores the default growth once it listens, so request
// load sizes the young generation as usual. TurboFan waits likewise, for the first request
// (src/cli/main.ts says why).
setFlagsFromString('--semi-space-growth-factor=1');
setFlagsFromString('--no-turbofan');

const dist = fileURLToPath(new URL('../dist/', import.meta.url));

// (Plain concatenation: path.join in this loop is hot enough for V8 to optimize it, and one
// optimizing compile at start-up pages in ~3 MB of the compiler.)
function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(path));
    else if (entry.name.endsWith('.js')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

function bundleIsCurrent() {
  if (process.env.CONFAB_NO_BUNDLE === '1') return false;
  try {
    return statSync(join(dist, 'server/bundle/main.js')).mtimeMs >= newestMtime(join(dist, 'src'));
  } catch {
    return false;
  }
}

// `confab serve` with CONFAB_WORKERS above 1 makes this process the cluster's primary, which only
// forks and joins the workers (src/cli/primary.ts): it loads that module, not the server. (A forked
// worker runs this file again, as a node:cluster worker, and loads the server.)
const args = process.argv.slice(2);
const workers = process.env.CONFAB_WORKERS;
// (A value that is no number goes to the server's configuration, which says what is wrong with it.)
const primary = args[0] === 'serve' && args.length === 1 && Number(workers) > 1 && (await import('node:cluster')).default.isPrimary;
const bundled = bundleIsCurrent();
const { main, runPrimary } = primary
  ? await import(bundled ? '../dist/server/bundle/primary.js' : '../dist/src/cli/primary.js')
  : await import(bundled ? '../dist/server/bundle/main.js' : '../dist/src/cli/main.js');

(primary ? runPrimary() : main(args)).then(
  (code) => { if (typeof code === 'number') process.exitCode = code; },
  (err) => { console.error(err instanceof Error ? err.message : String(err)); process.exitCode = 1; },
);
