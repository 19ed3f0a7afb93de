// Bundles the compiled server (dist/src, from tsc) into one ES module, dist/server/bundle/main.js,
// which bin/confab.js runs when it is up to date. Node's module loader keeps per-file state
// (module records, sources, loader jobs) for each of the ~520 files the server would otherwise load
// one by one (262 of them Kysely's); one file costs ~10 MB less resident memory at start.
// Identifiers are kept (readable stack traces; a source map points back into dist/src).
// Run by build_web.mjs, so every build that prepares the web client prepares this too.
import * as esbuild from 'esbuild';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

// Fastify's lib/server.js requires node:https and node:http2 when it loads, though it creates an
// HTTPS or HTTP/2 server only when asked to (Confab never is). Loading them (with tls) costs
// ~2.3 MB resident; here they load on first use instead. If a Fastify release changes these lines
// the build fails, so this is revisited rather than silently lost.
function lazyFastifyTransports() {
  const eager = ["const https = require('node:https')", "const http2 = require('node:http2')"];
  return {
    name: 'confab-lazy-fastify-transports',
    setup(build) {
      build.onLoad({ filter: /[\\/]node_modules[\\/]fastify[\\/]lib[\\/]server\.js$/ }, async (args) => {
        let contents = readFileSync(args.path, 'utf8');
        for (const line of eager) {
          if (!contents.includes(line)) throw new Error(`build_server: fastify/lib/server.js no longer has "${line}"`);
          const [, name, id] = /const (\w+) = require\('([^']+)'\)/.exec(line);
          contents = contents.replace(line, `let ${name}Module; const ${name} = new Proxy({}, { get: (_, key) => (${name}Module ??= require('${id}'))[key] })`);
        }
        return { contents, loader: 'js' };
      });
    },
  };
}

// Two levels under dist/, as dist/src/http/web_client.js is: its '../../web/' is dist/web either way.
const out = join(root, 'dist', 'server', 'bundle');
rmSync(join(root, 'dist', 'server'), { recursive: true, force: true });
await esbuild.build({
  absWorkingDir: root,
  // Worker threads are started from a file beside the code that starts them
  // (new URL('./x.js', import.meta.url)): each is an entry point of its own. So is the primary
  // process of CONFAB_WORKERS (src/cli/primary.ts), which must not load the server.
  entryPoints: { main: 'dist/src/cli/main.js', primary: 'dist/src/cli/primary.js', checkpoint_worker: 'dist/src/store/checkpoint_worker.js' },
  bundle: true,
  // Dynamic imports (the Redis bus, the PostgreSQL driver, …) stay separate files, loaded on first use.
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  outdir: out,
  minifyWhitespace: true,
  minifySyntax: true,
  sourcemap: true,
  legalComments: 'none',
  // Native addons and packages loaded only on demand stay in node_modules.
  external: ['better-sqlite3', 'pg', 'ioredis', '@node-rs/*', 'nodemailer'],
  plugins: [lazyFastifyTransports()],
  // CommonJS dependencies bundled into an ES module still call require() for Node's built-ins.
  banner: { js: "import { createRequire as __confabCreateRequire } from 'node:module'; const require = __confabCreateRequire(import.meta.url);" },
  logLevel: 'warning',
});

// V8 keeps a script's whole source in the heap, one byte per character only if every character is
// Latin-1: one '✔' in a regular expression literal (esbuild escapes strings, not regex literals)
// doubled the bundle's ~2 MB. Write such characters as \u escapes in src/.
const files = new Set(readdirSync(out));
for (const f of files) {
  if (!f.endsWith('.js')) continue;
  const text = readFileSync(join(out, f), 'utf8');
  // A file the bundle starts as a worker must be in the bundle's folder.
  for (const [, ref] of text.matchAll(/new URL\(\s*["']\.\/([^"']+)["']\s*,\s*import\.meta\.url\s*\)/g)) {
    if (!files.has(ref)) {
      console.error(`build_server: ${f} starts ./${ref}, which is not in the bundle (add it to entryPoints)`);
      process.exitCode = 1;
    }
  }
  const at = text.search(/[^\x00-\x7f]/);
  if (at >= 0) {
    console.error(`build_server: ${f} holds a non-ASCII character (escape it as \\u… in src/): …${text.slice(Math.max(0, at - 60), at + 20)}…`);
    process.exitCode = 1;
  }
}
