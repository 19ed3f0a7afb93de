// Bare links found as Zulip finds them (its "web link" pattern), without a backtracking regex:
// a link starts at the start of the text, after whitespace, after one of ' " ( , : < or after any
// non-ASCII character; it is an http(s):// URL (or one of the desktop-app schemes Zulip links),
// a name under a known top-level domain (with an optional /path or ?query whose parentheses
// balance, at most 7 deep, and that has no '"'), an e-mail address or a bitcoin: address; and it
// must be followed by nothing but !:;?),.'"> before whitespace or the end of the text.
//
// Zulip's regex answers, for each start, with the first candidate its lazy and greedy parts reach.
// Every candidate ends inside the start's "word" (the run up to the next whitespace), and a valid
// end is a position from which only those punctuation characters remain. The functions below
// compute that first candidate directly, with per-word tables (label runs, parenthesis depths),
// so finding every link in a text takes time linear in its length, whatever the input.
import { createRequire } from 'node:module';

export interface FoundLink {
  start: number;
  end: number;
  /** The link as typed. */
  text: string;
  /** Where it points, as Zulip writes it: http:// before a bare domain, mailto: before an address. */
  href: string;
  /** Whether the text began with a scheme (http://…, zotero://…, bitcoin:…). */
  hasScheme: boolean;
}

/** Schemes that are linked when typed bare; the desktop-app ones get Zulip's http:// prefix. */
const WEB_SCHEMES = ['https://', 'http://'];
const APP_SCHEMES = ['zotero://', 'hansoft://', 'asanadesktop://', 'obsidian://'];
/** Zulip leaves out top-level domains that are mostly file extensions. */
const FILE_EXTENSION_TLDS = new Set(['java', 'md', 'mov', 'py', 'zip']);
const MAX_PAREN_DEPTH = 7;
const BASE58 = /^[a-km-zA-HJ-NP-Z1-9]$/;
const WORD_CHAR = /^[\p{L}\p{N}_]$/u;
const SPACE_CHAR = /^\s$/u;

let tldSet: Set<string> | undefined;
let maxTldLength = 0;

/** IANA's top-level domains (the `tlds` package), loaded on first use. */
function tlds(): Set<string> {
  if (!tldSet) {
    const list = createRequire(import.meta.url)('tlds') as string[];
    tldSet = new Set(list.filter((t) => !FILE_EXTENSION_TLDS.has(t)));
    for (const t of tldSet) maxTldLength = Math.max(maxTldLength, t.length);
  }
  return tldSet;
}

function isSpace(c: number): boolean {
  if (c < 128) return c === 32 || (c >= 9 && c <= 13) || (c >= 0x1c && c <= 0x1f);
  return c === 0x85 || (c !== 0xfeff && SPACE_CHAR.test(String.fromCharCode(c)));
}

/** Python's \w: letters, digits and underscore, in any script. */
function isWord(c: number): boolean {
  if (c < 128) return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
  return WORD_CHAR.test(String.fromCharCode(c));
}

/** What may follow a link before whitespace or the end: ! : ; ? ) , . ' " > */
function isTrailing(c: number): boolean {
  return c === 33 || c === 58 || c === 59 || c === 63 || c === 41 || c === 44 || c === 46 || c === 39 || c === 34 || c === 62;
}

/** What may come right before a link: whitespace, ' " ( , : < or any non-ASCII character. */
function mayPrecede(c: number): boolean {
  return c >= 0x80 || isSpace(c) || c === 39 || c === 34 || c === 40 || c === 44 || c === 58 || c === 60;
}

const isLabelChar = (c: number) => isWord(c) || c === 45; // [\w-]
const isHostChar = (c: number) => isWord(c) || c === 46 || c === 58 || c === 64 || c === 45; // [\w.:@-]
const isEmailChar = (c: number) => isWord(c) || c === 46 || c === 45; // [\w.-]

/** One whitespace-free run of the text, with the tables its candidates are checked against. */
class Word {
  /** The first valid end: only trailing punctuation lies between it and the word's end. */
  readonly minEnd: number;
  private labelEnds?: Int32Array;
  private emailEnds?: Int32Array;
  private parens?: { depth: Int32Array; lower: Int32Array; upper: Int32Array; quote: Int32Array; closes: number[]; closesBefore: Int32Array };
  readonly domainBest = new Map<number, number>();
  readonly emailEnd = new Map<number, number>();

  constructor(
    readonly text: string,
    readonly start: number,
    readonly end: number,
  ) {
    let e = end;
    while (e > start && isTrailing(text.charCodeAt(e - 1))) e--;
    this.minEnd = e;
  }

