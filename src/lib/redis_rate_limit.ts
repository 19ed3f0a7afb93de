// Rate-limit counters in Redis, so every server process counts against the same limits.
import { Redis } from 'ioredis';
import { verdictOf, type Limiter, type RateLimitConfig, type Rule, type Verdict } from './rate_limit.js';

export class RedisRateLimiter implements Limiter {
  private readonly redis: Redis;

  constructor(
    readonly config: RateLimitConfig,
    url: string,
    private readonly prefix = 'confab',
  ) {
    this.redis = new Redis(url, { maxRetriesPerRequest: 3 });
  }

  async hit(key: string, rule: Rule): Promise<Verdict> {
    const k = `${this.prefix}:rate:${key}`;
    const res = await this.redis.multi().incr(k).pexpire(k, rule.windowSeconds * 1000, 'NX').pttl(k).exec();
    const count = Number(res?.[0]?.[1] ?? 0);
    const ttl = Number(res?.[2]?.[1] ?? rule.windowSeconds * 1000);
    return verdictOf(rule, count, Date.now() + Math.max(0, ttl));
  }

  async reset(key: string): Promise<void> {
    await this.redis.del(`${this.prefix}:rate:${key}`);
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => undefined);
  }
}

