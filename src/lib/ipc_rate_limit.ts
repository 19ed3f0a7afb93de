// Rate limits for the workers of one `confab serve` (CONFAB_WORKERS) without Redis: the primary
// process keeps the counters (an in-memory RateLimiter, as a lone process does) and every worker
// asks it, so N workers count against one limit, not N.
import { IpcRequests, isIpcMessage, type IpcChannel } from './ipc.js';
import { verdictOf, type Limiter, type RateLimitConfig, type RateLimiter, type Rule, type Verdict } from './rate_limit.js';

const KIND = 'rate';

export class IpcRateLimiter implements Limiter {
  private readonly requests: IpcRequests;

  constructor(
    readonly config: RateLimitConfig,
    channel: IpcChannel,
  ) {
    this.requests = new IpcRequests(KIND, channel);
  }

  async hit(key: string, rule: Rule): Promise<Verdict> {
    let count = 1;
    let resetAt = Date.now() + rule.windowSeconds * 1000;
    try {
      const answer = await this.requests.request({ op: 'hit', key, rule });
      count = Number(answer.count);
      resetAt = Number(answer.resetAt);
    } catch {
      // The primary is gone (this worker is stopping): the request is served uncounted rather
      // than failed, as the last moments of a process's life are not where abuse is stopped.
    }
    return verdictOf(rule, count, resetAt);
  }

  async reset(key: string): Promise<void> {
    this.requests.tell({ op: 'reset', key });
  }

  async close(): Promise<void> {
    this.requests.close();
  }
}

/** The primary's side: answers a worker's rate-limit message; false if it was not one. */
export function answerRateLimit(limiter: RateLimiter, message: unknown, reply: (m: object) => void): boolean {
  if (!isIpcMessage(message, KIND)) return false;
  const key = String(message.key);
  if (message.op === 'reset') {
    void limiter.reset(key);
    return true;
  }
  const rule = message.rule as Rule;
  const { count, resetAt } = limiter.count(key, rule);
  reply({ confab: KIND, rid: message.rid, count, resetAt });
  return true;
}
