// Zulip's fenced blocks beyond code: ```quote (Markdown inside a blockquote), ```spoiler (a
// header and hidden Markdown content) and ```math (display TeX). Each scans its lines once.
import type { StateBlock, Token } from 'markdown-it';
import { renderTex, texError } from './tex.js';

interface Fence {
  ch: number;
  len: number;
  info: string;
}

/** The fence opening or closing on a line, if any (``` or ~~~, at most three spaces in). */
function fenceAt(state: StateBlock, line: number): Fence | null {
  if (state.sCount[line]! - state.blkIndent >= 4) return null;
  const pos = state.bMarks[line]! + state.tShift[line]!;
  const max = state.eMarks[line]!;
  const ch = state.src.charCodeAt(pos);
  if (ch !== 0x7e && ch !== 0x60) return null;
  const after = state.skipChars(pos, ch);
  if (after - pos < 3) return null;
  return { ch, len: after - pos, info: state.src.slice(after, max).trim() };
}

/** The first word of a fence's info string, without Pandoc's {.lang} decoration. */
export function fenceLanguage(info: string): string {
  return (info.split(/\s+/)[0] ?? '').replace(/^\{?\.?|\}$/g, '').toLowerCase();
}

const CONTAINERS = new Set(['quote', 'quoted', 'spoiler']);

/**
 * The line that closes the fence opened on startLine, and whether it was found (an unclosed fence
 * runs to the end of its container). Fences opened inside are tracked, so that a code fence's
 * closing line inside a quote does not end the quote.
 */
function findClose(state: StateBlock, startLine: number, endLine: number, opener: Fence): { line: number; closed: boolean } {
  const inner: Array<{ ch: number; len: number; container: boolean }> = [];
  for (let line = startLine + 1; line < endLine; line++) {
    if (state.sCount[line]! < state.blkIndent && state.bMarks[line]! + state.tShift[line]! < state.eMarks[line]!) return { line, closed: false };
    const f = fenceAt(state, line);
    if (!f) continue;
    const top = inner[inner.length - 1];
    const closes = (o: { ch: number; len: number }) => f.info === '' && f.ch === o.ch && f.len >= o.len;
    if (top && !top.container) {
      // Inside a code fence only its own closing line matters.
      if (closes(top)) inner.pop();
    } else if (closes(top ?? opener)) {
      if (!top) return { line, closed: true };
      inner.pop();
    } else {
      inner.push({ ch: f.ch, len: f.len, container: CONTAINERS.has(fenceLanguage(f.info)) });
    }
  }
  return { line: endLine, closed: false };
}

/** Parses lines [from, to) as Markdown blocks inside the current container. */
function tokenizeInside(state: StateBlock, from: number, to: number, parentType: string): void {
  const oldParent = state.parentType;
  const oldLineMax = state.lineMax;
  state.parentType = parentType as StateBlock['parentType'];
  state.lineMax = to;
  state.md.block.tokenize(state, from, to);
  state.lineMax = oldLineMax;
  state.parentType = oldParent;
}

function pushHtmlBlock(state: StateBlock, html: string, marker?: string): Token {
  const token = state.push('html_block', '', 0);
  token.content = html;
  token.meta = marker ? { marker } : null;
  return token;
}

/** Markers on the spoiler's HTML tokens: image previews of links inside go to the content's end. */
export const SPOILER_CONTENT_OPEN = 'spoiler_content_open';
export const SPOILER_CONTENT_CLOSE = 'spoiler_content_close';

/** Block rule for ```quote, ```spoiler and ```math fences (``` or ~~~). */
export function zulipFenceRule(state: StateBlock, startLine: number, endLine: number, silent: boolean): boolean {
  const opener = fenceAt(state, startLine);
  if (!opener) return false;
  const kind = fenceLanguage(opener.info);
  if (!CONTAINERS.has(kind) && kind !== 'math') return false;
  // A backtick fence's info string may not contain backticks (CommonMark): then it is no fence.
  if (opener.ch === 0x60 && opener.info.includes('`')) return false;
  if (silent) return true;
  const { line, closed } = findClose(state, startLine, endLine, opener);
  const next = closed ? line + 1 : line;

  if (kind === 'math') {
    const tex = state.getLines(startLine + 1, line, state.sCount[startLine]!, false).replace(/\n+$/, '');
    const html = renderTex(tex, true);
    pushHtmlBlock(state, `<p>${html ?? texError(tex, true)}</p>\n`);
  } else if (kind === 'spoiler') {
    const header = opener.info.slice(opener.info.search(/spoiler/i) + 'spoiler'.length).trim();
    pushHtmlBlock(state, '<div class="spoiler-block"><div class="spoiler-header">\n');
    if (header) {
      state.push('paragraph_open', 'p', 1).map = [startLine, startLine + 1];
      const inline = state.push('inline', '', 0);
      inline.content = header;
      inline.map = [startLine, startLine + 1];
      inline.children = [];
      state.push('paragraph_close', 'p', -1);
    }
    pushHtmlBlock(state, '</div><div class="spoiler-content" aria-hidden="true">\n', SPOILER_CONTENT_OPEN);
    tokenizeInside(state, startLine + 1, line, 'blockquote');
    pushHtmlBlock(state, '</div></div>\n', SPOILER_CONTENT_CLOSE);
  } else {
    const open = state.push('blockquote_open', 'blockquote', 1);
    open.markup = state.src.slice(state.bMarks[startLine]! + state.tShift[startLine]!, state.eMarks[startLine]!);
    open.map = [startLine, line];
    tokenizeInside(state, startLine + 1, line, 'blockquote');
    state.push('blockquote_close', 'blockquote', -1);
  }
  state.line = next;
  return true;
}
