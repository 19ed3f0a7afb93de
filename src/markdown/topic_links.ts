// The topic_links of a message: computed from the topic alone, with the same bare-link detection
// as message content (autolinks.ts).
import { expandTemplate } from '../lib/uri_templates.js';
import { findLinks } from './autolinks.js';
import type { LinkifierRule } from './env.js';

/** Zulip looks for plain URLs in the pieces of a topic between these characters. */
const TOPIC_SPLITTER = /[ !;),'"]/;

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
  // As Zulip does: the first link of each piece, with https:// before one typed without a scheme.
  let offset = 0;
  for (const piece of topic.split(TOPIC_SPLITTER)) {
    const link = findLinks(piece)[0];
    if (link) {
      const start = offset + link.start;
      const end = offset + link.end;
      if (!overlaps(start, end)) found.push({ start, end, text: link.text, url: link.hasScheme ? link.text : `https://${link.text}` });
    }
    offset += piece.length + 1;
  }
  return found.sort((a, b) => a.start - b.start).map((f) => ({ text: f.text, url: f.url }));
}
