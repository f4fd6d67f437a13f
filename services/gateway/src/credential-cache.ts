import { createHash } from 'node:crypto';
import type { identity } from '@mp/contracts';
import { counter } from '@mp/kit';
import type { PrincipalVersions } from '@mp/runtime';

const lookups = counter({
  name: 'mp_gateway_credential_cache_total',
  help: "Credential checks of the gateway by how they were answered: 'hit' from this replica's cache, 'stale' refused by the tenant's published version, 'miss' asked of identity.",
  labelNames: ['result'],
});

interface Entry {
  principal: identity.Principal;
  version: number;
  /** No use after this instant (ms): the cache's own bound, or the credential's end. */
  until: number;
}

export interface CredentialCacheOptions {
  /** The store identity publishes principal versions to; null: nothing is cached. */
  versions: PrincipalVersions | null;
  /** Longest use of one answer (0: no cache). */
  ttlMs: number;
  /** Answers kept at most; the oldest go first. */
  maxEntries: number;
  now?: () => number;
}

/**
 * Identity's answers about credentials (who an API key or a session stands for, its permissions,
 * the tenant's plan), kept per gateway replica so that a steady stream of requests does not ask
 * identity each time (ADR 0100). No cached answer is ever visible: every use first reads the
 * tenant's principal version from the store identity publishes it to before any change of the
 * tenant's keys, users, sessions or plan commits, and uses the answer only if it reflects at
 * least that version. A store that cannot be read, an answer from another store or without a
 * version, and failures are never cached: those requests ask identity, as without a cache.
 */
export class CredentialCache {
  private readonly entries = new Map<string, Entry>();
  private readonly now: () => number;
  private storeId: string | null = null;

  constructor(private readonly opts: CredentialCacheOptions) {
    this.now = opts.now ?? Date.now;
  }

  get enabled(): boolean {
    return this.opts.versions !== null && this.opts.ttlMs > 0;
  }

  /** The key of an API key value in an environment (the value itself is never kept). */
  static apiKey(environment: string, key: string): string {
    return `k\u0000${environment}\u0000${createHash('sha256').update(key).digest('base64')}`;
  }

  /** The key of a verified access token's session, with everything CheckSession is asked. */
  static session(environment: string, c: { sid: string; sub: string; tid: string; scope: string; client_id?: string | undefined }): string {
    return `s\u0000${environment}\u0000${c.sid}\u0000${c.sub}\u0000${c.tid}\u0000${c.client_id ?? ''}\u0000${c.scope}`;
  }

  /**
   * The cached answer for `key`, if it reflects the tenant's current principal version; else
   * null (and `ask` is the caller's: identity, then `keep`).
   */
  async get(key: string): Promise<identity.Principal | null> {
    const versions = this.opts.versions;
    if (!versions || !this.enabled) return null;
    const entry = this.entries.get(key);
    if (!entry) {
      lookups.inc({ result: 'miss' });
      return null;
    }
    if (entry.until <= this.now()) {
      this.entries.delete(key);
      lookups.inc({ result: 'miss' });
      return null;
    }
    let current: number | null;
    try {
      current = await versions.read(entry.principal.tenantId);
    } catch {
      current = null;
    }
    // No published version (a store emptied or away): the answer cannot be checked, so identity is asked.
    if (current === null || entry.version < current) {
      this.entries.delete(key);
      lookups.inc({ result: 'stale' });
      return null;
    }
    lookups.inc({ result: 'hit' });
    return entry.principal;
  }

  /** Keeps identity's fresh answer for `key`, when it says it may be cached with this store. */
  async keep(key: string, principal: identity.Principal): Promise<void> {
    const versions = this.opts.versions;
    if (!versions || !this.enabled || principal.principalVersion === undefined || !principal.versionStore) return;
    if (principal.versionStore !== (await this.store(versions))) return;
    const now = this.now();
    const ends = principal.validUntil ? Date.parse(principal.validUntil) : Infinity;
    const until = Math.min(now + this.opts.ttlMs, ends);
    if (!(until > now)) return;
    if (this.entries.size >= this.opts.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(key, { principal, version: principal.principalVersion, until });
    // A store emptied by a restart holds no version until identity publishes the next change;
    // this answer, read after the emptying, names a version at least as new as any committed.
    await versions.seed(principal.tenantId, principal.principalVersion).catch(() => undefined);
  }

  private async store(versions: PrincipalVersions): Promise<string | null> {
    if (this.storeId === null) this.storeId = await versions.id().catch(() => null);
    return this.storeId;
  }
}
