// Linkifier patterns run on RE2 (through re2js): linear-time matching whatever the pattern or the
// message, and the named-group syntax (?P<name>...) of Zulip's Python patterns works as it is.
import { createRequire } from 'node:module';

export interface CompiledPattern {
  matcher(text: string): { find(): boolean; start(): number; end(): number; group(name?: string | number): string | null; matches(): boolean };
  namedGroups(): Record<string, number>;
}
const { RE2JS } = createRequire(import.meta.url)('re2js') as { RE2JS: { compile(p: string): CompiledPattern } };

export const MAX_PATTERN_LENGTH = 1000;

/** The compiled pattern, or undefined when RE2 cannot compile it. */
export function compilePattern(pattern: string): CompiledPattern | undefined {
  if (!pattern || pattern.length > MAX_PATTERN_LENGTH) return undefined;
  try {
    return RE2JS.compile(pattern);
  } catch {
    return undefined;
  }
}
