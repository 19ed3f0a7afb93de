// Message rendering: CommonMark through markdown-it with Zulip's conventions (newlines are line
// breaks, raw HTML is escaped, code blocks in Zulip's codehilite markup) and Zulip's mention
// syntax. markdown-it runs in time linear in the input; content is bounded by max_message_length.
import { createRequire } from 'node:module';
import type { MarkdownIt as Parser, StateCore, StateInline, Token } from 'markdown-it';
import type { CompiledPattern } from '../lib/linkifier_patterns.js';
import { expandTemplate } from '../lib/uri_templates.js';

export interface MentionUser {
  id: number;
  full_name: string;
  is_active: boolean;
}

export interface LinkifierRule {
  re: CompiledPattern;
  template: string;
}

/** What the renderer may look up: the organization's users (mentions) and linkifiers. */
export interface RenderContext {
  users?: Iterable<MentionUser>;
  linkifiers?: readonly LinkifierRule[];
}

export type WildcardKind = 'stream' | 'topic' | null;

export interface Rendered {
  html: string;
  mentionedUserIds: Set<number>;
  wildcard: WildcardKind;
}

const STREAM_WILDCARDS = new Set(['all', 'everyone', 'stream', 'channel']);
const TOPIC_WILDCARDS = new Set(['topic']);

interface MentionEnv {
  linkifiers: readonly LinkifierRule[];
  byName: Map<string, MentionUser[]>;
  byId: Map<number, MentionUser>;
  mentioned: Set<number>;
  wildcard: WildcardKind;
}

function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Inline rule for @**Name**, @**Name|id** and the silent @_**Name** forms. */
function mentionRule(state: StateInline, silent: boolean): boolean {
  const src = state.src;
  let pos = state.pos;
  if (src.charCodeAt(pos) !== 0x40 /* @ */) return false;
  pos++;
  const isSilent = src.charCodeAt(pos) === 0x5f; /* _ */
  if (isSilent) pos++;
  if (!src.startsWith('**', pos)) return false;
  const end = src.indexOf('**', pos + 2);
  if (end < 0) return false;
  const inner = src.slice(pos + 2, end);
  if (!inner || inner.includes('\n') || inner.length > 200) return false;
  const env = state.env as unknown as MentionEnv;
  let html: string | null = null;
  const bar = inner.lastIndexOf('|');
  const name = bar >= 0 ? inner.slice(0, bar) : inner;
  const idPart = bar >= 0 ? inner.slice(bar + 1) : null;
  if (idPart === null && (STREAM_WILDCARDS.has(inner) || TOPIC_WILDCARDS.has(inner))) {
    const topic = TOPIC_WILDCARDS.has(inner);
    if (topic) html = `<span class="topic-mention${isSilent ? ' silent' : ''}">${isSilent ? '' : '@'}${inner}</span>`;
    else html = `<span class="user-mention channel-wildcard-mention${isSilent ? ' silent' : ''}" data-user-id="*">${isSilent ? '' : '@'}${inner}</span>`;
    if (!isSilent && !silent) env.wildcard = topic ? (env.wildcard ?? 'topic') : 'stream';
  } else {
    let user: MentionUser | undefined;
    if (idPart !== null && /^\d+$/.test(idPart)) {
      const candidate = env.byId.get(Number(idPart));
      if (candidate && (name === '' || candidate.full_name === name)) user = candidate;
    } else if (idPart === null) {
      const matches = env.byName.get(name.toLowerCase()) ?? [];
      if (matches.length === 1) user = matches[0];
    }
    if (user) {
      const cls = isSilent ? 'user-mention silent' : 'user-mention';
      html = `<span class="${cls}" data-user-id="${user.id}">${isSilent ? '' : '@'}${escapeHtml(user.full_name)}</span>`;
      if (!isSilent && !silent) env.mentioned.add(user.id);
    }
  }
  if (html === null) return false;
  if (!silent) {
    const token = state.push('html_inline', '', 0);
    token.content = html;
  }
  state.pos = end + 2;
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
  const rules = (state.env as unknown as MentionEnv).linkifiers;
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

function buildParser(): Parser {
  // Loaded on first use, so an idle server does not carry the parser in memory.
  const MarkdownIt = createRequire(import.meta.url)('markdown-it') as (o: object) => Parser;
  const md = MarkdownIt({ html: false, breaks: true, linkify: true, typographer: false });
  md.inline.ruler.before('emphasis', 'zulip_mention', mentionRule);
  md.core.ruler.push('zulip_linkifiers', linkifierRule);
  // Zulip's code block markup, with the language (if any) as a data attribute.
  md.renderer.rules.fence = (tokens, idx) => {
    const token = tokens[idx]!;
    const lang = token.info.trim().split(/\s+/)[0] ?? '';
    const attr = lang ? ` data-code-language="${escapeHtml(lang)}"` : '';
    const code = token.content.replace(/[ \t]+$/gm, '');
    return `<div class="codehilite"${attr}><pre><span></span><code>${escapeHtml(code)}</code></pre></div>\n`;
  };
  md.renderer.rules.code_block = (tokens, idx) =>
    `<div class="codehilite"><pre><span></span><code>${escapeHtml(tokens[idx]!.content)}</code></pre></div>\n`;
  // Links to other sites open in a new tab, as Zulip renders them.
  const defaultLinkOpen = md.renderer.rules.link_open ?? ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));
  md.renderer.rules.link_open = (tokens, idx, options, env, self) => defaultLinkOpen(tokens, idx, options, env, self);
  return md;
}

let parser: Parser | undefined;

export function renderMarkdown(content: string, ctx: RenderContext = {}): Rendered {
  const byName = new Map<string, MentionUser[]>();
  const byId = new Map<number, MentionUser>();
  // Only build the lookup when the content can contain a mention.
  if (ctx.users && content.includes('@')) {
    for (const u of ctx.users) {
      if (!u.is_active) continue;
      byId.set(u.id, u);
      const key = u.full_name.toLowerCase();
      const list = byName.get(key);
      if (list) list.push(u);
      else byName.set(key, [u]);
    }
  }
  const env: MentionEnv = { linkifiers: ctx.linkifiers ?? [], byName, byId, mentioned: new Set(), wildcard: null };
  parser ??= buildParser();
  const html = parser.render(content, env as unknown as Record<string, unknown>).trim();
  return { html, mentionedUserIds: env.mentioned, wildcard: env.wildcard };
}
