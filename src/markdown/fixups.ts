// Token-stream fixes where CommonMark and Zulip's Markdown part ways: the nesting of ***x***,
// bold that does not cross lines, a lone ">" and trailing spaces that Zulip keeps.
import type { StateCore, Token } from 'markdown-it';

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

/** The index of the token closing the one at i (same nesting depth), or -1. */
function matchingClose(tokens: Token[], i: number): number {
  let depth = 0;
  for (let j = i; j < tokens.length; j++) {
    depth += tokens[j]!.nesting;
    if (depth === 0) return j;
  }
  return -1;
}

/** Core rule: **bold** does not span lines in Zulip; across a line break its stars stay text. */
export function singleLineStrongRule(state: StateCore): void {
  for (const block of state.tokens) {
    const c = block.children;
    if (block.type !== 'inline' || !c) continue;
    for (let i = 0; i < c.length; i++) {
      if (c[i]!.type !== 'strong_open') continue;
      const close = matchingClose(c, i);
      if (close < 0) continue;
      let crosses = false;
      for (let j = i + 1; j < close && !crosses; j++) crosses = c[j]!.type === 'softbreak' || c[j]!.type === 'hardbreak';
      if (!crosses) continue;
      for (const k of [i, close]) {
        const text = new state.Token('text', '', 0);
        text.content = c[k]!.markup;
        c[k] = text;
      }
    }
  }
}

/** Core rule: an empty quote (a line of just ">") is the text ">" in Zulip. */
export function emptyBlockquoteRule(state: StateCore): void {
  const t = state.tokens;
  for (let i = 0; i + 1 < t.length; i++) {
    if (t[i]!.type !== 'blockquote_open' || t[i + 1]!.type !== 'blockquote_close') continue;
    const open = new state.Token('paragraph_open', 'p', 1);
    const inline = new state.Token('inline', '', 0);
    const text = new state.Token('text', '', 0);
    text.content = '>';
    inline.children = [text];
    inline.content = '>';
    const close = new state.Token('paragraph_close', 'p', -1);
    open.level = close.level = t[i]!.level;
    open.block = close.block = true;
    t.splice(i, 2, open, inline, close);
  }
}

/** Core rule: spaces at the end of a paragraph's last line stay in the text, as Zulip keeps them. */
export function trailingSpaceRule(state: StateCore): void {
  let lines: string[] | undefined;
  const t = state.tokens;
  for (let i = 1; i < t.length; i++) {
    const inline = t[i]!;
    if (inline.type !== 'inline' || t[i - 1]!.type !== 'paragraph_open' || !inline.map || !inline.children) continue;
    lines ??= state.src.split('\n');
    const last = lines[inline.map[1] - 1] ?? '';
    const spaces = /[ \t]+$/.exec(last)?.[0];
    if (!spaces) continue;
    const text = new state.Token('text', '', 0);
    text.content = spaces;
    inline.children.push(text);
  }
}
