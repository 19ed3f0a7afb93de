// Emoji as Zulip marks them up: :name: for Zulip's Unicode emoji names, the organization's custom
// emoji and the zulip extra emoji; Unicode emoji typed as characters; and, for senders who turned
// on translate_emoticons, emoticons such as :) and <3.
import type { StateCore, StateInline, Token } from 'markdown-it';
import { canonicalNameForCode, unicodeEmojiByName, ZULIP_EXTRA_EMOJI } from '../lib/emoji.js';
import { envOf, escapeHtml, type RenderEnv } from './env.js';

/** Zulip's emoticon translations (the setting's help page lists the same). */
const EMOTICONS: ReadonlyMap<string, string> = new Map([
  [':)', 'slight_smile'],
  ['(:', 'slight_smile'],
  [':(', 'frown'],
  ['<3', 'heart'],
  [':|', 'neutral'],
  [':/', 'confused'],
  [';)', 'wink'],
  [':D', 'smile'],
  [':o', 'open_mouth'],
  [':O', 'open_mouth'],
  [':p', 'stuck_out_tongue'],
  [':P', 'stuck_out_tongue'],
]);
/** An emoticon counts only between these (or the start or end of the text). */
const TERMINAL = ',.;?!()[] "\'\n\t';
const EMOTICON_RE = /:\)|\(:|:\(|<3|:\||:\/|;\)|:D|:o|:O|:p|:P/g;

/** One emoji as a character or a sequence (flags, keycaps, modifiers, ZWJ joins). */
const UNICODE_EMOJI_RE =
  /\p{Regional_Indicator}\p{Regional_Indicator}|[#*0-9]\uFE0F?\u20E3|\p{Extended_Pictographic}(?:\uFE0F|\p{Emoji_Modifier})?(?:\u200D\p{Extended_Pictographic}(?:\uFE0F|\p{Emoji_Modifier})?)*/gu;

const ZULIP_EMOJI_URL = '/static/generated/emoji/images/emoji/unicode/zulip.png';

export interface RealmEmojiForRender {
  name: string;
  source_url: string;
}

function unicodeSpan(code: string, name: string): string {
  const label = escapeHtml(name.replace(/_/g, ' '));
  return `<span aria-label="${label}" class="emoji emoji-${code}" role="img" title="${label}">:${escapeHtml(name)}:</span>`;
}

function imageEmoji(name: string, url: string): string {
  return `<img alt=":${escapeHtml(name)}:" class="emoji" src="${escapeHtml(url)}" title="${escapeHtml(name.replace(/_/g, ' '))}">`;
}

/** The markup for :name:, or null when no emoji has that name. */
export function emojiByName(env: RenderEnv, name: string): string | null {
  const custom = env.realmEmoji.get(name);
  if (custom) return imageEmoji(name, custom.source_url);
  if (name === ZULIP_EXTRA_EMOJI.name) return imageEmoji(name, ZULIP_EMOJI_URL);
  const unicode = unicodeEmojiByName(name);
  return unicode ? unicodeSpan(unicode.code, name) : null;
}

/** Inline rule for :name: (letters, digits, _, - and +). */
export function emojiNameRule(state: StateInline, silent: boolean): boolean {
  const src = state.src;
  const start = state.pos;
  if (src.charCodeAt(start) !== 0x3a) return false;
  let end = start + 1;
  // Zulip's longest emoji names are well under 100 characters.
  const limit = Math.min(state.posMax, start + 100);
  while (end < limit && /[\w+-]/.test(src[end]!)) end++;
  if (end === start + 1 || src.charCodeAt(end) !== 0x3a) return false;
  const html = emojiByName(envOf(state), src.slice(start + 1, end));
  if (html === null) return false;
  if (!silent) {
    const token = state.push('html_inline', '', 0);
    token.content = html;
  }
  state.pos = end + 1;
  return true;
}

/** Zulip's emoji_code for a typed emoji: code points in hex (at least four digits), no VS16. */
function codeOf(emoji: string): string {
  const points: string[] = [];
  for (const ch of emoji) {
    const cp = ch.codePointAt(0)!;
    if (cp !== 0xfe0f) points.push(cp.toString(16).padStart(4, '0'));
  }
  return points.join('-');
}

function emoticonAt(text: string, index: number, length: number): boolean {
  const before = index === 0 || TERMINAL.includes(text[index - 1]!);
  const after = index + length >= text.length || TERMINAL.includes(text[index + length]!);
  return before && after;
}

/** Splits one text token's content into text and emoji HTML tokens. */
function splitText(state: StateCore, env: RenderEnv, content: string): Token[] | null {
  const found: Array<{ start: number; end: number; html: string }> = [];
  // Every emoji has a code point past ASCII: plain ASCII text skips the Unicode-property scan.
  const ascii = /^[\x00-\x7f]*$/.test(content);
  for (const m of ascii ? [] : content.matchAll(UNICODE_EMOJI_RE)) {
    const code = codeOf(m[0]);
    const name = canonicalNameForCode(code);
    if (name) found.push({ start: m.index, end: m.index + m[0].length, html: unicodeSpan(code, name) });
  }
  if (env.translateEmoticons) {
    for (const m of content.matchAll(EMOTICON_RE)) {
      if (!emoticonAt(content, m.index, m[0].length)) continue;
      const html = emojiByName(env, EMOTICONS.get(m[0])!);
      if (html) found.push({ start: m.index, end: m.index + m[0].length, html });
    }
    found.sort((a, b) => a.start - b.start);
  }
  if (found.length === 0) return null;
  const out: Token[] = [];
  let pos = 0;
  for (const f of found) {
    if (f.start < pos) continue;
    if (f.start > pos) {
      const t = new state.Token('text', '', 0);
      t.content = content.slice(pos, f.start);
      out.push(t);
    }
    const h = new state.Token('html_inline', '', 0);
    h.content = f.html;
    out.push(h);
    pos = f.end;
  }
  if (pos < content.length) {
    const t = new state.Token('text', '', 0);
    t.content = content.slice(pos);
    out.push(t);
  }
  return out;
}

/** Core rule: Unicode emoji and emoticons in text (not in code or link URLs) become emoji markup. */
export function unicodeEmojiRule(state: StateCore): void {
  const env = envOf(state);
  for (const block of state.tokens) {
    if (block.type !== 'inline' || !block.children) continue;
    const out: Token[] = [];
    let changed = false;
    for (const tok of block.children) {
      const parts = tok.type === 'text' ? splitText(state, env, tok.content) : null;
      if (parts) {
        out.push(...parts);
        changed = true;
      } else {
        out.push(tok);
      }
    }
    if (changed) block.children = out;
  }
}