  private runEnds(test: (c: number) => boolean): Int32Array {
    const n = this.end - this.start;
    const out = new Int32Array(n + 1);
    out[n] = this.end;
    for (let i = n - 1; i >= 0; i--) out[i] = test(this.text.charCodeAt(this.start + i)) ? out[i + 1]! : this.start + i;
    return out;
  }

  /** Where the run of [\w-] starting at i ends. */
  labelEnd(i: number): number {
    this.labelEnds ??= this.runEnds(isLabelChar);
    return this.labelEnds[i - this.start]!;
  }

  /** Where the run of [\w.-] starting at i ends. */
  emailRunEnd(i: number): number {
    this.emailEnds ??= this.runEnds(isEmailChar);
    return this.emailEnds[i - this.start]!;
  }

  /**
   * The end of a path or query whose characters start at b: the first valid end, no sooner than
   * atLeast, such that the path has balanced parentheses (never below zero, at most 7 deep) and
   * no '"'; -1 when there is none.
   */
  pathEnd(b: number, atLeast: number): number {
    const t = (this.parens ??= this.parenTables());
    const from = Math.max(atLeast, this.minEnd);
    if (from > this.end) return -1;
    const i = b - this.start;
    const limit = Math.min(t.lower[i]! - 1, t.upper[i]! - 1, t.quote[i]!);
    if (from > limit) return -1;
    const drop = t.depth[from - this.start]! - t.depth[i]!;
    if (drop < 0) return -1;
    if (drop === 0) return from;
    // From minEnd on there are only trailing characters (no '('): the depth falls at each ')'.
    const close = t.closes[t.closesBefore[from - this.start]! + drop - 1];
    if (close === undefined || close + 1 > limit) return -1;
    return close + 1;
  }

  private parenTables() {
    const n = this.end - this.start;
    const depth = new Int32Array(n + 1);
    for (let i = 0; i < n; i++) {
      const c = this.text.charCodeAt(this.start + i);
      depth[i + 1] = depth[i]! + (c === 40 ? 1 : c === 41 ? -1 : 0);
    }
    // For each position, the first later position whose depth is one lower / 8 higher.
    const never = this.end + 2;
    const lower = new Int32Array(n + 1);
    const upper = new Int32Array(n + 1);
    const quote = new Int32Array(n + 1);
    const lastAt = new Map<number, number>();
    let nextQuote = this.end;
    for (let i = n; i >= 0; i--) {
      lower[i] = lastAt.get(depth[i]! - 1) ?? never;
      upper[i] = lastAt.get(depth[i]! + MAX_PAREN_DEPTH + 1) ?? never;
      lastAt.set(depth[i]!, this.start + i);
      if (i < n && this.text.charCodeAt(this.start + i) === 34) nextQuote = this.start + i;
      quote[i] = nextQuote;
    }
    const closes: number[] = [];
    const closesBefore = new Int32Array(n + 1);
    for (let i = this.minEnd - this.start; i <= n; i++) {
      closesBefore[i] = closes.length;
      if (i < n && this.text.charCodeAt(this.start + i) === 41) closes.push(this.start + i);
    }
    return { depth, lower, upper, quote, closes, closesBefore };
  }

  /** The end of a path (/…) or query (?…) that may follow position p, else of nothing: -1 if neither fits. */
  endAfterHost(p: number): number {
    const c = this.text.charCodeAt(p);
    if (p < this.end && c === 47) {
      const e = this.pathEnd(p + 1, p + 1);
      if (e >= 0) return e;
    } else if (p + 1 < this.end && c === 63 && !isTrailing(this.text.charCodeAt(p + 1))) {
      // A query right after the host (Zulip since 2025) needs some content: "site.com?" ends at "m".
      const e = this.pathEnd(p + 1, p + 2);
      if (e >= 0) return e;
    }
    return p >= this.minEnd ? p : -1;
  }
}

/** scheme://host[path]: the host is lazy, so the link ends at the first place it can. */
function schemeLink(w: Word, s: number, schemeLength: number): number {
  const h = s + schemeLength;
  let r = h;
  while (r < w.end && isHostChar(w.text.charCodeAt(r))) r++;
  if (r === h) return -1;
  const firstEnd = Math.max(h + 1, w.minEnd);
  if (firstEnd < r) return firstEnd;
  return w.endAfterHost(r);
}

/** At q (just after a dot), the longest top-level domain that ends a link there, or -1. */
function tldLink(w: Word, q: number): number {
  const set = tlds();
  const run = w.labelEnd(q) - q;
  for (let len = Math.min(run, maxTldLength); len >= 2; len--) {
    if (!set.has(w.text.slice(q, q + len))) continue;
    const e = w.endAfterHost(q + len);
    if (e >= 0) return e;
  }
  return -1;
}

