// Message rendering: CommonMark through markdown-it with Zulip's conventions (newlines are line
// breaks, raw HTML is escaped, `_` is not emphasis, no reference links, ~~del~~, code blocks in
// Zulip's codehilite markup, ```quote blocks) and Zulip's mention syntax. Every rule here scans
// forward a bounded distance, so rendering stays linear in the input (content is bounded by
// max_message_length). Zulip's full flavor (emoji, TeX, spoilers, previews) is a later extension:
// add rules in buildParser.
import { createRequire } from 'node:module';
import type { MarkdownIt as Parser, StateBlock, StateCore, StateInline, Token } from 'markdown-it';
import type { CompiledPattern } from '../lib/linkifier_patterns.js';
import { expandTemplate } from '../lib/uri_templates.js';

export interface MentionUser {
  id: number;
  full_name: string;
  is_active: boolean;
}

/** A user group that may be mentioned (named, not a system group, not deactivated). */
export interface MentionGroup {
  id: number;
  name: string;
}

export interface LinkifierRule {
  re: CompiledPattern;
  template: string;
}

/** What the renderer may look up: the organization's users and groups (mentions) and linkifiers. */
export interface RenderContext {
  users?: Iterable<MentionUser>;
  groups?: Iterable<MentionGroup>;
  linkifiers?: readonly LinkifierRule[];
}

export type WildcardKind = 'stream' | 'topic' | null;

export interface Rendered {
  html: string;
  /** Users mentioned by name (not silently). */
  mentionedUserIds: Set<number>;
  /** Groups mentioned by name (not silently); their members count as mentioned. */
  mentionedGroupIds: Set<number>;
  /** The strongest wildcard mentioned: a channel wildcard wins over a topic one. */
  wildcard: WildcardKind;
  streamWildcard: boolean;
  topicWildcard: boolean;
}

const STREAM_WILDCARDS = new Set(['all', 'everyone', 'stream', 'channel']);
const TOPIC_WILDCARDS = new Set(['topic']);
/** Longer than any user or group name Zulip allows: a mention scan never goes further. */
const MAX_MENTION_NAME = 200;

interface RenderEnv {
  linkifiers: readonly LinkifierRule[];
  byName: Map<string, MentionUser[]>;
  byId: Map<number, MentionUser>;
  groupsByName: Map<string, MentionGroup>;
  mentioned: Set<number>;
  mentionedGroups: Set<number>;
  streamWildcard: boolean;
  topicWildcard: boolean;
}

function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

const envOf = (state: { env: unknown }) => state.env as RenderEnv;

/** Zulip recognises a mention only at the start or after whitespace or an opening character. */
function mentionMayStartAt(src: string, pos: number): boolean {
  if (pos === 0) return true;
  const c = src[pos - 1]!;
  return /\s/.test(c) || `'"({[/<`.includes(c);
}

/** The `*`-free name between pos and the next `*` on the line, with the index of that `*`. */
function nameUntilStar(src: string, pos: number, max: number): { name: string; end: number } | null {
  const limit = Math.min(max, pos + MAX_MENTION_NAME);
  for (let i = pos; i < limit; i++) {
    const c = src.charCodeAt(i);
    if (c === 0x2a /* * */) return i > pos ? { name: src.slice(pos, i), end: i } : null;
    if (c === 0x0a) return null;
  }
  return null;
}

function pushHtml(state: StateInline, html: string): void {
  const token = state.push('html_inline', '', 0);
  token.content = html;
}

