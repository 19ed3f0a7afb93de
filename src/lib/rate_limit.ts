// Rate limits as Zulip's defaults: requests per user, requests per address without credentials,
// and password attempts per username. Counters live in this process's memory (RateLimiter), in
// Redis for processes joined by it (redis_rate_limit.ts), or in the primary process for the
// workers of one `confab serve` (ipc_rate_limit.ts).
import { RateLimited } from '../errors.js';

export interface Rule {
  limit: number;
  windowSeconds: number;
}

export interface RateLimitConfig {
  user: Rule;
  anonymous: Rule;
  password: Rule;
}

export const DEFAULT_RATE_LIMITS: RateLimitConfig = {
  user: { limit: 200, windowSeconds: 60 },
  anonymous: { limit: 100, windowSeconds: 60 },
  password: { limit: 5, windowSeconds: 1800 },
};

/** CONFAB_RATE_LIMITS: "off", or overrides like "user=200/60,anonymous=100/60,password=5/1800". */
export function parseRateLimits(v: string | undefined): RateLimitConfig | null {
  if (v === 'off') return null;
  const out = { ...DEFAULT_RATE_LIMITS };
  for (const part of (v ?? '').split(',').filter(Boolean)) {
    const m = /^(user|anonymous|password)=(\d+)\/(\d+)$/.exec(part.trim());
    if (!m) throw new Error(`CONFAB_RATE_LIMITS: cannot read '${part}'`);
    out[m[1] as keyof RateLimitConfig] = { limit: Number(m[2]), windowSeconds: Number(m[3]) };
  }
  return out;
}

export interface Verdict {
  limit: number;
  remaining: number;
  /** UNIX time (seconds) when the window starts over. */
  reset: number;
}

/** The headers Zulip sends with every rate-limited answer. */
export function rateLimitHeaders(v: Verdict): Record<string, string> {
  return { 'X-RateLimit-Limit': String(v.limit), 'X-RateLimit-Remaining': String(v.remaining), 'X-RateLimit-Reset': String(v.reset) };
}

export interface Limiter {
  readonly config: RateLimitConfig;
  /** Counts one request against the key; rejects with RATE_LIMIT_HIT when over the rule's limit. */
  hit(key: string, rule: Rule): Promise<Verdict>;
  /** Forgets the key's count (a login that succeeded: only failures should add up, as in Zulip). */
  reset(key: string): Promise<void>;
  close(): Promise<void>;
}

export function verdictOf(rule: Rule, count: number, resetAtMs: number): Verdict {
  const verdict = { limit: rule.limit, remaining: Math.max(0, rule.limit - count), reset: Math.ceil(resetAtMs / 1000) };
  if (count > rule.limit) throw new RateLimitExceeded(Math.max(1, Math.ceil((resetAtMs - Date.now()) / 1000)), verdict);
  return verdict;
}

/** Counters in this process's memory: right for one server process. */
export class RateLimiter implements Limiter {
  private windows = new Map<string, { count: number; resetAt: number }>();
  private sweep: NodeJS.Timeout;

  constructor(readonly config: RateLimitConfig) {
    this.sweep = setInterval(() => {
      const now = Date.now();
      for (const [k, w] of this.windows) if (w.resetAt <= now) this.windows.delete(k);
    }, 60_000);
    this.sweep.unref();
  }

  async hit(key: string, rule: Rule): Promise<Verdict> {
    const { count, resetAt } = this.count(key, rule);
    return verdictOf(rule, count, resetAt);
  }

  /** Counts one request against the key: its count in the current window and when that ends. */
  count(key: string, rule: Rule): { count: number; resetAt: number } {
    const now = Date.now();
    let w = this.windows.get(key);
    if (!w || w.resetAt <= now) this.windows.set(key, (w = { count: 0, resetAt: now + rule.windowSeconds * 1000 }));
    w.count++;
    return { count: w.count, resetAt: w.resetAt };
  }

  async reset(key: string): Promise<void> {
    this.windows.delete(key);
  }

  async close(): Promise<void> {
    clearInterval(this.sweep);
  }
}

export class RateLimitExceeded extends RateLimited {
  constructor(
    readonly retryAfter: number,
    readonly verdict: Verdict,
  ) {
    super(retryAfter);
  }

  /** The headers of the 429 answer, wherever it is written (the router or the plain long-poll path). */
  headers(): Record<string, string> {
    return { ...rateLimitHeaders(this.verdict), 'Retry-After': String(this.retryAfter) };
  }
}