/** label.label.tld[path] from s: the most labels first, as the greedy regex tries them. */
function domainLink(w: Word, s: number): number {
  const first = w.labelEnd(s);
  if (first === s || first >= w.end || w.text.charCodeAt(first) !== 46) return -1;
  // The chain of positions after each dot, evaluated from its far end, memoized per word.
  const chain: number[] = [];
  let q = first + 1;
  for (;;) {
    if (w.domainBest.has(q)) break;
    chain.push(q);
    const next = w.labelEnd(q);
    if (next === q || next >= w.end || w.text.charCodeAt(next) !== 46) break;
    q = next + 1;
  }
  let best = w.domainBest.get(q) ?? -1;
  for (let j = chain.length - 1; j >= 0; j--) {
    if (best < 0) best = tldLink(w, chain[j]!);
    w.domainBest.set(chain[j]!, best);
  }
  return w.domainBest.get(first + 1)!;
}

/** local@domain.tld: an address cannot be followed by a path. */
function emailLink(w: Word, s: number): number {
  const at = w.emailRunEnd(s);
  if (at === s || at >= w.end || w.text.charCodeAt(at) !== 64) return -1;
  const known = w.emailEnd.get(at);
  if (known !== undefined) return known;
  let result = -1;
  const e = w.minEnd;
  if (e > at + 1 && w.emailRunEnd(at + 1) >= e) {
    let d = e;
    while (d > at + 1 && isWord(w.text.charCodeAt(d - 1))) d--;
    if (d < e && d > at + 2 && w.text.charCodeAt(d - 1) === 46) result = e;
  }
  w.emailEnd.set(at, result);
  return result;
}

function bitcoinLink(w: Word, s: number): number {
  if (!w.text.startsWith('bitcoin:', s)) return -1;
  const a = s + 8;
  const c = w.text[a];
  if (c !== '1' && c !== '3') return -1;
  const e = w.minEnd;
  const length = e - (a + 1);
  if (length < 25 || length > 34) return -1;
  for (let i = a + 1; i < e; i++) if (!BASE58.test(w.text[i]!)) return -1;
  return e;
}

/** The link starting at s, if one does. */
function linkAt(w: Word, s: number): FoundLink | null {
  const text = w.text;
  const c = text.charCodeAt(s);
  let end = -1;
  let kind: 'web' | 'app' | 'domain' | 'email' | 'bitcoin' = 'web';
  if (c === 104 || c === 122 || c === 97 || c === 111) {
    const scheme = WEB_SCHEMES.find((p) => text.startsWith(p, s)) ?? APP_SCHEMES.find((p) => text.startsWith(p, s));
    if (scheme) {
      end = schemeLink(w, s, scheme.length);
      kind = WEB_SCHEMES.includes(scheme) ? 'web' : 'app';
    }
  }
  if (end < 0 && isLabelChar(c)) {
    end = domainLink(w, s);
    kind = 'domain';
  }
  if (end < 0 && isEmailChar(c)) {
    end = emailLink(w, s);
    kind = 'email';
  }
  if (end < 0 && c === 98) {
    end = bitcoinLink(w, s);
    kind = 'bitcoin';
  }
  if (end <= s) return null;
  const url = text.slice(s, end);
  const href = kind === 'email' ? `mailto:${url}` : kind === 'domain' || kind === 'app' ? `http://${url}` : url;
  return { start: s, end, text: url, href, hasScheme: kind === 'web' || kind === 'app' || kind === 'bitcoin' };
}

/**
 * Every bare link in a text, left to right. The text's start and end count as the start and
 * end of a string (a link may begin and end there).
 */
export function findLinks(text: string): FoundLink[] {
  const found: FoundLink[] = [];
  const n = text.length;
  let i = 0;
  while (i < n) {
    while (i < n && isSpace(text.charCodeAt(i))) i++;
    const start = i;
    let candidate = false;
    while (i < n && !isSpace(text.charCodeAt(i))) {
      const c = text.charCodeAt(i);
      if (c === 46 || c === 58) candidate = true;
      i++;
    }
    if (!candidate) continue;
    const w = new Word(text, start, i);
    for (let s = start; s < w.end; s++) {
      if (s > start && !mayPrecede(text.charCodeAt(s - 1))) continue;
      const link = linkAt(w, s);
      if (link) {
        found.push(link);
        // What follows a link up to the word's end is punctuation: no second link fits.
        break;
      }
    }
  }
  return found;
}
