// Full-text search (the `search` narrow operator). Words are ANDed and stemmed; a quoted phrase
// must also appear as written; the topic counts as part of the message. The operand never reaches
// the database as query syntax: it is cut into words here, and store/message_search.ts passes them
// as bound values, so any input gives a clean result.
import { stemmer } from 'stemmer';
import type { SearchQuery } from '../store/message_search.js';

export type { SearchQuery } from '../store/message_search.js';

/** Zulip keeps at most this much of a search operand. */
const MAX_WORDS = 50;
const WORD = /[\p{L}\p{N}]+/gu;

/**
 * English stop words, as PostgreSQL's `english` configuration drops them: left out of every
 * search so that SQLite answers the same, and never highlighted.
 */
const STOP_WORDS = new Set(
  (
    'i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers herself it its ' +
    'itself they them their theirs themselves what which who whom this that these those am is are was were be been being ' +
    'have has had having do does did doing a an the and but if or because as until while of at by for with about against ' +
    'between into through during before after above below to from up down in out on off over under again further then ' +
    'once here there when where why how all any both each few more most other some such no nor not only own same so than ' +
    'too very s t can will just don should now'
  ).split(' '),
);

export function parseSearch(operand: string): SearchQuery {
  const phrases = [...operand.matchAll(/"([^"]+)"/g)].map((m) => m[1]!.trim()).filter(Boolean);
  const all = [...new Set([...operand.toLowerCase().matchAll(WORD)].map((m) => m[0]))];
  const words = all.filter((w) => !STOP_WORDS.has(w)).slice(0, MAX_WORDS);
  return { words, phrases };
}

function fold(word: string): string {
  return stemmer(word.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase());
}

const HIGHLIGHT_START = '<span class="highlight">';
const HIGHLIGHT_END = '</span>';

/** Wraps the words of text (not markup, not entities) that match the search in highlight spans. */
function highlightText(text: string, stems: Set<string>): string {
  return text.replace(/&#?\w+;|[\p{L}\p{N}]+/gu, (w) => (w.startsWith('&') || !stems.has(fold(w)) ? w : `${HIGHLIGHT_START}${w}${HIGHLIGHT_END}`));
}

export function highlightHtml(html: string, q: SearchQuery): string {
  const stems = new Set(q.words.map(fold));
  if (stems.size === 0) return html;
  return html
    .split(/(<[^>]*>)/)
    .map((part, i) => (i % 2 === 1 ? part : highlightText(part, stems)))
    .join('');
}

export function escapeTopic(topic: string): string {
  return topic.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** match_content and match_subject of a message for a search (none: the plain HTML and topic). */
export function matchFields(renderedContent: string, topic: string, q: SearchQuery | undefined): { match_content: string; match_subject: string } {
  const subject = escapeTopic(topic);
  if (!q) return { match_content: renderedContent, match_subject: subject };
  return { match_content: highlightHtml(renderedContent, q), match_subject: highlightHtml(subject, q) };
}
