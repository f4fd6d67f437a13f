import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';

/**
 * The auth versions of ADR 0119: counters that the identity service bumps on every change of a
 * principal (a key revoked or rolled, a session ended, a user changed, disabled or deleted, a
 * tenant's plan or a plan changed), and that every gateway replica reads on every request that
 * uses its credential cache. A cached principal is used only while the versions it was read at
 * are still the current ones.
 *
 * - one counter per tenant, and one for all tenants (a plan shared by many tenants, an OAuth client);
 * - an epoch: a random value made when the store is first used. Should Redis lose its data, the
 *   counters start again from zero, but the epoch changes with them, so no entry read before
 *   matches a version read after.
 *
 * With Redis the counters are shared by every process of the deployment. Without it they live in
 * this module (one per key prefix), which is shared only by the services of one process: the
 * embedded default. `id` names the store, so that a gateway can tell whether identity bumps the
 * store it reads (identity returns its id with every principal).
 */
export interface AuthVersions {
  /** Names the store: `redis:<prefix>`, or `memory:<process token>:<prefix>`. */
  readonly id: string;
  /** The versions in force for a tenant as one comparable string; null when the store cannot be read. */
  read(tenantId: string): Promise<string | null>;
  /** Bumps a tenant's counter, or every tenant's (`null`). Rejects when the store cannot be written. */
  bump(tenantId: string | null): Promise<void>;
  close(): Promise<void>;
}

/** One per process: tells the memory stores of two processes apart. */
const PROCESS_TOKEN = randomBytes(8).toString('hex');
const memoryStores = new Map<string, Map<string, number>>();

/** The counters of this process (the embedded default): every service of the process shares them per prefix. */
export function memoryAuthVersions(prefix = 'mp:rl'): AuthVersions {
  let counters = memoryStores.get(prefix);
  if (!counters) memoryStores.set(prefix, (counters = new Map()));
  const c = counters;
  return {
    id: `memory:${PROCESS_TOKEN}:${prefix}`,
    read: async (tenantId) => `${c.get('*') ?? 0}.${c.get(tenantId) ?? 0}`,
    bump: async (tenantId) => {
      const key = tenantId ?? '*';
      c.set(key, (c.get(key) ?? 0) + 1);
    },
    close: async () => undefined,
  };
}

/** The counters in Redis, shared by every process that uses the same Redis and prefix. */
export class RedisAuthVersions implements AuthVersions {
  readonly id: string;
  private readonly redis: Redis;
  private readonly keys: { epoch: string; all: string; tenant: (t: string) => string };

  constructor(redisUrl: string, prefix = 'mp:rl', onError?: (err: unknown) => void) {
    this.id = `redis:${prefix}`;
    this.keys = { epoch: `${prefix}:authv:epoch`, all: `${prefix}:authv:*`, tenant: (t) => `${prefix}:authv:t:${t}` };
    this.redis = new Redis(redisUrl, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      connectTimeout: 1000,
      // The reads of all requests of one tick go out in one write.
      enableAutoPipelining: true,
    });
    this.redis.on('error', (err) => onError?.(err));
  }

  /** Waits (up to `timeoutMs`) for the connection; reads before that answer null (no cache used). */
  async ready(timeoutMs = 3000): Promise<boolean> {
    if (this.redis.status === 'ready') return true;
    return new Promise<boolean>((resolve) => {
      const done = (ok: boolean) => {
        clearTimeout(timer);
        this.redis.off('ready', onReady);
        resolve(ok);
      };
      const onReady = () => done(true);
      const timer = setTimeout(() => done(false), timeoutMs);
      this.redis.once('ready', onReady);
    });
  }

  async read(tenantId: string): Promise<string | null> {
    if (this.redis.status !== 'ready') return null;
    try {
      const [epoch, all, tenant] = await this.redis.mget(this.keys.epoch, this.keys.all, this.keys.tenant(tenantId));
      if (epoch === null) {
        // The store's first use, or Redis lost its data: a new epoch (the first writer wins).
        await this.redis.set(this.keys.epoch, randomBytes(8).toString('hex'), 'NX');
        return null;
      }
      return `${epoch}.${all ?? 0}.${tenant ?? 0}`;
    } catch {
      return null;
    }
  }

  async bump(tenantId: string | null): Promise<void> {
    await this.redis.incr(tenantId === null ? this.keys.all : this.keys.tenant(tenantId));
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}

/** The store for a process: Redis when it has a URL, else this process's memory. */
export function authVersionsFor(opts: { redisUrl?: string | undefined; prefix?: string; onError?: (err: unknown) => void }): AuthVersions {
  return opts.redisUrl ? new RedisAuthVersions(opts.redisUrl, opts.prefix, opts.onError) : memoryAuthVersions(opts.prefix);
}
