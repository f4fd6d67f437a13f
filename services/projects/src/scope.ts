import { DomainError } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';

/**
 * Tenant and environment isolation of a row fetched by id (docs/rules.md#tenant-isolation): another
 * tenant's resource is 403003 and never shows its content; the other environment of the caller's
 * own tenant shares no data with this one, so there the resource simply does not exist.
 */
export function inScope<R extends { tenant_id: string; environment: string }>(
  row: R | undefined,
  ctx: CallerContext,
  field: string,
  notFound: () => DomainError,
): R {
  if (!row) throw notFound();
  if (row.tenant_id !== ctx.tenantId) {
    throw new DomainError('403003', { field, detail: `${field} names a resource of another tenant.` });
  }
  if (row.environment !== ctx.environment) throw notFound();
  return row;
}
