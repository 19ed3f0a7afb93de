// Safety of the renderer under any input: no script, no event-handler attribute, no javascript:,
// vbscript: or data: link, and balanced HTML, for random inputs built from Markdown's and Zulip's
// special characters (fast-check) and for known-hostile ones. Pathological inputs must finish:
// each test has a generous time-out as a hang guard; speed itself is measured by `npm run bench`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { renderMarkdown } from '../src/markdown/render.js';
import { compilePattern } from '../src/lib/linkifier_patterns.js';

const VOID = new Set(['br', 'img', 'hr', 'input', 'wbr', 'col', 'source']);
const FRAGMENTS = [
  '*', '**', '_', '`', '```', '~~', '~~~', '$$', '[', ']', '(', ')', '<', '>', '&', '"', "'", '#', '@', '|', ':', '\\', '!',
  '\n', '\n\n', ' ', '    ', '- ', '1. ', '> ', 'a', 'word', ':smile:', ':zulip:', '🐙', '@**Ann**', '@*team*', '#**general**',
  '```spoiler x\n', '```quote\n', '```math\n', '<time:', '<time:1700000000>', 'javascript:alert(1)', 'JaVaScRiPt:x', 'data:text/html,x',
  'vbscript:x', '<script>', '</script>', '<img src=x onerror=alert(1)>', '" onmouseover="x', 'http://a.example.com/x.png',
  'https://b.example.com/?q=<b>', '[x](javascript:alert(1))', '[x](data:text/html;base64,PHNjcmlwdD4=)', '![a](http://c.example.com/a.mp3)',
  '<a href="javascript:x">', '\\href{javascript:alert(1)}{x}', '$$\\href{javascript:x}{y}$$', '&#106;avascript:', '| a | b |\n|---|---|\n',
];

const context = {
  users: [{ id: 7, full_name: 'Ann', is_active: true }],
  groups: [{ id: 3, name: 'team' }],
  channels: new Map([['general', { id: 1, name: 'general' }]]),
  camo: { url: 'https://camo.example.com/', key: 'k' },
  translateEmoticons: true,
  linkifiers: [{ re: compilePattern('#(?P<id>[0-9]+)')!, template: 'https://tracker.example.com/{id}' }],
};

/** Every way the output could run code or break out of its container; empty when safe. */
function problems(html: string): string[] {
  const out: string[] = [];
  const stack: string[] = [];
  for (const m of html.matchAll(/<(\/?)([a-zA-Z][a-zA-Z0-9-]*)((?:[^>"']|"[^"]*"|'[^']*')*)>/g)) {
    const [, closing, rawName, attrs] = m;
    const name = rawName!.toLowerCase();
    if (!closing && ['script', 'iframe', 'object', 'embed', 'style', 'form', 'base', 'meta', 'link'].includes(name)) out.push(`<${name}>`);
    for (const a of attrs!.matchAll(/\s([^\s=]+)\s*=\s*("[^"]*"|'[^']*'|[^\s>]+)/g)) {
      const attr = a[1]!.toLowerCase();
      const value = a[2]!.replace(/^["']|["']$/g, '').replace(/&#x?0*(6a|106);/gi, 'j').replace(/\s/g, '').toLowerCase();
      if (attr.startsWith('on')) out.push(`${attr}=`);
      if ((attr === 'href' || attr === 'src' || attr === 'action' || attr === 'xlink:href') && /^(javascript|vbscript|data):/.test(value)) out.push(`${attr}=${value.slice(0, 20)}`);
    }
    if (VOID.has(name) || attrs!.trimEnd().endsWith('/')) continue;
    if (closing) {
      if (stack.pop() !== name) out.push(`unbalanced </${name}>`);
    } else {
      stack.push(name);
    }
  }
  if (stack.length) out.push(`unclosed ${stack.join(',')}`);
  return out;
}

test('random inputs of Markdown and Zulip syntax render safe, balanced HTML', { timeout: 120_000 }, () => {
  fc.assert(
    fc.property(fc.array(fc.oneof(fc.constantFrom(...FRAGMENTS), fc.string({ maxLength: 8 })), { maxLength: 60 }), (parts) => {
      const input = parts.join('');
      const found = problems(renderMarkdown(input, context).html);
      assert.deepEqual(found, [], `input ${JSON.stringify(input)}`);
    }),
    { numRuns: 1500 },
  );
});

test('known-hostile inputs: escaped, never live', () => {
  const cases = [
    '<script>alert(1)</script>',
    '[click](javascript:alert(1))',
    '[click](JAVASCRIPT:alert(1))',
    '[click](data:text/html;base64,PHNjcmlwdD4=)',
    '![x](javascript:alert(1))',
    '<img src=x onerror=alert(1)>',
    '$$\\href{javascript:alert(1)}{click}$$',
    '```math\n\\url{javascript:alert(1)}\n```',
    '```spoiler <img src=x onerror=alert(1)>\nx\n```',
    '<time:<script>alert(1)</script>>',
    '@**<script>**',
    ':<img>:',
  ];
  for (const input of cases) assert.deepEqual(problems(renderMarkdown(input, context).html), [], input);
});

test('pathological inputs finish (hang guard)', { timeout: 60_000 }, () => {
  const hostile = [
    '`'.repeat(10_000),
    '*'.repeat(10_000),
    '_'.repeat(5_000) + 'x',
    '['.repeat(5_000) + ']'.repeat(5_000),
    '>'.repeat(3_000) + ' deep',
    '- '.repeat(2_000) + 'x',
    '  '.repeat(1_000) + '* x\n'.repeat(500),
    '|a'.repeat(1_000) + '|\n' + '|-'.repeat(1_000) + '|\n' + '|x'.repeat(1_000) + '|\n',
    '$$' + '{'.repeat(1_000) + '$$',
    '$$' + '\\def\\a{\\a\\a}\\a' + '$$',
    ':'.repeat(10_000),
    '@**'.repeat(3_000),
    '#**'.repeat(3_000),
    '<time:'.repeat(1_500),
    'http://a.example.com/' + 'a('.repeat(2_000),
    '(a.com/'.repeat(1_500) + '日.'.repeat(1_500) + 'x.com/' + '('.repeat(3_000) + ')'.repeat(3_000),
    '~~'.repeat(5_000),
    '```spoiler\n'.repeat(1_000),
    '#12345 '.repeat(1_400),
    '```js\n' + '/'.repeat(5_000) + '\n```',
    '```python\n' + '"""'.repeat(2_000) + '\n```',
    '```html\n' + '<a '.repeat(2_000) + '\n```',
    '```sql\n' + "'".repeat(5_000) + '\n```',
  ];
  for (const input of hostile) {
    const out = renderMarkdown(input, context).html;
    assert.deepEqual(problems(out), [], input.slice(0, 40));
  }
});

test('the safety check itself flags what it must', () => {
  assert.deepEqual(problems('<p><script>x</script></p>'), ['<script>']);
  assert.deepEqual(problems('<a href="javascript:x">a</a>'), ['href=javascript:x']);
  assert.deepEqual(problems('<a href=" &#106;avascript:x">a</a>'), ['href=javascript:x']);
  assert.deepEqual(problems('<img src="data:image/png;base64,x">'), ['src=data:image/png;base6']);
  assert.deepEqual(problems('<span onclick="x">a</span>'), ['onclick=']);
  assert.deepEqual(problems('<p><em>a</p></em>'), ['unbalanced </p>', 'unbalanced </em>']);
  assert.deepEqual(problems('<p>a'), ['unclosed p']);
  assert.deepEqual(problems('<p>a<br>b</p>'), []);
});
