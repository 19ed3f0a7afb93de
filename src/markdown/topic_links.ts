// The topic_links of a message: computed from the topic alone, with the parser's URL detection,
// so this sits above both the link rules and the parser.
import { expandTemplate } from '../lib/uri_templates.js';
import type { LinkifierRule } from './env.js';
import { getParser } from './parser.js';

/**
 * The topic_links of a message: linkifier matches in the topic (earlier linkifiers win overlaps)
 * and then plain URLs, in the order they appear. Linkifier matches are found left to right
 * without overlap, so the work is linear in the topic for each linkifier.
 */
export function topicLinks(topic: string, linkifiers: readonly LinkifierRule[]): Array<{ text: string; url: string }> {
  if (!topic) return [];
  const found: Array<{ start: number; end: number; text: string; url: string }> = [];
  const overlaps = (s: number, e: number) => found.some((f) => s < f.end && f.start < e);
  for (const rule of linkifiers) {
    const m = rule.re.matcher(topic);
    let guard = 0;
    while (m.find() && guard++ < 100) {
      const start = m.start();
      const end = m.end();
      if (end <= start || overlaps(start, end)) continue;
      const vars: Record<string, string> = {};
      for (const name of Object.keys(rule.re.namedGroups())) vars[name] = m.group(name) ?? '';
      found.push({ start, end, text: topic.slice(start, end), url: expandTemplate(rule.template, vars) });
    }
  }
  const linkify = (getParser() as unknown as { linkify: { match(t: string): Array<{ index: number; lastIndex: number; url: string; text: string }> | null } }).linkify;
  for (const l of linkify.match(topic) ?? []) {
    if (!overlaps(l.index, l.lastIndex)) found.push({ start: l.index, end: l.lastIndex, text: l.text, url: l.url });
  }
  return found.sort((a, b) => a.start - b.start).map((f) => ({ text: f.text, url: f.url }));
}