/** @**Name**, @**Name|id**, @**all** (and the silent @_ forms); @*group* and @_*group*. */
function mentionRule(state: StateInline, silent: boolean): boolean {
  const src = state.src;
  const start = state.pos;
  if (src.charCodeAt(start) !== 0x40 /* @ */ || !mentionMayStartAt(src, start)) return false;
  let pos = start + 1;
  const isSilent = src.charCodeAt(pos) === 0x5f; /* _ */
  if (isSilent) pos++;
  if (src.charCodeAt(pos) !== 0x2a) return false;
  const env = envOf(state);
  const prefix = isSilent ? '' : '@';
  const silentClass = isSilent ? ' silent' : '';
  let html: string | null = null;
  let end: number;

  if (src.charCodeAt(pos + 1) === 0x2a) {
    // A user or wildcard mention: **name** with no `*` inside.
    const found = nameUntilStar(src, pos + 2, state.posMax);
    if (!found || found.end + 1 >= state.posMax || src.charCodeAt(found.end + 1) !== 0x2a) return false;
    end = found.end + 2;
    const inner = found.name;
    const bar = inner.lastIndexOf('|');
    const name = bar >= 0 ? inner.slice(0, bar) : inner;
    const idPart = bar >= 0 ? inner.slice(bar + 1) : null;
    if (idPart === null && STREAM_WILDCARDS.has(inner)) {
      html = `<span class="user-mention channel-wildcard-mention${silentClass}" data-user-id="*">${prefix}${inner}</span>`;
      if (!isSilent && !silent) env.streamWildcard = true;
    } else if (idPart === null && TOPIC_WILDCARDS.has(inner)) {
      html = `<span class="topic-mention${silentClass}">${prefix}${inner}</span>`;
      if (!isSilent && !silent) env.topicWildcard = true;
    } else {
      let user: MentionUser | undefined;
      if (idPart !== null && /^\d+$/.test(idPart)) {
        const candidate = env.byId.get(Number(idPart));
        // @**Other Name|id** is not a mention of the user with that id.
        if (candidate && (name === '' || candidate.full_name === name)) user = candidate;
      } else if (idPart === null) {
        const matches = env.byName.get(name.toLowerCase()) ?? [];
        if (matches.length === 1) user = matches[0];
      }
      if (user) {
        html = `<span class="user-mention${silentClass}" data-user-id="${user.id}">${prefix}${escapeHtml(user.full_name)}</span>`;
        if (!isSilent && !silent) env.mentioned.add(user.id);
      }
    }
  } else {
    // A user group mention: *name*.
    const found = nameUntilStar(src, pos + 1, state.posMax);
    if (!found) return false;
    end = found.end + 1;
    const group = env.groupsByName.get(found.name.toLowerCase());
    if (group) {
      html = `<span class="user-group-mention${silentClass}" data-user-group-id="${group.id}">${prefix}${escapeHtml(group.name)}</span>`;
      if (!isSilent && !silent) env.mentionedGroups.add(group.id);
    }
  }
  if (html === null) return false;
  if (!silent) pushHtml(state, html);
  state.pos = end;
  return true;
}

/** Zulip's strikethrough: ~~text~~ on one line, spaces allowed inside, rendered as <del>. */
function delRule(state: StateInline, silent: boolean): boolean {
  const src = state.src;
  const start = state.pos;
  const max = state.posMax;
  if (src.charCodeAt(start) !== 0x7e || src.charCodeAt(start + 1) !== 0x7e) return false;
  if (start > 0 && src.charCodeAt(start - 1) === 0x7e) return false;
  let end = start + 2;
  while (end < max) {
    const c = src.charCodeAt(end);
    if (c === 0x7e || c === 0x0a) break;
    end++;
  }
  if (end === start + 2 || end + 1 >= max || src.charCodeAt(end) !== 0x7e || src.charCodeAt(end + 1) !== 0x7e) return false;
  if (src.charCodeAt(end + 2) === 0x7e) return false;
  if (!silent) {
    state.push('del_open', 'del', 1);
    const oldMax = state.posMax;
    state.pos = start + 2;
    state.posMax = end;
    state.md.inline.tokenize(state);
    state.posMax = oldMax;
    state.push('del_close', 'del', -1);
  }
  state.pos = end + 2;
  return true;
}

/** Zulip never treats `_` as emphasis: a run of underscores is plain text. */
function underscoreRule(state: StateInline, silent: boolean): boolean {
  const src = state.src;
  if (src.charCodeAt(state.pos) !== 0x5f) return false;
  let end = state.pos;
  while (end < state.posMax && src.charCodeAt(end) === 0x5f) end++;
  if (!silent) state.pending += src.slice(state.pos, end);
  state.pos = end;
  return true;
}

