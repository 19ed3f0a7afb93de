// Zulip's fenced blocks beyond code: ```quote (Markdown inside a blockquote), ```spoiler and
// ```math. Each scans its lines once.
import type { StateBlock } from 'markdown-it';

/**
 * Block rule for ```quote / ~~~ quote fences: their content is Markdown inside a <blockquote>.
 * Fences opened inside (code, or a nested quote) are tracked so that their closing lines do not
 * end the quote.
 */
export function quoteFenceRule(state: StateBlock, startLine: number, endLine: number, silent: boolean): boolean {
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

