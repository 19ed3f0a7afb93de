// Builds the browser client (web/) into dist/web: hashed, minified ES modules split by esbuild,
// an index.html naming them, and .br/.gz copies of every file made once here so the server never
// compresses at request time. Prints the first view's weight (JS + CSS, gzipped).
// It first bundles the server itself (scripts/build_server.mjs), so the commands that build the
// client (npm test, npm start, npm run bench) leave bin/confab.js a current bundle to run.
import * as esbuild from 'esbuild';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { createHash } from 'node:crypto';

await import('./build_server.mjs');

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist', 'web');
const staticDir = join(out, 'static');
const quiet = process.argv.includes('--quiet');

// Emoji names for the picker and typeahead, from the server's own table (compiled first by tsc),
// as a module that only loads when the picker first opens.
const emojiPlugin = {
  name: 'confab-emoji',
  setup(build) {
    build.onResolve({ filter: /^confab:emoji$/ }, () => ({ path: 'emoji', namespace: 'confab-emoji' }));
    build.onLoad({ filter: /.*/, namespace: 'confab-emoji' }, async () => {
      const { emojiApiData } = await import(join(root, 'dist', 'src', 'lib', 'emoji.js'));
      const pairs = [];
      for (const [code, names] of Object.entries(emojiApiData().code_to_names)) pairs.push([names[0], code, names.slice(1)]);
      return { contents: JSON.stringify(pairs), loader: 'json' };
    });
  },
};

rmSync(out, { recursive: true, force: true });
mkdirSync(staticDir, { recursive: true });
const result = await esbuild.build({
  absWorkingDir: root,
  entryPoints: { app: 'web/src/main.tsx' },
  bundle: true,
  splitting: true,
  format: 'esm',
  target: ['es2020', 'chrome100', 'firefox100', 'safari15'],
  minify: true,
  outdir: staticDir,
  entryNames: '[name]-[hash]',
  chunkNames: '[name]-[hash]',
  assetNames: '[name]-[hash]',
  jsx: 'automatic',
  jsxImportSource: 'preact',
  metafile: true,
  legalComments: 'none',
  loader: { '.woff2': 'file', '.woff': 'file', '.ttf': 'file' },
  plugins: [emojiPlugin],
  logLevel: 'warning',
});

// KaTeX's stylesheet (and its fonts) for messages with math: a separate file the client links
// the first time it shows a formula. Only woff2 fonts are kept (every current browser reads them).
const katexCss = readFileSync(join(root, 'node_modules/katex/dist/katex.min.css'), 'utf8').replace(/,url\(fonts\/[^)]+\.(woff|ttf)\) format\("(woff|truetype)"\)/g, '');
const katex = await esbuild.build({
  absWorkingDir: root,
  stdin: { contents: katexCss, loader: 'css', resolveDir: join(root, 'node_modules/katex/dist'), sourcefile: 'katex.css' },
  bundle: true,
  minify: true,
  outdir: staticDir,
  entryNames: 'katex-[hash]',
  assetNames: '[name]-[hash]',
  loader: { '.woff2': 'file', '.woff': 'file', '.ttf': 'file' },
  metafile: true,
  logLevel: 'warning',
});
const katexOut = Object.keys(katex.metafile.outputs).find((p) => p.endsWith('.css'));

const outputs = result.metafile.outputs;
const name = (p) => relative(staticDir, join(root, p));
const entry = Object.entries(outputs).find(([, o]) => o.entryPoint === 'web/src/main.tsx');
if (!entry) throw new Error('build_web: no entry output');
const [entryPath, entryInfo] = entry;
const css = entryInfo.cssBundle;

// The first view: the entry, the chunks it imports statically (not the lazy ones), and its CSS.
const firstView = new Set();
const walk = (p) => {
  if (firstView.has(p)) return;
  firstView.add(p);
  for (const imp of outputs[p]?.imports ?? []) if (imp.kind === 'import-statement') walk(imp.path);
};
walk(entryPath);
if (css) firstView.add(css);

// The tab's icon, under a hashed name like the rest (without one the browser asks for
// /favicon.ico, a 404 logged in the console of every page load).
const favicon = readFileSync(join(root, 'web/src/favicon.svg'));
const faviconName = `favicon-${createHash('sha256').update(favicon).digest('hex').slice(0, 8).toUpperCase()}.svg`;
writeFileSync(join(staticDir, faviconName), favicon);

const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark"><title>Confab</title>
<link rel="icon" type="image/svg+xml" href="/static/${faviconName}">
<meta name="confab-katex-css" content="/static/${name(katexOut)}">
${css ? `<link rel="stylesheet" href="/static/${name(css)}">` : ''}
<script type="module" src="/static/${name(entryPath)}"></script>
</head><body><div id="app"><noscript>Confab needs JavaScript.</noscript></div></body></html>
`;
writeFileSync(join(out, 'index.html'), html);

let firstViewGz = 0;
const compress = (path) => {
  const data = readFileSync(path);
  const gz = gzipSync(data, { level: 9 });
  writeFileSync(`${path}.gz`, gz);
  writeFileSync(`${path}.br`, brotliCompressSync(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: data.length } }));
  return gz.length;
};
compress(join(out, 'index.html'));
for (const f of readdirSync(staticDir)) {
  const gz = compress(join(staticDir, f));
  if (firstView.has(relative(root, join(staticDir, f)))) firstViewGz += gz;
}
writeFileSync(join(out, 'build.json'), JSON.stringify({ firstViewGzBytes: firstViewGz, firstView: [...firstView].map(name) }, null, 1));
if (!quiet) console.log(`web client: first view ${(firstViewGz / 1024).toFixed(1)} KB gzipped JS+CSS (${[...firstView].map(name).join(', ')})`);
if (firstViewGz > 150 * 1024) {
  console.error('web client: the first view is over its 150 KB budget');
  process.exitCode = 1;
}
