import type { Queryable } from '@mp/db';
import { DomainError } from '@mp/errors';
import type { IdentityDeps } from './deps.js';

/**
 * Call last in the transaction of every change that could make a gateway's cached answer about
 * a credential wrong — a key revoked or rolled, a user changed, disabled or deleted, a session
 * ended, an OAuth client deleted, a tenant's plan or a plan changed (ADR 0100). Raises the
 * version of the tenants' principals and publishes it to the store every gateway reads, before
 * the change commits. When the store cannot be told, the change is refused (503002: the error
 * rolls `tx` back), so no answered change is ever hidden by a cache.
 *
 * The UPDATE locks the tenant rows until the commit, so changes of one tenant's principals take
 * turns; they are rare, and the version published by the later one is the greater.
 */
export async function principalsChanged(
  deps: Pick<IdentityDeps, 'versions' | 'logger'>,
  tx: Queryable,
  of: { tenantIds: string[] } | { plan: string },
): Promise<void> {
  const { rows } = await tx.query<{ id: string; v: string | number }>(
    'tenantIds' in of
      ? 'UPDATE tenants SET principal_version = principal_version + 1 WHERE id = ANY($1::text[]) RETURNING id, principal_version AS v'
      : 'UPDATE tenants SET principal_version = principal_version + 1 WHERE plan = $1 RETURNING id, principal_version AS v',
    ['tenantIds' in of ? [...new Set(of.tenantIds)] : of.plan],
  );
  if (!deps.versions || rows.length === 0) return;
  try {
    await deps.versions.advance(rows.map((r) => ({ tenantId: r.id, version: Number(r.v) })));
  } catch (err) {
    deps.logger.warn({ err }, 'principal versions could not be published; the change is refused');
    throw new DomainError('503002', {
      field: null,
      detail: 'The change could not be made known to every gateway, so it was not made.',
      suggestion: 'Retry with exponential back-off (1 s, 2 s, 4 s).',
    });
  }
}