/**
 * Inline code as Zulip writes it: a run of n backticks up to the next run of exactly n on the
 * same line, content kept as typed (no space trimming). An opener that finds no closer proves no
 * later run of its length exists on the line, so each length is scanned at most once per line.
 */
function backticksRule(state: StateInline, silent: boolean): boolean {
  const src = state.src;
  const start = state.pos;
  if (src.charCodeAt(start) !== 0x60) return false;
  const max = state.posMax;
  let pos = start + 1;
  while (pos < max && src.charCodeAt(pos) === 0x60) pos++;
  const marker = src.slice(start, pos);
  let lineEnd = src.indexOf('\n', pos);
  if (lineEnd < 0 || lineEnd > max) lineEnd = max;
  let scan = pos;
  while (scan < lineEnd) {
    const open = src.indexOf('`', scan);
    if (open < 0 || open >= lineEnd) break;
    let close = open + 1;
    while (close < lineEnd && src.charCodeAt(close) === 0x60) close++;
    if (close - open === marker.length && open > pos) {
      if (!silent) {
        const token = state.push('code_inline', 'code', 0);
        token.markup = marker;
        token.content = src.slice(pos, open);
      }
      state.pos = close;
      return true;
    }
    scan = close;
  }
  if (!silent) state.pending += marker;
  state.pos = pos;
  return true;
}

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
function linkifierRule(state: StateCore): void {
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

/** Core rule: [](url) and [  ](url) show the URL as their text, as Zulip renders them. */
function emptyLinkTextRule(state: StateCore): void {
  for (const block of state.tokens) {
    const children = block.children;
    if (block.type !== 'inline' || !children) continue;
    for (let i = 0; i < children.length; i++) {
      const open = children[i]!;
      if (open.type !== 'link_open') continue;
      const next = children[i + 1];
      const href = String(open.attrGet('href') ?? '');
      if (next?.type === 'link_close') {
        const text = new state.Token('text', '', 0);
        text.content = href;
        children.splice(i + 1, 0, text);
      } else if (next?.type === 'text' && next.content.trim() === '' && children[i + 2]?.type === 'link_close') {
        next.content = href;
      }
    }
  }
}

/** Core rule: ***x*** nests as <strong><em>, the order Zulip produces. */
function strongOutsideEmRule(state: StateCore): void {
  for (const block of state.tokens) {
    if (block.type !== 'inline' || !block.children) continue;
    // Emphasis leaves empty text tokens between its delimiters; they render as nothing.
    const c = (block.children = block.children.filter((t) => t.type !== 'text' || t.content !== ''));
    for (let i = 0; i + 1 < c.length; i++) {
      if (c[i]!.type !== 'em_open' || c[i + 1]!.type !== 'strong_open') continue;
      // The em_close matching c[i]: nesting counts over every opening and closing token.
      let depth = 0;
      let j = i;
      for (; j < c.length; j++) {
        depth += c[j]!.nesting;
        if (depth === 0) break;
      }
      if (j >= c.length || c[j]!.type !== 'em_close' || c[j - 1]!.type !== 'strong_close') continue;
      [c[i], c[i + 1], c[j - 1], c[j]] = [c[i + 1]!, c[i]!, c[j]!, c[j - 1]!];
    }
  }
}

/**
 * Block rule for ```quote / ~~~ quote fences: their content is Markdown inside a <blockquote>.
 * Fences opened inside (code, or a nested quote) are tracked so that their closing lines do not
 * end the quote.
 */
function quoteFenceRule(state: StateBlock, startLine: number, endLine: number, silent: boolean): boolean {
  const fenceAt = (line: number) => {
    if (state.sCount[line]! - state.blkIndent >= 4) return null;
    const pos = state.bMarks[line]! + state.tShift[line]!;
    const max = state.eMarks[line]!;
    const ch = state.src.charCodeAt(pos);
    if (ch !== 0x7e && ch !== 0x60) return null;
    const after = state.skipChars(pos, ch);
    if (after - pos < 3) return null;
    return { ch, len: after - pos, info: state.src.slice(after, max).trim() };
  };
  const isQuote = (info: string) => /^\{?\.?(quote|quoted)\}?$/i.test(info);
  const opener = fenceAt(startLine);
  if (!opener || !isQuote(opener.info)) return false;
  if (silent) return true;
  const inner: Array<{ ch: number; len: number; quote: boolean }> = [];
  let line = startLine + 1;
  let closed = false;
  for (; line < endLine; line++) {
    if (state.sCount[line]! < state.blkIndent && state.bMarks[line]! + state.tShift[line]! < state.eMarks[line]!) break;
    const f = fenceAt(line);
    if (!f) continue;
    const top = inner[inner.length - 1];
    const closes = (o: { ch: number; len: number }) => f.info === '' && f.ch === o.ch && f.len >= o.len;
    if (top && !top.quote) {
      // Inside a code fence only its own closing line matters.
      if (closes(top)) inner.pop();
    } else if (closes(top ?? opener)) {
      if (!top) {
        closed = true;
        break;
      }
      inner.pop();
    } else {
      inner.push({ ch: f.ch, len: f.len, quote: isQuote(f.info) });
    }
  }
  const oldParent = state.parentType;
  const oldLineMax = state.lineMax;
  state.parentType = 'blockquote';
  const open = state.push('blockquote_open', 'blockquote', 1);
  open.markup = state.src.slice(state.bMarks[startLine]! + state.tShift[startLine]!, state.eMarks[startLine]!);
  open.map = [startLine, line];
  state.lineMax = line;
  state.md.block.tokenize(state, startLine + 1, line);
  state.push('blockquote_close', 'blockquote', -1);
  state.lineMax = oldLineMax;
  state.parentType = oldParent;
  state.line = closed ? line + 1 : line;
  return true;
}

/** Pygments' names for common code-block languages, as Zulip reports them in data-code-language. */
const LANGUAGE_SPEC =
  'Python=python py py3 python3 sage;Python 2.x=python2 py2;JavaScript=javascript js;' +
  'TypeScript=typescript ts;Java=java;C=c;C++=cpp c++;C#=csharp cs c#;Go=go golang;Rust=rust rs;' +
  'Ruby=ruby rb;PHP=php;CSS+PHP=css+php;HTML+PHP=html+php;Bash=bash sh shell zsh ksh;' +
  'Bash Session=console shell-session;JSON=json;HTML=html;CSS=css;SQL=sql;YAML=yaml yml;XML=xml;' +
  'Markdown=markdown md;Diff=diff patch;Kotlin=kotlin kt;Swift=swift;Haskell=haskell hs;Scala=scala;' +
  'Perl=perl pl;Lua=lua;TeX=tex latex;Text only=text txt;Docker=docker dockerfile;INI=ini cfg;' +
  'TOML=toml;Elixir=elixir ex exs;Erlang=erlang;Clojure=clojure clj;OCaml=ocaml;' +
  'PowerShell=powershell ps1 posh;Objective-C=objective-c objc;Dart=dart;GraphQL=graphql;' +
  'Makefile=make makefile';
const LANGUAGE_NAMES = new Map(
  LANGUAGE_SPEC.split(';').flatMap((entry) => {
    const [name, aliases] = entry.split('=') as [string, string];
    return aliases.split(' ').map((alias) => [alias, name] as const);
  }),
);

function codeBlock(code: string, lang: string): string {
  const name = lang ? (LANGUAGE_NAMES.get(lang.toLowerCase()) ?? lang) : '';
  const attr = name ? ` data-code-language="${escapeHtml(name)}"` : '';
  // Like Pygments, drop blank lines at either end and end with one newline.
  const body = code.replace(/^\n+|\n+$/g, '') + '\n';
  return `<div class="codehilite"${attr}><pre><span></span><code>${escapeHtml(body)}</code></pre></div>\n`;
}

function buildParser(): Parser {
  // Loaded on first use, so an idle server does not carry the parser in memory.
  const MarkdownIt = createRequire(import.meta.url)('markdown-it') as (o: object) => Parser;
  const md = MarkdownIt({ html: false, breaks: true, linkify: true, typographer: false });
  // Zulip links bare domains (example.com/path) and URLs with credentials, but not <autolinks>.
  md.linkify.set({ fuzzyLink: true, urlAuth: true } as Record<string, unknown>);
  // Like Zulip, .py and .md name files far more often than sites.
  const linkifyOptions = (md.linkify as unknown as { __opts__: { tlds: string[] } }).__opts__;
  md.linkify.tlds(linkifyOptions.tlds.filter((tld) => tld !== 'py' && tld !== 'md'), false);
  md.disable(['reference', 'strikethrough', 'autolink']);
  // A linkified URL is shown as typed (markdown-it would percent-decode it).
  md.normalizeLinkText = (text) => text;
  // Text keeps its quotes, as Zulip writes it (only &, < and > need escaping there).
  md.renderer.rules.text = (tokens, idx) => tokens[idx]!.content.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  md.block.ruler.before('fence', 'zulip_quote_fence', quoteFenceRule, { alt: ['paragraph', 'reference', 'blockquote', 'list'] });
  md.inline.ruler.at('backticks', backticksRule);
  md.inline.ruler.before('emphasis', 'zulip_mention', mentionRule);
  md.inline.ruler.before('emphasis', 'zulip_del', delRule);
  md.inline.ruler.before('emphasis', 'zulip_underscore', underscoreRule);
  md.core.ruler.push('zulip_linkifiers', linkifierRule);
  md.core.ruler.push('zulip_empty_link_text', emptyLinkTextRule);
  md.core.ruler.push('zulip_strong_em', strongOutsideEmRule);
  md.renderer.rules.fence = (tokens, idx) => {
    const token = tokens[idx]!;
    const lang = (token.info.trim().split(/\s+/)[0] ?? '').replace(/^\{?\.?|\}$/g, '');
    return codeBlock(token.content.replace(/[ \t]+$/gm, ''), lang);
  };
  md.renderer.rules.code_block = (tokens, idx) => codeBlock(tokens[idx]!.content, '');
  // Zulip shows no remote images inline in basic rendering: ![text](url) is a link.
  md.renderer.rules.image = (tokens, idx, options, env, self) => {
    const token = tokens[idx]!;
    const src = String(token.attrGet('src') ?? '');
    const text = self.renderInlineAsText(token.children ?? [], options, env) || src;
    return `<a href="${escapeHtml(src)}">${escapeHtml(text)}</a>`;
  };
  // In a tight list, a nested list follows its item's text directly, as Zulip writes it.
  for (const name of ['bullet_list_open', 'ordered_list_open']) {
    md.renderer.rules[name] = (tokens, idx, options, _env, self) => {
      const out = self.renderToken(tokens, idx, options);
      return idx > 0 && tokens[idx - 1]!.hidden && out.startsWith('\n') ? out.slice(1) : out;
    };
  }
  return md;
}

let parser: Parser | undefined;

function getParser(): Parser {
  parser ??= buildParser();
  return parser;
}

export function renderMarkdown(content: string, ctx: RenderContext = {}): Rendered {
  const byName = new Map<string, MentionUser[]>();
  const byId = new Map<number, MentionUser>();
  const groupsByName = new Map<string, MentionGroup>();
  // Only build the lookups when the content can contain a mention.
  if (content.includes('@')) {
    for (const u of ctx.users ?? []) {
      if (!u.is_active) continue;
      byId.set(u.id, u);
      const key = u.full_name.toLowerCase();
      const list = byName.get(key);
      if (list) list.push(u);
      else byName.set(key, [u]);
    }
    for (const g of ctx.groups ?? []) groupsByName.set(g.name.toLowerCase(), g);
  }
  const env: RenderEnv = {
    linkifiers: ctx.linkifiers ?? [],
    byName,
    byId,
    groupsByName,
    mentioned: new Set(),
    mentionedGroups: new Set(),
    streamWildcard: false,
    topicWildcard: false,
  };
  const html = getParser().render(content, env as unknown as Record<string, unknown>).trim();
  return {
    html,
    mentionedUserIds: env.mentioned,
    mentionedGroupIds: env.mentionedGroups,
    wildcard: env.streamWildcard ? 'stream' : env.topicWildcard ? 'topic' : null,
    streamWildcard: env.streamWildcard,
    topicWildcard: env.topicWildcard,
  };
}

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
