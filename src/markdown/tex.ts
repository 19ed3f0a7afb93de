// TeX through KaTeX, as Zulip renders it on the server: $$…$$ inline and ```math fences in
// display mode. KaTeX is loaded on first use; its macro-expansion and size limits bound the work
// a hostile formula can cause.
import { createRequire } from 'node:module';

interface KatexModule {
  renderToString(tex: string, options: Record<string, unknown>): string;
}

let katex: KatexModule | undefined;

/** Longer formulas are shown as errors rather than typeset (a message is at most 10,000 characters). */
const MAX_TEX_LENGTH = 2000;

/** KaTeX's HTML for a formula, or null when it does not parse. */
export function renderTex(tex: string, display: boolean): string | null {
  if (tex.length > MAX_TEX_LENGTH) return null;
  katex ??= createRequire(import.meta.url)('katex') as KatexModule;
  try {
    return katex.renderToString(tex, { displayMode: display, throwOnError: true, strict: 'ignore', trust: false, maxExpand: 500, maxSize: 100 });
  } catch {
    return null;
  }
}

/**
 * Zulip's markup for a formula KaTeX refused: the source, escaped. Inline formulas keep their
 * $$ delimiters; display ones are escaped as Python's html.escape does (quotes included).
 */
export function texError(tex: string, display: boolean): string {
  const escaped = tex.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  if (!display) return `<span class="tex-error">$$${escaped}$$</span>`;
  return `<span class="tex-error">${escaped.replace(/"/g, '&quot;').replace(/'/g, '&#x27;')}</span>`;
}
