// The content_html_diff of GET /messages/{id}/history: a message's new rendering with the words an
// edit added wrapped in <span class="highlight_text_inserted"> and the words it removed, in place,
// in <span class="highlight_text_deleted">, the whole in a <div>, as Zulip's edit history shows it.
// Words are compared, not markup: the new rendering's tags are kept, the old one's are dropped.

interface Word {
  /** Markup (tags, stray whitespace) between the previous word and this one. */
  lead: string;
  text: string;
  /** Whitespace right after the word. */
  ws: string;
}

interface Tokens {
  words: Word[];
  /** Markup after the last word. */
  tail: string;
}

const PIECE = /<[^>]*>|[^<]+/g;
const WORD = /(\s*)(\S+)(\s*)/g;
/** Tags with no content, which may sit inside a highlight span. */
const VOID_TAG = /^<(br|img|wbr|hr)\b/i;
/**
 * Past this many word pairs to compare, a changed middle is shown as replaced whole: the table
 * stays at 2 MB and a few milliseconds (an edit's common start and end are trimmed first).
 */
const MAX_COMPARISONS = 1_000_000;

function tokenize(html: string): Tokens {
  const words: Word[] = [];
  let pending = '';
  let preDepth = 0;
  // Whitespace around words reads as one space, as Zulip shows it, except in preformatted code.
  const space = (ws: string) => (preDepth > 0 || ws === '' ? ws : ' ');
  for (const [piece] of html.matchAll(PIECE)) {
    if (piece.startsWith('<')) {
      pending += piece;
      if (/^<pre\b/i.test(piece)) preDepth++;
      else if (/^<\/pre\b/i.test(piece)) preDepth = Math.max(0, preDepth - 1);
      continue;
    }
    let consumed = 0;
    for (const m of piece.matchAll(WORD)) {
      words.push({ lead: pending + space(m[1]!), text: m[2]!, ws: space(m[3]!) });
      pending = '';
      consumed = m.index! + m[0].length;
    }
    pending += piece.slice(consumed);
  }
  return { words, tail: pending };
}

type Op = { kind: 'equal' | 'insert'; index: number } | { kind: 'delete'; index: number };

/** The edit script from old words to new ones: a longest common subsequence of their texts. */
function diffWords(a: Word[], b: Word[]): Op[] {
  let start = 0;
  while (start < a.length && start < b.length && a[start]!.text === b[start]!.text) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1]!.text === b[endB - 1]!.text) {
    endA--;
    endB--;
  }
  const ops: Op[] = [];
  for (let j = 0; j < start; j++) ops.push({ kind: 'equal', index: j });
  const n = endA - start;
  const m = endB - start;
  if (n * m > MAX_COMPARISONS) {
    for (let j = start; j < endB; j++) ops.push({ kind: 'insert', index: j });
    for (let i = start; i < endA; i++) ops.push({ kind: 'delete', index: i });
  } else if (n > 0 || m > 0) {
    // lengths[i][j]: the longest common subsequence of a[start+i..] and b[start+j..].
    const width = m + 1;
    // An LCS is at most min(n, m) <= sqrt(MAX_COMPARISONS) long: 16 bits hold it.
    const lengths = new Uint16Array((n + 1) * width);
    for (let i = n - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) {
        lengths[i * width + j] =
          a[start + i]!.text === b[start + j]!.text ? lengths[(i + 1) * width + j + 1]! + 1 : Math.max(lengths[(i + 1) * width + j]!, lengths[i * width + j + 1]!);
      }
    }
    let i = 0;
    let j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && a[start + i]!.text === b[start + j]!.text) {
        ops.push({ kind: 'equal', index: start + j });
        i++;
        j++;
      } else if (j < m && (i === n || lengths[i * width + j + 1]! >= lengths[(i + 1) * width + j]!)) {
        ops.push({ kind: 'insert', index: start + j });
        j++;
      } else {
        ops.push({ kind: 'delete', index: start + i });
        i++;
      }
    }
  }
  for (let j = endB; j < b.length; j++) ops.push({ kind: 'equal', index: j });
  return ops;
}

/** Wraps a run of new words in the inserted span, leaving out the markup a span cannot hold. */
function insertedRun(words: Word[]): string {
  const open = '<span class="highlight_text_inserted">';
  let out = words[0]!.lead + open;
  words.forEach((w, k) => {
    if (k > 0) {
      out += w.lead.replace(/<[^>]*>/g, (tag) => (VOID_TAG.test(tag) ? tag : `</span>${tag}${open}`));
    }
    out += w.text + (k < words.length - 1 ? w.ws : '');
  });
  return out.replaceAll(`${open}</span>`, '') + '</span>' + words[words.length - 1]!.ws;
}

function deletedRun(words: Word[]): string {
  const text = words.map((w, k) => w.text + (k < words.length - 1 ? ' ' : '')).join('');
  return `<span class="highlight_text_deleted">${text}</span>${words[words.length - 1]!.ws}`;
}

/** The new rendering with the edit's changes highlighted, as Zulip's highlight_html_differences shows them. */
export function highlightHtmlDifferences(oldHtml: string, newHtml: string): string {
  const before = tokenize(oldHtml);
  const after = tokenize(newHtml);
  const ops = diffWords(before.words, after.words);
  let out = '';
  // Two highlighted runs, or a run and a word, never touch: one space between them.
  const separate = () => {
    if (out !== '' && (out.endsWith('</span>') || !/[\s>]$/.test(out))) out += ' ';
  };
  for (let k = 0; k < ops.length; ) {
    if (ops[k]!.kind === 'equal') {
      const w = after.words[ops[k]!.index]!;
      out += w.lead + w.text + w.ws;
      k++;
      continue;
    }
    // A block of changes: what it adds, then what it removes, as Zulip shows a replacement.
    const inserted: Word[] = [];
    const deleted: Word[] = [];
    for (; k < ops.length && ops[k]!.kind !== 'equal'; k++) {
      const op = ops[k]!;
      if (op.kind === 'insert') inserted.push(after.words[op.index]!);
      else deleted.push(before.words[op.index]!);
    }
    if (inserted.length) {
      if (inserted[0]!.lead === '') separate();
      out += insertedRun(inserted);
    }
    if (deleted.length) {
      // Words removed before the next kept one stay inside a block: the end of the previous one
      // when markup closes it first, else the start of the next (after the tags opening it).
      const next = inserted.length === 0 && k < ops.length ? after.words[ops[k]!.index]! : undefined;
      if (next && !/<\//.test(next.lead)) {
        out += next.lead;
        next.lead = '';
      }
      separate();
      out += deletedRun(deleted);
    }
  }
  return `<div>${out}${after.tail}</div>`;
}
