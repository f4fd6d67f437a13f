import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';

/**
 * The version of each tenant's principals (its API keys, users, sessions and plan), published
 * where every gateway replica reads it per request (ADR 0100). The identity service raises a
 * tenant's version inside the transaction of every change that could make a cached answer about
 * one of its credentials wrong, before it commits; a gateway uses a cached answer only while the
 * answer's version is at least the published one.
 */
export interface PrincipalVersions {
  /**
   * Names this store: identity returns it with each answer, and a gateway caches an answer only
   * when the name is its own store's. A gateway and an identity service configured with
   * different stores (another Redis, another prefix) therefore never cache, instead of caching
   * answers no change can ever invalidate.
   */
  id(): Promise<string>;
  /** Raises each tenant's stored version to at least the given one (never lowers it). Throws when the store cannot be reached. */
  advance(versions: readonly { tenantId: string; version: number }[]): Promise<void>;
  /** The tenant's stored version; null when the store holds none. Throws when the store cannot be reached. */
  read(tenantId: string): Promise<number | null>;
  /** Stores a version for a tenant that has none (a store emptied by a restart): never overwrites. */
  seed(tenantId: string, version: number): Promise<void>;
  close(): Promise<void>;
}

/** One process's store: the embedded default, where identity and the gateway share the process. */
export class MemoryPrincipalVersions implements PrincipalVersions {
  private readonly versions = new Map<string, number>();
  private readonly name = `memory:${randomUUID()}`;

  id(): Promise<string> {
    return Promise.resolve(this.name);
  }

  advance(versions: readonly { tenantId: string; version: number }[]): Promise<void> {
    for (const { tenantId, version } of versions) this.versions.set(tenantId, Math.max(this.versions.get(tenantId) ?? 0, version));
    return Promise.resolve();
  }

  read(tenantId: string): Promise<number | null> {
    return Promise.resolve(this.versions.get(tenantId) ?? null);
  }

  seed(tenantId: string, version: number): Promise<void> {
    if (!this.versions.has(tenantId)) this.versions.set(tenantId, version);
    return Promise.resolve();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

const ADVANCE_COMMAND = 'mpAdvanceVersions';
// GREATEST(stored, given) per key, atomically: versions only grow, so retries and hand-overs
// crossing each other are harmless.
const ADVANCE_LUA = `for i, key in ipairs(KEYS) do
  local given = tonumber(ARGV[i])
  local stored = tonumber(redis.call('GET', key) or '0')
  if given > stored then redis.call('SET', key, ARGV[i]) end
end
return 0`;
type AdvanceCommand = Record<typeof ADVANCE_COMMAND, (...args: (string | number)[]) => Promise<number>>;

/**
 * The store shared by gateway replicas and identity replicas in distributed mode: one Redis key per
 * tenant, `<prefix>:pv:<tenant id>`, without expiry (an evicted key only makes gateways ask
 * identity again until a fresh answer seeds it). The prefix is MP_REDIS_PREFIX, the same setting
 * that separates the rate-limit counters of deployments and test runs.
 */
export class RedisPrincipalVersions implements PrincipalVersions {
  private readonly redis: Redis;
  private storeId: Promise<string> | null = null;

  constructor(
    url: string,
    private readonly prefix: string,
    onError?: (err: unknown) => void,
  ) {
    this.redis = new Redis(url, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      connectTimeout: 1000,
      commandTimeout: 2000,
      // Every cached request reads one key; the reads of all requests of one tick go out in one write.
      enableAutoPipelining: true,
    });
    this.redis.defineCommand(ADVANCE_COMMAND, { lua: ADVANCE_LUA });
    this.redis.on('error', (err) => onError?.(err));
  }

  private key(tenantId: string): string {
    return `${this.prefix}:pv:${tenantId}`;
  }

  id(): Promise<string> {
    // The first process to ask names the store; every later one, on any replica, reads that name.
    this.storeId ??= (async () => {
      const key = `${this.prefix}:pv-store`;
      // Asked on the request path: while Redis is away, answer at once (nothing is cached then).
      if (this.redis.status !== 'ready') throw new Error('Redis (principal versions) not connected');
      await this.redis.set(key, `redis:${randomUUID()}`, 'NX');
      const name = await this.redis.get(key);
      if (!name) throw new Error('the principal version store has no name');
      return name;
    })().catch((err: unknown) => {
      this.storeId = null;
      throw err;
    });
    return this.storeId;
  }

  async advance(versions: readonly { tenantId: string; version: number }[]): Promise<void> {
    if (versions.length === 0) return;
    await this.ready();
    await (this.redis as unknown as AdvanceCommand)[ADVANCE_COMMAND](
      versions.length,
      ...versions.map((v) => this.key(v.tenantId)),
      ...versions.map((v) => String(v.version)),
    );
  }

  async read(tenantId: string): Promise<number | null> {
    const value = await this.redis.get(this.key(tenantId));
    return value === null ? null : Number(value);
  }

  async seed(tenantId: string, version: number): Promise<void> {
    await this.redis.set(this.key(tenantId), String(version), 'NX');
  }

  /** Waits up to `timeoutMs` for the connection (commands are not queued while it is down). */
  private async ready(timeoutMs = 2000): Promise<void> {
    if (this.redis.status === 'ready') return;
    await new Promise<void>((resolve, reject) => {
      const done = (err?: Error) => {
        clearTimeout(timer);
        this.redis.off('ready', onReady);
        if (err) reject(err);
        else resolve();
      };
      const onReady = () => done();
      const timer = setTimeout(() => done(new Error('Redis (principal versions) not reachable')), timeoutMs);
      this.redis.on('ready', onReady);
    });
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

/**
 * The store a process of its own uses: Redis when MP_REDIS_URL is set, else none (identity then
 * publishes no versions and gateways cache nothing: there is no store both could share).
 */
export function openPrincipalVersions(
  config: { MP_REDIS_URL?: string | undefined; MP_REDIS_PREFIX?: string | undefined },
  onError?: (err: unknown) => void,
): PrincipalVersions | null {
  return config.MP_REDIS_URL ? new RedisPrincipalVersions(config.MP_REDIS_URL, config.MP_REDIS_PREFIX ?? DEFAULT_REDIS_PREFIX, onError) : null;
}

/** The default of MP_REDIS_PREFIX (the gateway's rate limits use the same). */
export const DEFAULT_REDIS_PREFIX = 'mp:rl';
