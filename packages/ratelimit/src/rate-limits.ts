import { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { DEFAULT_CONCURRENCY, DEFAULT_LIMITS, type LimitKind, type LimitRule, type PlanLimits, type Verdict } from './rules.js';

export interface RateLimitsOptions {
  /** Redis shared by every gateway replica; unset in the embedded default (per-process memory). */
  redisUrl?: string;
  /** Key prefix, so environments and test runs never share counters. */
  prefix?: string;
  /** Operator defaults of docs/rules.md#limits (per-tenant plans override these per call). */
  limits?: Partial<Record<LimitKind, Partial<LimitRule>>>;
  concurrency?: number;
  onRedisError?: (err: unknown) => void;
}

/**
 * Takes a concurrent slot in one round trip: counts it, renews the counter's TTL (slots of a
 * crashed replica come back), and gives it back at once when that makes more than ARGV[1] in
 * flight (answering -n then).
 */
const SLOT_COMMAND = 'mpAcquireSlot';
const SLOT_LUA = `local n = redis.call('INCR', KEYS[1])
redis.call('EXPIRE', KEYS[1], ARGV[2])
if n > tonumber(ARGV[1]) then
  redis.call('DECR', KEYS[1])
  return -n
end
return n`;
const SLOT_TTL_SECONDS = 120;
type SlotCommand = Record<typeof SLOT_COMMAND, (key: string, max: number, ttlSeconds: number) => Promise<number>>;

/**
 * Counters for the limits of docs/rules.md#limits. With Redis they are shared by all gateway replicas. When
 * Redis fails, each call falls back to an in-process limiter with the same rule (rate-limiter-
 * flexible's insurance limiter), so requests keep flowing and limits still hold per replica rather
 * than failing open or refusing everything; see docs/adr/0011-rate-limits.md.
 */
export class RateLimits {
  private readonly limiters = new Map<string, RateLimiterAbstract>();
  private readonly redis: Redis | null;
  private readonly prefix: string;
  private readonly rules: Record<LimitKind, LimitRule>;
  readonly concurrency: number;
  private readonly localInFlight = new Map<string, number>();
  /** The latest plan limits seen per key (tenant and environment); see setPlan. */
  private readonly plans = new Map<string, PlanLimits>();

  constructor(private readonly opts: RateLimitsOptions = {}) {
    this.prefix = opts.prefix ?? 'mp:rl';
    this.rules = Object.fromEntries(
      (Object.keys(DEFAULT_LIMITS) as LimitKind[]).map((k) => [k, { ...DEFAULT_LIMITS[k], ...(opts.limits?.[k] ?? {}) }]),
    ) as Record<LimitKind, LimitRule>;
    this.concurrency = opts.concurrency ?? DEFAULT_CONCURRENCY;
    this.redis = opts.redisUrl
      ? new Redis(opts.redisUrl, {
          enableOfflineQueue: false,
          maxRetriesPerRequest: 1,
          connectTimeout: 1000,
          lazyConnect: false,
          // Every request sends two or three commands; the commands of all requests issued in one
          // tick of the event loop go out in one write (and come back in one read) instead of a
          // system call each. Order and results per command are unchanged.
          enableAutoPipelining: true,
        })
      : null;
    this.redis?.defineCommand(SLOT_COMMAND, { numberOfKeys: 1, lua: SLOT_LUA });
    this.redis?.on('error', (err) => opts.onRedisError?.(err));
  }

  /**
   * Waits (up to `timeoutMs`) for the Redis connection, so the first requests count in the shared
   * store. If Redis does not come, the limits start in the per-process fallback.
   */
  async ready(timeoutMs = 3000): Promise<boolean> {
    const redis = this.redis;
    if (!redis) return true;
    if (redis.status === 'ready') return true;
    return new Promise<boolean>((resolve) => {
      const done = (ok: boolean) => {
        clearTimeout(timer);
        redis.off('ready', onReady);
        resolve(ok);
      };
      const onReady = () => done(true);
      const timer = setTimeout(() => done(false), timeoutMs);
      redis.once('ready', onReady);
    });
  }

  rule(kind: LimitKind): LimitRule {
    return this.rules[kind];
  }

  /**
   * Records the plan limits of a key (a tenant and environment), as the gateway learns them with
   * the principal of each authenticated request. Later calls for the key — the tenant's request
   * limit, its concurrency, and the data-record and report limits counted by the routes — use them
   * instead of the operator defaults. A value of 0 or absent keeps the default.
   */
  setPlan(key: string, limits: PlanLimits): void {
    this.plans.set(key, limits);
  }

  /** The limit in force for `kind` and `key`: the key's plan, else the operator default. */
  limitFor(kind: LimitKind, key: string): number {
    return this.plans.get(key)?.[kind] || this.rules[kind].points;
  }

  /** The concurrency limit in force for `key`. */
  concurrencyFor(key: string): number {
    return this.plans.get(key)?.concurrency || this.concurrency;
  }

  private limiter(kind: LimitKind, points: number): RateLimiterAbstract {
    const rule = this.rules[kind];
    const id = `${kind}:${points}`;
    let l = this.limiters.get(id);
    if (!l) {
      const base = { points, duration: rule.durationSeconds, keyPrefix: `${this.prefix}:${kind}:${points}` };
      const memory = new RateLimiterMemory(base);
      l = this.redis ? new RateLimiterRedis({ ...base, storeClient: this.redis, insuranceLimiter: memory, rejectIfRedisNotReady: true }) : memory;
      this.limiters.set(id, l);
    }
    return l;
  }

  /**
   * Takes `cost` points of `kind` for `key` (e.g. a tenant and environment). A refused request
   * is given its points back, so a refusal does not eat into the next allowed request.
   * `limit` overrides the rule's points; otherwise the key's plan (setPlan) or the default applies.
   */
  async consume(kind: LimitKind, key: string, cost = 1, limit?: number): Promise<Verdict> {
    const points = limit ?? this.limitFor(kind, key);
    const limiter = this.limiter(kind, points);
    try {
      const res = await limiter.consume(key, cost);
      return this.verdict(kind, points, res, true);
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw err;
      await limiter.reward(key, cost).catch(() => undefined);
      return this.verdict(kind, points, err, false, cost);
    }
  }

  /**
   * Gives back `cost` points of `kind` taken by consume for an action that was then refused, so
   * only accepted actions count. `limit` is the verdict's limit, naming the counter it came from.
   * A store that cannot be reached keeps the points (the limit errs on the strict side).
   */
  async refund(kind: LimitKind, key: string, cost = 1, limit?: number): Promise<void> {
    await this.limiter(kind, limit ?? this.limitFor(kind, key))
      .reward(key, cost)
      .catch(() => undefined);
  }

  private verdict(kind: LimitKind, limit: number, res: RateLimiterRes, allowed: boolean, cost = 0): Verdict {
    const resetMs = Math.max(0, res.msBeforeNext);
    const consumed = allowed ? res.consumedPoints : res.consumedPoints - cost;
    return {
      allowed,
      kind,
      limit,
      remaining: Math.max(0, limit - consumed),
      resetAt: Math.ceil((Date.now() + resetMs) / 1000),
      retryAfter: allowed ? 0 : Math.ceil(resetMs / 1000),
    };
  }

  /**
   * Holds one of `max` concurrent slots for `key` until `release` is called. In Redis a counter
   * with a TTL (so slots of a crashed replica come back); in memory when Redis is unavailable.
   */
  async acquire(key: string, max = this.concurrencyFor(key)): Promise<{ allowed: boolean; inFlight: number; release: () => Promise<void> }> {
    const redisKey = `${this.prefix}:conc:${key}`;
    if (this.redis && this.redis.status === 'ready') {
      try {
        const n = (await (this.redis as Redis & SlotCommand)[SLOT_COMMAND](redisKey, max, SLOT_TTL_SECONDS)) as number;
        if (n < 0) return { allowed: false, inFlight: -n - 1, release: async () => undefined };
        const release = async () => {
          await this.redis!.decr(redisKey).catch(() => undefined);
        };
        return { allowed: true, inFlight: n, release };
      } catch (err) {
        this.opts.onRedisError?.(err);
      }
    }
    const n = (this.localInFlight.get(key) ?? 0) + 1;
    if (n > max) return { allowed: false, inFlight: n - 1, release: async () => undefined };
    this.localInFlight.set(key, n);
    let released = false;
    return {
      allowed: true,
      inFlight: n,
      release: async () => {
        if (released) return;
        released = true;
        const left = (this.localInFlight.get(key) ?? 1) - 1;
        if (left <= 0) this.localInFlight.delete(key);
        else this.localInFlight.set(key, left);
      },
    };
  }

  async close(): Promise<void> {
    if (!this.redis) return;
    // quit() waits for a connection that may never come; a client that is not ready just stops.
    if (this.redis.status === 'ready') await this.redis.quit().catch(() => this.redis!.disconnect());
    else this.redis.disconnect();
  }
}
