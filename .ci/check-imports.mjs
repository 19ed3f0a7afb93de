// The layers of docs/architecture.md, checked: a file under src/ may import only files of its own
// layer or a lower one, and no files may import each other in a loop (type-only imports count too).
// Also: only src/store/ speaks SQL (no query builder call, no `sql` template, outside it).
// `--loops-only DIR` checks another tree (the web client: `.ts` and `.tsx`, imports with or without
// an extension) for file loops alone: it has no layers.
import fs from 'node:fs';
import path from 'node:path';

const LAYERS = [
  ['lib', 'errors.ts', 'config.ts'],
  ['store'],
  ['events', 'markdown'],
  ['services.ts'],
  ['access'],
  ['shapes'],
  ['queries'],
  ['actions'],
  ['integrations'],
  ['http'],
  ['app.ts'],
  ['cli'],
];
const loopsOnly = process.argv[2] === '--loops-only';
const root = path.resolve((loopsOnly ? process.argv[3] : process.argv[2]) ?? 'src');
const layerOf = (file) => {
  if (loopsOnly) return 0;
  const top = path.relative(root, file).split(path.sep)[0];
  const i = LAYERS.findIndex((names) => names.includes(top));
  if (i < 0) throw new Error(`${path.relative(root, file)}: no layer in .ci/check-imports.mjs`);
  return i;
};

const files = [];
(function walk(dir) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p);
    else if (p.endsWith('.ts') || (loopsOnly && p.endsWith('.tsx'))) files.push(p);
  }
})(root);

const IMPORT = /(?:^|\n)\s*(?:import|export)\b[^;'"]*?from\s*['"](\.[^'"]+)['"]|\bimport\(\s*['"](\.[^'"]+)['"]\s*\)/g;
// A query builder call, a `sql` template (sql`…`, sql<T>`…`, sql.ref/join/raw/…), or `sql` imported from kysely.
const QUERY_BUILDER = /\.(selectFrom|insertInto|updateTable|deleteFrom|replaceInto|mergeInto)\(|\bsql(<[^`]*>)?`|\bsql\.(ref|join|raw|lit|id|table|val|expression)\(|import\s*\{[^}]*\bsql\b[^}]*\}\s*from\s*'kysely'/;
/** The file an import names: `x.js` is `x.ts` (or `x.tsx`); the web client also leaves the extension out. */
function resolveImport(spec) {
  const base = spec.replace(/\.js$/, '');
  for (const candidate of [`${base}.ts`, ...(loopsOnly ? [`${base}.tsx`, spec] : [])]) {
    if (fs.existsSync(candidate) && fs.statSync(candidate).isFile()) return candidate;
  }
  return undefined;
}
const edges = new Map();
const problems = [];
for (const f of files) {
  const text = fs.readFileSync(f, 'utf8');
  const targets = new Set();
  for (const m of text.matchAll(IMPORT)) {
    const target = resolveImport(path.resolve(path.dirname(f), m[1] ?? m[2]));
    if (!target) continue;
    targets.add(target);
    if (layerOf(target) > layerOf(f)) problems.push(`upward import: ${path.relative(root, f)} -> ${path.relative(root, target)}`);
  }
  edges.set(f, targets);
  if (!loopsOnly && path.relative(root, f).split(path.sep)[0] !== 'store') {
    text.split('\n').forEach((line, i) => {
      if (QUERY_BUILDER.test(line)) problems.push(`SQL outside store/: ${path.relative(root, f)}:${i + 1}: ${line.trim().slice(0, 100)}`);
    });
  }
}

// File loops: strongly connected components of more than one file (Tarjan).
let index = 0;
const idx = new Map(), low = new Map(), stack = [], onStack = new Set();
function connect(v) {
  idx.set(v, index); low.set(v, index); index++;
  stack.push(v); onStack.add(v);
  for (const w of edges.get(v) ?? []) {
    if (!idx.has(w)) { connect(w); low.set(v, Math.min(low.get(v), low.get(w))); }
    else if (onStack.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
  }
  if (low.get(v) === idx.get(v)) {
    const loop = [];
    let w;
    do { w = stack.pop(); onStack.delete(w); loop.push(path.relative(root, w)); } while (w !== v);
    if (loop.length > 1) problems.push(`import loop: ${loop.sort().join(', ')}`);
  }
}
for (const f of files) if (!idx.has(f)) connect(f);

if (problems.length) {
  console.error(problems.join('\n'));
  console.error(`${problems.length} problem(s); the layers are listed in .ci/check-imports.mjs and docs/architecture.md`);
  process.exit(1);
}
const imports = [...edges.values()].reduce((n, s) => n + s.size, 0);
console.log(loopsOnly ? `imports of ${path.relative(process.cwd(), root) || '.'}: ${files.length} files, ${imports} imports, no loop` : `imports: ${files.length} files, ${imports} imports, no upward import, no loop, no SQL outside store/`);
