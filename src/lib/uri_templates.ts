// RFC 6570 URL templates (linkifiers, code playgrounds), parsed by the uri-template package.
import { createRequire } from 'node:module';

interface Ast {
  parts: Array<{ type: 'literal'; value: string } | { type: 'expression'; operator: string; variables: Array<{ name: string }> }>;
}
interface Parsed {
  ast: Ast;
  expand(vars: Record<string, string>): string;
}
type UriTemplate = { parse(t: string): Parsed };
let loaded: UriTemplate | undefined;
/** Loaded on first use, like the other parsers an idle server does not need. */
const uriTemplate = (): UriTemplate => (loaded ??= createRequire(import.meta.url)('uri-template') as UriTemplate);

/** The template's variable names, or undefined when it is not a valid RFC 6570 template. */
export function templateVariables(template: string): string[] | undefined {
  try {
    const parsed = uriTemplate().parse(template);
    return parsed.ast.parts.flatMap((p) => (p.type === 'expression' ? p.variables.map((v) => v.name) : []));
  } catch {
    return undefined;
  }
}

export function expandTemplate(template: string, vars: Record<string, string>): string {
  return uriTemplate().parse(template).expand(vars);
}

/** Whether the template expands to an absolute http(s) URL (no javascript: or data: links). */
export function isWebTemplate(template: string): boolean {
  return /^https?:\/\//i.test(template);
}
