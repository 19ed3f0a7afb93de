// The markdown-it instance with Zulip's syntax: which CommonMark rules stay, which are replaced,
// and the rules that add Zulip's own syntax.
import { createRequire } from 'node:module';
import type { MarkdownIt as Parser, StateCore, StateInline } from 'markdown-it';
import type { RenderEnv } from './env.js';
import { audioOrLink, previewRule } from './previews.js';
import { backticksRule, delRule, mentionRule, texInlineRule, timeRule, underscoreRule } from './inline.js';
import { bareLinkRule, emptyLinkTextRule, linkifierRule, localLinkRule, textRule } from './links.js';
import { zulipFenceRule } from './fences.js';
import { listParagraphRule, listStartRule, zulipListsRule } from './lists.js';
import { channelLinkRule } from './channel_links.js';
import { emojiNameRule, unicodeEmojiRule } from './emoji.js';
import { emptyBlockquoteRule, singleLineStrongRule, strongOutsideEmRule, trailingSpaceRule } from './fixups.js';
import { codeBlock } from './code.js';

function buildParser(): Parser {
  // Loaded on first use, so an idle server does not carry the parser in memory.
  const MarkdownIt = createRequire(import.meta.url)('markdown-it') as (o: object) => Parser;
  // Bare links are found by Zulip's rules (autolinks.ts), not by linkify-it.
  const md = MarkdownIt({ html: false, breaks: true, linkify: false, typographer: false });
  md.disable(['reference', 'strikethrough', 'autolink']);
  // A linkified URL is shown as typed (markdown-it would percent-decode it).
  md.normalizeLinkText = (text) => text;
  // Text keeps its quotes, as Zulip writes it (only &, < and > need escaping there).
  md.renderer.rules.text = (tokens, idx) => tokens[idx]!.content.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  md.block.ruler.before('fence', 'zulip_fence', zulipFenceRule, { alt: ['paragraph', 'reference', 'blockquote', 'list'] });
  md.inline.ruler.at('text', textRule);
  // A line break keeps the next line's leading spaces, as Zulip's paragraphs do.
  type Rules<R> = { __rules__: Array<{ name: string; fn: R }> };
  const ruleNamed = <R>(ruler: unknown, name: string) => (ruler as Rules<R>).__rules__.find((r) => r.name === name)!.fn;
  const newline = ruleNamed<(state: StateInline, silent: boolean) => boolean>(md.inline.ruler, 'newline');
  md.block.ruler.at('paragraph', listParagraphRule(ruleNamed(md.block.ruler, 'paragraph')));
  md.inline.ruler.at('newline', (state, silent) => {
    const start = state.pos;
    if (!newline(state, silent)) return false;
    state.pos = start + 1;
    return true;
  });
  md.inline.ruler.before('text', 'zulip_bare_link', bareLinkRule);
  md.inline.ruler.at('backticks', backticksRule);
  md.inline.ruler.before('emphasis', 'zulip_mention', mentionRule);
  md.inline.ruler.before('emphasis', 'zulip_channel_link', channelLinkRule);
  md.inline.ruler.before('emphasis', 'zulip_emoji', emojiNameRule);
  md.inline.ruler.before('escape', 'zulip_tex', texInlineRule);
  md.inline.ruler.before('escape', 'zulip_time', timeRule);
  md.inline.ruler.before('emphasis', 'zulip_del', delRule);
  md.inline.ruler.before('emphasis', 'zulip_underscore', underscoreRule);
  md.core.ruler.after('normalize', 'zulip_lists', zulipListsRule);
  md.core.ruler.after('block', 'zulip_list_starts', listStartRule);
  md.core.ruler.push('zulip_linkifiers', linkifierRule);
  md.core.ruler.push('zulip_empty_link_text', emptyLinkTextRule);
  md.core.ruler.push('zulip_strong_em', strongOutsideEmRule);
  md.core.ruler.push('zulip_single_line_strong', singleLineStrongRule);
  md.core.ruler.push('zulip_empty_blockquote', emptyBlockquoteRule);
  md.core.ruler.push('zulip_trailing_space', trailingSpaceRule);
  md.core.ruler.push('zulip_local_links', localLinkRule);
  md.core.ruler.push('zulip_previews', previewRule);
  md.core.ruler.push('zulip_unicode_emoji', unicodeEmojiRule);
  md.renderer.rules.fence = (tokens, idx) => {
    const token = tokens[idx]!;
    const lang = (token.info.trim().split(/\s+/)[0] ?? '').replace(/^\{?\.?|\}$/g, '');
    return codeBlock(token.content.replace(/[ \t]+$/gm, ''), lang);
  };
  md.renderer.rules.code_block = (tokens, idx) => codeBlock(tokens[idx]!.content, '');
  // ![text](url): an audio player for audio files, otherwise a link (images get a preview below).
  md.renderer.rules.image = (tokens, idx, options, env, self) => {
    const token = tokens[idx]!;
    const src = String(token.attrGet('src') ?? '');
    return audioOrLink(env as unknown as RenderEnv, src, self.renderInlineAsText(token.children ?? [], options, env));
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

