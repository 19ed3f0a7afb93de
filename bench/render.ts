// Rendering throughput: Confab's Zulip-flavored renderer on typical chat Markdown, beside plain
// markdown-it (CommonMark, no Zulip rules) on the same text as the floor, and the slowest of a
// set of hostile inputs.
import { createRequire } from 'node:module';
import { renderMarkdown, type RenderContext } from '../src/markdown/render.js';

const SAMPLES = [
  'Sounds good, see you at the standup tomorrow!',
  '@**Ann Lee** can you take a look at #**design>logo v2** when you have a minute? :thumbs_up:',
  'The deploy failed:\n```python\ndef retry(n):\n    for i in range(n):\n        if attempt(i):\n            return True\n    return False\n```\nAny ideas?',
  '* first point\n* second point with **bold** and `code`\n* third: https://example.com/docs/page',
  '> quoted reply with *emphasis*\n\nand my answer :smile: 🎉',
  'Meeting at <time:2024-05-01T15:00:00Z>, agenda in [the doc](https://docs.example.com/agenda).',
  'Formula: $$e^{i\\pi} + 1 = 0$$ and a table:\n\n| a | b |\n|---|---|\n| 1 | 2 |',
  '```spoiler Results\nWe won ~~narrowly~~ comfortably.\n```',
];

const HOSTILE = ['`'.repeat(10_000), '*'.repeat(10_000), '['.repeat(5_000) + ']'.repeat(5_000), '>'.repeat(3_000) + 'x', ':'.repeat(10_000), '@**'.repeat(3_000)];

function throughput(render: (s: string) => void, seconds: number): number {
  const bytes = SAMPLES.reduce((n, s) => n + Buffer.byteLength(s), 0);
  for (let i = 0; i < 200; i++) for (const s of SAMPLES) render(s); // warm up
  let rounds = 0;
  const start = performance.now();
  while (performance.now() - start < seconds * 1000) {
    for (const s of SAMPLES) render(s);
    rounds++;
  }
  return (rounds * bytes) / 1024 / ((performance.now() - start) / 1000);
}

export function renderFigures(seconds: number): { kbPerSecond: number; floorKbPerSecond: number; worstHostileMs: number } {
  const ctx: RenderContext = {
    users: [{ id: 1, full_name: 'Ann Lee', is_active: true }],
    channels: new Map([['design', { id: 2, name: 'design' }]]),
    camo: { url: 'https://camo.example.com/', key: 'k' },
  };
  const kbPerSecond = throughput((s) => renderMarkdown(s, ctx), seconds);
  const MarkdownIt = createRequire(import.meta.url)('markdown-it') as (o: object) => { render(s: string): string };
  const plain = MarkdownIt({ linkify: true, breaks: true });
  const floorKbPerSecond = throughput((s) => plain.render(s), seconds);
  let worstHostileMs = 0;
  for (const h of HOSTILE) {
    const start = performance.now();
    renderMarkdown(h, ctx);
    worstHostileMs = Math.max(worstHostileMs, performance.now() - start);
  }
  return { kbPerSecond, floorKbPerSecond, worstHostileMs };
}
