// The markdown-it instance with Zulip's syntax: which CommonMark rules stay, which are replaced,
// and the rules that add Zulip's own syntax.
import { createRequire } from 'node:module';
import type { MarkdownIt as Parser, StateCore } from 'markdown-it';
import { escapeHtml } from './env.js';
import { backticksRule, delRule, mentionRule, underscoreRule } from './inline.js';
import { emptyLinkTextRule, linkifierRule } from './links.js';
import { quoteFenceRule } from './fences.js';
import { codeBlock } from './code.js';

/** Core rule: ***x*** nests as <strong><em>, the order Zulip produces. */
export function strongOutsideEmRule(state: StateCore): void {
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

export function getParser(): Parser {
  parser ??= buildParser();
  return parser;
}

