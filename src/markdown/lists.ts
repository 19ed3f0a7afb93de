// Zulip's list conventions, which CommonMark does not share: an item indented by two spaces under
// another is nested in it (CommonMark wants the parent's content indent, three for "1. "), and
// *, - and + bullets at one level make one list (CommonMark starts a new list at each change).
// A core rule, run before block parsing, rewrites exactly those lines into the CommonMark
// spelling of what Zulip means; everything else, and anything inside code fences, is untouched.
// One pass over the lines, a stack as deep as the list nesting.
import type { StateBlock, StateCore } from 'markdown-it';

/** Nested ordered lists renumbered from 1 to be recognized, by line: the number they start at. */
interface ListEnv {
  listStarts?: Map<number, number>;
}

interface Level {
  /** Column of the item's marker as written, and as rewritten (after padding). */
  indent: number;
  written: number;
  /** Column where the item's content starts (after padding). */
  content: number;
  bullet: string | null;
}

const ITEM = /^( *)([*+-]|\d{1,9}[.)])( +|$)/;
const FENCE = /^ *(`{3,}|~{3,})/;

export function zulipListsRule(state: StateCore): void {
  const src = state.src;
  // Only sources with a list item past the first line can need a rewrite.
  if (!/\n *(?:[*+-]|\d{1,9}[.)]) /.test(src)) return;
  const lines = src.split('\n');
  const stack: Level[] = [];
  let fence: string | null = null;
  let changed = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const fenceMatch = FENCE.exec(line);
    if (fence !== null) {
      if (fenceMatch && fenceMatch[1]![0] === fence[0] && fenceMatch[1]!.length >= fence.length && line.trim() === fenceMatch[1]) fence = null;
      continue;
    }
    if (fenceMatch) {
      fence = fenceMatch[1]!;
      continue;
    }
    if (line.trim() === '') continue;
    const m = ITEM.exec(line);
    const written = m ? m[1]!.length : line.length - line.trimStart().length;
    if (!m) {
      // Text at the margin ends every list; indented text continues the innermost one it reaches.
      if (written === 0) stack.length = 0;
      else while (stack.length && written < stack[stack.length - 1]!.written) stack.pop();
      continue;
    }
    const marker = m[2]!;
    const bullet = /^[*+-]$/.test(marker) ? marker : null;
    // Leave the levels this item is not inside: less indented than their markers as written.
    while (stack.length && written < stack[stack.length - 1]!.written) stack.pop();
    const top = stack[stack.length - 1];
    // Four spaces past where a list item could start: an indented code block, not an item.
    if (written >= (top ? top.content : 0) + 4) continue;
    let indent = written;
    let outMarker = marker;
    if (top && written >= top.written + 2 && written < top.content) {
      // Zulip nests at two spaces: move the item to its parent's content column.
      indent = top.content;
      // CommonMark lets a nested ordered list interrupt its parent's text only when it starts at
      // 1: write 1 and put the number back on the list after parsing.
      const number = /^(\d+)([.)])$/.exec(marker);
      if (number && number[1] !== '1') {
        const env = state.env as ListEnv;
        (env.listStarts ??= new Map()).set(i, Number(number[1]));
        outMarker = `1${number[2]}`.padEnd(marker.length, ' ');
      }
    } else if (top && written < top.written + 2) {
      // A sibling of the item on top: the same list, whatever bullet it uses.
      stack.pop();
      if (bullet && top.bullet && bullet !== top.bullet) outMarker = top.bullet;
      indent = top.indent;
    } else if (top) {
      indent = written + (top.indent - top.written);
    }
    const spaces = m[3]!.length || 1;
    stack.push({ indent, written, content: indent + outMarker.length + spaces, bullet: bullet ? outMarker : null });
    if (indent !== written || outMarker !== marker) {
      lines[i] = ' '.repeat(indent) + outMarker + line.slice(m[1]!.length + marker.length);
      changed = true;
    }
  }
  if (changed) state.src = lines.join('\n');
}

/** Core rule after block parsing: nested ordered lists get back the number they started at. */
export function listStartRule(state: StateCore): void {
  const starts = (state.env as ListEnv).listStarts;
  if (!starts) return;
  for (const token of state.tokens) {
    if (token.type !== 'ordered_list_open' || !token.map) continue;
    const start = starts.get(token.map[0]);
    if (start !== undefined) token.attrSet('start', String(start));
  }
}

type BlockRule = (state: StateBlock, startLine: number, endLine: number, silent: boolean) => boolean;

/**
 * The paragraph rule, for the text that starts on a list item's line: Zulip appends the item's
 * further lines to it as written, so they keep their spaces past the item's marker column
 * ("* a\n  b" renders "a<br>\n  b"), where CommonMark strips them up to the item's content.
 */
export function listParagraphRule(paragraph: BlockRule): BlockRule {
  return (state, startLine, endLine, silent) => {
    const before = state.tokens.length;
    const startsItem = !silent && state.parentType === 'list' && state.tokens[before - 1]?.type === 'list_item_open';
    if (!paragraph(state, startLine, endLine, silent)) return false;
    const open = state.tokens[before];
    const inline = state.tokens[before + 1];
    if (!startsItem || !open?.map || inline?.type !== 'inline' || open.map[1] - open.map[0] < 2) return true;
    const [from, to] = open.map;
    let markerColumn = 0;
    for (let p = state.bMarks[from]!; state.src.charCodeAt(p) === 32; p++) markerColumn++;
    const first = state.getLines(from, from + 1, state.blkIndent, false);
    inline.content = `${first}\n${state.getLines(from + 1, to, markerColumn, false)}`.trim();
    return true;
  };
}
