import type { IdentityDeps } from './deps.js';

/**
 * The auth versions of one change of principals (ADR 0119). Inside the change's transaction,
 * `bump(tenant)` bumps the tenant's version (or every tenant's: `null`) before the commit: if the
 * store cannot be written, the change fails and nothing changed. After the commit, `settle()`
 * bumps the same versions again: a gateway that read the first bump, then asked identity before
 * the commit, cached the old state under the first bump's version; the second bump retires that
 * entry too. So once the change has been answered, no replica uses a principal read before it.
 */
export interface PrincipalChanges {
  bump(tenantId: string | null): Promise<void>;
  settle(): Promise<void>;
}

export function principalChanges(deps: Pick<IdentityDeps, 'authVersions' | 'logger'>): PrincipalChanges {
  const bumped = new Set<string | null>();
  return {
    async bump(tenantId) {
      await deps.authVersions.bump(tenantId);
      bumped.add(tenantId);
    },
    async settle() {
      for (const tenantId of bumped) {
        // The change is committed and was bumped once: a failure here leaves only entries read
        // between the first bump and the commit, which live at most MP_AUTH_CACHE_TTL_MS.
        await deps.authVersions
          .bump(tenantId)
          .catch((err: unknown) => deps.logger.error({ err, tenant_id: tenantId }, 'auth version bump after commit failed'));
      }
    },
  };
}
