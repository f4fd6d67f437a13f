import type { identity } from '@mp/contracts';
import type { IdentityDeps } from './deps.js';

/**
 * What a gateway needs to cache an answer about a credential (ADR 0100): the tenant's principal
 * version read with the answer, the store that version is published in, and when the credential
 * ends on its own. Without a store nothing is published, and the answer carries no store: not
 * cacheable.
 */
export async function cacheFields(
  deps: Pick<IdentityDeps, 'versions'>,
  principalVersion: string | number,
  validUntil: Date | null,
): Promise<Pick<identity.Principal, 'principalVersion' | 'versionStore' | 'validUntil'>> {
  if (!deps.versions) return {};
  const store = await deps.versions.id().catch(() => null);
  if (store === null) return {};
  return { principalVersion: Number(principalVersion), versionStore: store, ...(validUntil ? { validUntil: validUntil.toISOString() } : {}) };
}
