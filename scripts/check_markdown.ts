// npm run check:markdown [-- FILE] [--min PERCENT] [--quiet: names of misses only]
// Renders every case of Zulip's Markdown fixture file (regular_tests and linkify_tests) with
// Confab's renderer, in the setting Zulip's own test suite uses (users of its test organization,
// camo with its test key, http://zulip.testserver), and prints how many match exactly, with a
// diff for each miss. Exits 1 when the share of exact matches is below --min.
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderMarkdown, type RenderContext } from '../src/markdown/render.js';

interface RegularCase {
  name: string;
  input: string;
  expected_output: string;
  translate_emoticons?: boolean;
}
type LinkifyCase = [string, string, string | null];

const args = process.argv.slice(2);
const here = dirname(fileURLToPath(import.meta.url));
const file = args.find((a) => !a.startsWith('--') && !/^\d+$/.test(a)) ?? resolve(here, '../../../shared/reference/markdown_test_cases.json');
const minIndex = args.indexOf('--min');
const min = minIndex >= 0 ? Number(args[minIndex + 1]) : 0;
const quiet = args.includes('--quiet');
const fixtures = JSON.parse(readFileSync(file, 'utf8')) as { regular_tests: RegularCase[]; linkify_tests: LinkifyCase[] };

/** Zulip's test organization, as far as the fixture cases refer to it. */
const baseContext: RenderContext = {
  users: [{ id: 7, full_name: 'Zoe', is_active: true }],
  realmUrl: 'http://zulip.testserver',
  camo: { url: 'https://external-content.zulipcdn.net/external_content/', key: 'dummy' },
};

/** What Zulip's test expects for a linkify case: `%s` in the template is the URL as a link. */
function linkifyExpected([, template, url]: LinkifyCase): string {
  if (!url || !template.includes('%s')) return template;
  const href = url.startsWith('http') ? url : url.includes('@') ? `mailto:${url}` : `http://${url}`;
  return template.replace('%s', `<a href="${href}">${url}</a>`);
}

const cases = [
  ...fixtures.regular_tests.map((c) => ({ name: c.name, input: c.input, expected: c.expected_output, translate: c.translate_emoticons === true })),
  ...fixtures.linkify_tests.map((c, i) => ({ name: `linkify_${i}: ${c[0]}`, input: c[0], expected: linkifyExpected(c), translate: false })),
];

let matched = 0;
const misses: string[] = [];
for (const c of cases) {
  let actual: string;
  try {
    actual = renderMarkdown(c.input, { ...baseContext, translateEmoticons: c.translate }).html;
  } catch (err) {
    actual = `(threw ${String(err)})`;
  }
  if (actual === c.expected) {
    matched++;
    continue;
  }
  misses.push(quiet ? `miss: ${c.name}` : `--- ${c.name}\ninput:    ${JSON.stringify(c.input)}\nexpected: ${JSON.stringify(c.expected)}\nactual:   ${JSON.stringify(actual)}`);
}
for (const m of misses) console.log(m);
const percent = (100 * matched) / cases.length;
console.log(`markdown fixtures: ${matched} of ${cases.length} match exactly (${percent.toFixed(1)}%)`);
if (percent < min) {
  console.log(`below the required ${min}%`);
  process.exit(1);
}
