import { createHash } from 'node:crypto';
import type { identity } from '@mp/contracts';
import type { AuthVersions } from '@mp/ratelimit';

export interface CredentialCacheOptions {
  /** Entries kept at most (MP_AUTH_CACHE_ENTRIES); the oldest goes first. 0 turns the cache off. */
  maxEntries: number;
  /** How long an entry is used at most (MP_AUTH_CACHE_TTL_MS), whatever the versions say. */
  ttlMs: number;
  now?: () => number;
}

interface Entry {
  tenantId: string;
  /** The tenant's auth versions read before identity was asked; null: not usable yet (see principal). */
  version: string | null;
  principal: identity.Principal;
  /** Epoch ms after which the entry is not used: its lifetime, and the credential's own end. */
  until: number;
}

/**
 * The gateway's per-replica cache of what identity answers per request — who an API key or a
 * session stands for, its permissions and its tenant's plan (ADR 0119). Nobody can see it:
 *
 * - before an entry is used, the tenant's auth versions are read from the store identity bumps on
 *   every change of a principal (one Redis MGET, auto-pipelined; in the embedded default, this
 *   process's memory), and the entry is used only when they are exactly those it was read at. A
 *   revoked or rolled key, a logout, a changed, disabled or deleted user, a plan change therefore
 *   reaches every replica at the next request, bus or no bus;
 * - the versions are read *before* identity is asked, and the answer is stored under them: a
 *   change that commits meanwhile bumps past them (identity bumps before its commit and after);
 * - a store that cannot be read, or an identity that bumps another store (`versions_store` of the
 *   principal), means no entry is used or made: identity is asked, as without the cache;
 * - refusals are never cached; an entry lives at most `ttlMs` and never past the credential's own
 *   end (an API key's expiry, a rolled value's grace period, an access token's `exp`);
 * - the first answer for a credential only records its tenant (its versions could not be read
 *   before identity named the tenant); the second is cached. Bearer tokens name their tenant, so
 *   theirs is cached at once.
 *
 * Keys are SHA-256 digests of the credential with the environment and the authentication method,
 * so the cache holds no usable secret.
 */
export class CredentialCache {
  private readonly entries = new Map<string, Entry>();
  private readonly now: () => number;
  /** Answers from the cache, and questions to identity made while the cache is on. */
  readonly counts = { hits: 0, misses: 0 };

  constructor(
    private readonly versions: AuthVersions,
    private readonly opts: CredentialCacheOptions,
  ) {
    this.now = opts.now ?? Date.now;
  }

  get enabled(): boolean {
    return this.opts.maxEntries > 0 && this.opts.ttlMs > 0;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The cache key of a credential: a digest, never the credential itself. */
  static key(kind: string, environment: string, credential: string): string {
    return createHash('sha256').update(`${kind}\0${environment}\0${credential}`).digest('base64url');
  }

  /**
   * The principal for a credential: the cached one when its versions are current, else `ask()`
   * (identity), remembered under the versions read before asking. `tenantHint` is the tenant the
   * credential names itself (a bearer token's `tid`); `endsAt` its own end in epoch ms.
   */
  async principal(key: string, ask: () => Promise<identity.Principal>, hint: { tenantId?: string; endsAt?: number } = {}): Promise<identity.Principal> {
    if (!this.enabled) return ask();
    const now = this.now();
    let entry = this.entries.get(key);
    if (entry && entry.until <= now) {
      this.entries.delete(key);
      entry = undefined;
    }
    const tenantId = entry?.tenantId ?? hint.tenantId;
    const version = tenantId ? await this.versions.read(tenantId) : null;
    if (entry && version !== null && entry.version === version) {
      this.counts.hits++;
      return entry.principal;
    }
    this.counts.misses++;
    let principal: identity.Principal;
    try {
      principal = await ask();
    } catch (err) {
      this.entries.delete(key);
      throw err;
    }
    this.remember(key, principal, tenantId === principal.tenantId ? version : null, now, hint.endsAt);
    return principal;
  }

  /** `mp_gateway_credential_cache_*` in the Prometheus text format. */
  metricLines(): string[] {
    return [
      '# HELP mp_gateway_credential_cache_hits_total Requests authenticated from the credential cache (ADR 0119).',
      '# TYPE mp_gateway_credential_cache_hits_total counter',
      `mp_gateway_credential_cache_hits_total ${this.counts.hits}`,
      '# HELP mp_gateway_credential_cache_misses_total Requests for which identity was asked while the cache is on.',
      '# TYPE mp_gateway_credential_cache_misses_total counter',
      `mp_gateway_credential_cache_misses_total ${this.counts.misses}`,
      '# HELP mp_gateway_credential_cache_entries Entries held by the credential cache.',
      '# TYPE mp_gateway_credential_cache_entries gauge',
      `mp_gateway_credential_cache_entries ${this.entries.size}`,
    ];
  }

  private remember(key: string, principal: identity.Principal, version: string | null, now: number, endsAt?: number): void {
    // Identity bumps another store (a misconfiguration: MP_REDIS_URL or MP_REDIS_PREFIX differ): never cache.
    if (principal.versionsStore !== this.versions.id) {
      this.entries.delete(key);
      return;
    }
    const ends = [now + this.opts.ttlMs];
    if (endsAt !== undefined) ends.push(endsAt);
    if (principal.validUntil) ends.push(Date.parse(principal.validUntil));
    const until = Math.min(...ends.filter((t) => !Number.isNaN(t)));
    if (until <= now) return;
    this.entries.delete(key);
    while (this.entries.size >= this.opts.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { tenantId: principal.tenantId, version, principal, until });
  }
}
