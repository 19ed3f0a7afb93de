// Linkifier patterns run on RE2 (through re2js): linear-time matching whatever the pattern or the
// message, and the named-group syntax (?P<name>...) of Zulip's Python patterns works as it is.
import { createRequire } from 'node:module';

export interface CompiledPattern {
  matcher(text: string): { find(): boolean; start(): number; end(): number; group(name?: string | number): string | null; matches(): boolean };
  namedGroups(): Record<string, number>;
}
type Re2 = { RE2JS: { compile(p: string): CompiledPattern } };
/** Loaded on first use: an organization without linkifiers never pays for it. */
let re2: Re2 | undefined;

export const MAX_PATTERN_LENGTH = 1000;

/** The compiled pattern, or undefined when RE2 cannot compile it. */
export function compilePattern(pattern: string): CompiledPattern | undefined {
  if (!pattern || pattern.length > MAX_PATTERN_LENGTH) return undefined;
  re2 ??= createRequire(import.meta.url)('re2js') as Re2;
  try {
    return re2.RE2JS.compile(pattern);
  } catch {
    return undefined;
  }
}
