// Links: the organization's linkifiers, Zulip's text for empty link labels, and links into the
// organization itself written relative to it.
import type { StateCore, StateInline, Token } from 'markdown-it';
import { findLinks, type FoundLink } from './autolinks.js';
import { expandTemplate } from '../lib/uri_templates.js';
import { envOf, type LinkifierRule } from './env.js';

/** The earliest linkifier match in a text, by the organization's order when two start together. */
function firstLinkifierMatch(text: string, rules: readonly LinkifierRule[]) {
  let best: { start: number; end: number; url: string } | undefined;
  for (const rule of rules) {
    const m = rule.re.matcher(text);
    if (!m.find()) continue;
    const start = m.start();
    if (best && start >= best.start) continue;
    const vars: Record<string, string> = {};
    for (const name of Object.keys(rule.re.namedGroups())) vars[name] = m.group(name) ?? '';
    const url = expandTemplate(rule.template, vars);
    if (m.end() > start) best = { start, end: m.end(), url };
  }
  return best;
}

/** Core rule: text outside links and code that a linkifier matches becomes a link. */
export function linkifierRule(state: StateCore): void {
  const rules = envOf(state).linkifiers;
  if (!rules || rules.length === 0) return;
  for (const block of state.tokens) {
    if (block.type !== 'inline' || !block.children) continue;
    const out: Token[] = [];
    let linkDepth = 0;
    for (const tok of block.children) {
      if (tok.type === 'link_open') linkDepth++;
      if (tok.type === 'link_close') linkDepth--;
      if (tok.type !== 'text' || linkDepth > 0) {
        out.push(tok);
        continue;
      }
      let rest = tok.content;
      for (let guard = 0; rest && guard < 1000; guard++) {
        const m = firstLinkifierMatch(rest, rules);
        if (!m) break;
        if (m.start > 0) {
          const t = new state.Token('text', '', 0);
          t.content = rest.slice(0, m.start);
          out.push(t);
        }
        const open = new state.Token('link_open', 'a', 1);
        open.attrs = [['href', m.url]];
        const text = new state.Token('text', '', 0);
        text.content = rest.slice(m.start, m.end);
        out.push(open, text, new state.Token('link_close', 'a', -1));
        rest = rest.slice(m.end);
      }
      if (rest) {
        const t = new state.Token('text', '', 0);
        t.content = rest;
        out.push(t);
      }
    }
    block.children = out;
  }
}

/** A URL that is a scheme and nothing else (foo://): Zulip does not link it. */
const BARE_SCHEME = /^[a-z][a-z0-9+.-]*:\/*$/i;

/**
 * Core rule: [](url) and [  ](url) show the URL as their text, as Zulip renders them, unless the
 * URL is a bare scheme, which stays as typed.
 */
export function emptyLinkTextRule(state: StateCore): void {
  for (const block of state.tokens) {
    const children = block.children;
    if (block.type !== 'inline' || !children) continue;
    for (let i = 0; i < children.length; i++) {
      const open = children[i]!;
      if (open.type !== 'link_open' || open.markup === 'linkify') continue;
      const next = children[i + 1];
      const href = String(open.attrGet('href') ?? '');
      const emptyText = next?.type === 'link_close' ? '' : next?.type === 'text' && next.content.trim() === '' && children[i + 2]?.type === 'link_close' ? next.content : null;
      if (emptyText === null) continue;
      if (BARE_SCHEME.test(href)) {
        const text = new state.Token('text', '', 0);
        text.content = `[${emptyText}](${href})`;
        children.splice(i, emptyText ? 3 : 2, text);
        continue;
      }
      if (next?.type === 'link_close') {
        const text = new state.Token('text', '', 0);
        text.content = href;
        children.splice(i + 1, 0, text);
      } else {
        next!.content = href;
      }
    }
  }
}

/**
 * Core rule: links to the organization's own fragments (#narrow/…) and uploaded files
 * (user_uploads/…) are written relative to it, as Zulip writes them.
 */
export function localLinkRule(state: StateCore): void {
  const realm = envOf(state).realmUrl;
  if (!realm) return;
  const prefix = `${realm}/`;
  for (const block of state.tokens) {
    if (block.type !== 'inline' || !block.children) continue;
    for (const tok of block.children) {
      if (tok.type !== 'link_open') continue;
      const href = String(tok.attrGet('href') ?? '');
      if (href.startsWith(`${prefix}#`) || href.startsWith(`${prefix}user_uploads/`)) tok.attrSet('href', href.slice(prefix.length));
    }
  }
}

/** The bare links of an inline run of text, found once per parse of it. */
const linksBySource = new WeakMap<StateInline, { src: string; at: Map<number, FoundLink>; starts: number[] }>();

function bareLinks(state: StateInline) {
  let known = linksBySource.get(state);
  if (!known || known.src !== state.src) {
    const found = findLinks(state.src);
    known = { src: state.src, at: new Map(found.map((l) => [l.start, l])), starts: found.map((l) => l.start) };
    linksBySource.set(state, known);
  }
  return known;
}

/**
 * Inline rule, first of all: a bare link (see autolinks.ts) becomes a link where it starts, before
 * emphasis or any other syntax can claim part of it, as Zulip's link pattern runs before those.
 * Where it may start and end is decided on the raw text, as Zulip decides it.
 */
export function bareLinkRule(state: StateInline, silent: boolean): boolean {
  if (state.linkLevel > 0) return false;
  const link = bareLinks(state).at.get(state.pos);
  if (!link || link.end > state.posMax) return false;
  // The address as typed, as Zulip writes it (no percent-encoding, no punycode).
  const href = link.href;
  if (!state.md.validateLink(href)) return false;
  if (!silent) {
    const open = state.push('link_open', 'a', 1);
    open.attrs = [['href', href]];
    open.markup = 'linkify';
    open.info = 'auto';
    state.push('text', '', 0).content = link.text;
    const close = state.push('link_close', 'a', -1);
    close.markup = 'linkify';
    close.info = 'auto';
  }
  state.pos = link.end;
  return true;
}

/** markdown-it's characters that may start inline syntax, where plain text must stop. */
function isTerminator(c: number): boolean {
  switch (c) {
    case 0x0a: case 0x21: case 0x23: case 0x24: case 0x25: case 0x26: case 0x2a: case 0x2b: case 0x2d: case 0x3a:
    case 0x3c: case 0x3d: case 0x40: case 0x5b: case 0x5c: case 0x5d: case 0x5e: case 0x5f: case 0x60: case 0x7b:
    case 0x7d: case 0x7e:
      return true;
    default:
      return false;
  }
}

/** markdown-it's plain-text rule, which also stops where a bare link starts. */
export function textRule(state: StateInline, silent: boolean): boolean {
  const start = state.pos;
  const starts = bareLinks(state).starts;
  // The first link start after this position (binary search: starts are in order).
  let lo = 0;
  let hi = starts.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (starts[mid]! <= start) lo = mid + 1;
    else hi = mid;
  }
  const stop = Math.min(state.posMax, starts[lo] ?? state.posMax);
  let pos = start;
  while (pos < stop && !isTerminator(state.src.charCodeAt(pos))) pos++;
  if (pos === start) return false;
  if (!silent) state.pending += state.src.slice(start, pos);
  state.pos = pos;
  return true;
}
