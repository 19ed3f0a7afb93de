// Typed request parameters, parsed the way Zulip's typed_endpoint does: form fields (or the query
// string for GET) hold strings; lists and objects are JSON-encoded text. Every parameter a route
// reads is marked used; the rest are reported in ignored_parameters_unsupported.
import { BadRequest, ConfusingParameters, MissingArgument } from '../errors.js';

export type Raw = Record<string, unknown>;

function asText(value: unknown): string | undefined {
  if (Array.isArray(value)) value = value[value.length - 1];
  if (value === undefined || value === null) return undefined;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** PostgreSQL cannot store NUL in text, and Zulip refuses it: no parameter may carry one. */
function refuseNul(text: string, name: string): void {
  if (text.includes('\u0000') || text.includes('\\u0000')) throw new BadRequest(`${name} contains a null byte`);
}

export interface StrOptions {
  /** The longest value accepted, in characters; DEFAULT_MAX_STRING when not given. */
  max?: number;
}

/**
 * The bound of a string parameter Zulip gives no limit of its own: far above any real value (a
 * message is cut to 10,000 characters), far below what would strain a column or an index.
 * Message content, which Zulip truncates rather than refuses, passes `max: Infinity`.
 */
export const DEFAULT_MAX_STRING = 100_000;

/** Zulip's error for a string past its limit (check_capped_string's wording). */
export function checkLength(value: string, name: string, max: number): void {
  // Code points, as Python counts them; the cheap UTF-16 length decides most cases.
  if (value.length <= max) return;
  let n = 0;
  for (const _ of value) if (++n > max) throw new BadRequest(`${name} is too long (limit: ${max} characters)`);
}

export class Params {
  private readonly used = new Set<string>();

  constructor(private readonly raw: Raw) {}

  has(name: string): boolean {
    return Object.prototype.hasOwnProperty.call(this.raw, name) && this.raw[name] !== undefined;
  }

  /**
   * Whether the parameter was sent as JSON null (`null` in a form, or null in a JSON body): for
   * Zulip's `Json[T | None] = None` parameters, the same as leaving it out.
   */
  isNull(name: string): boolean {
    if (!this.has(name)) return false;
    const v = this.raw[name];
    return v === null || (typeof v === 'string' && v.trim() === 'null') || (Array.isArray(v) && v[v.length - 1] === 'null');
  }

  /** Marks a parameter as understood without reading it (e.g. a documented no-op). */
  accept(...names: string[]): void {
    for (const n of names) this.used.add(n);
  }

  private text(name: string): string | undefined {
    this.used.add(name);
    const t = this.has(name) ? asText(this.raw[name]) : undefined;
    if (t !== undefined) refuseNul(t, name);
    return t;
  }

  /** The raw value as a client sent it (non-string only for JSON request bodies). */
  private value(name: string): unknown {
    this.used.add(name);
    const v = this.raw[name];
    return Array.isArray(v) && typeof v[0] === 'string' ? v[v.length - 1] : v;
  }

  /** A string parameter; `max` is Zulip's length limit for it, in characters (code points). */
  str(name: string, opts: StrOptions = {}): string {
    const v = this.optStr(name, opts);
    if (v === undefined) throw new MissingArgument(name);
    return v;
  }

  optStr(name: string, opts: StrOptions = {}): string | undefined {
    const v = this.value(name);
    if (v === undefined) return undefined;
    if (typeof v !== 'string') {
      if (typeof v === 'number' || typeof v === 'boolean') return String(v);
      throw new BadRequest(`${name} is not a string`);
    }
    refuseNul(v, name);
    checkLength(v, name, opts.max ?? DEFAULT_MAX_STRING);
    return v;
  }

  /** A string parameter that older clients send under another name (`topic`, once `subject`); never both. */
  optStrOrAlias(name: string, alias: string, opts: StrOptions = {}): string | undefined {
    if (this.has(name) && this.has(alias)) throw new ConfusingParameters(name, alias);
    return this.optStr(name, opts) ?? this.optStr(alias, opts);
  }

  int(name: string): number {
    const v = this.optInt(name);
    if (v === undefined) throw new MissingArgument(name);
    return v;
  }

  optInt(name: string): number | undefined {
    const t = this.text(name);
    if (t === undefined) return undefined;
    const s = t.trim();
    if (!/^-?\d+$/.test(s)) throw new BadRequest(`${name} is not an integer`);
    const n = Number(s);
    if (!Number.isSafeInteger(n)) throw new BadRequest(`${name} is too large`);
    return n;
  }

  bool(name: string, dflt: boolean): boolean {
    return this.optBool(name) ?? dflt;
  }

  /** A boolean the endpoint requires (a `Json[bool]` with no default in Zulip's view). */
  requiredBool(name: string): boolean {
    const v = this.optBool(name);
    if (v === undefined) throw new MissingArgument(name);
    return v;
  }

  optBool(name: string): boolean | undefined {
    const t = this.text(name);
    if (t === undefined) return undefined;
    if (t === 'true') return true;
    if (t === 'false') return false;
    throw new BadRequest(`${name} is not a boolean`);
  }

  /** A JSON-encoded value; `check` validates its shape and returns it typed. */
  json<T>(name: string, check: (v: unknown, name: string) => T): T {
    const v = this.optJson(name, check);
    if (v === undefined) throw new MissingArgument(name);
    return v;
  }

  optJson<T>(name: string, check: (v: unknown, name: string) => T): T | undefined {
    this.used.add(name);
    if (!this.has(name)) return undefined;
    const rawValue = this.raw[name];
    let parsed: unknown;
    refuseNul(typeof rawValue === 'string' ? rawValue : JSON.stringify(rawValue) ?? '', name);
    if (typeof rawValue === 'string') {
      try {
        parsed = JSON.parse(rawValue);
      } catch {
        // typed_endpoint's json_invalid template (the old REQ framework's 'Argument "X" is not
        // valid JSON.' left Zulip with has_request_variables).
        throw new BadRequest(`${name} is not valid JSON`);
      }
    } else {
      parsed = rawValue;
    }
    return check(parsed, name);
  }

  /** Names the client sent that no code read. */
  ignored(): string[] {
    return Object.keys(this.raw).filter((k) => !this.used.has(k));
  }
}

// Shape checks for JSON parameters. Each throws Zulip's BAD_REQUEST naming the parameter.
export const check = {
  int(v: unknown, name: string): number {
    if (typeof v !== 'number' || !Number.isSafeInteger(v)) throw new BadRequest(`${name} is not an integer`);
    return v;
  },
  str(v: unknown, name: string): string {
    if (typeof v !== 'string') throw new BadRequest(`${name} is not a string`);
    return v;
  },
  bool(v: unknown, name: string): boolean {
    if (typeof v !== 'boolean') throw new BadRequest(`${name} is not a boolean`);
    return v;
  },
  intList(v: unknown, name: string): number[] {
    if (!Array.isArray(v)) throw new BadRequest(`${name} is not a list`);
    return v.map((x, i) => check.int(x, `${name}[${i}]`));
  },
  strList(v: unknown, name: string): string[] {
    if (!Array.isArray(v)) throw new BadRequest(`${name} is not a list`);
    return v.map((x, i) => check.str(x, `${name}[${i}]`));
  },
  object(v: unknown, name: string): Record<string, unknown> {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new BadRequest(`${name} is not a dict`);
    return v as Record<string, unknown>;
  },
  list(v: unknown, name: string): unknown[] {
    if (!Array.isArray(v)) throw new BadRequest(`${name} is not a list`);
    return v;
  },
};
