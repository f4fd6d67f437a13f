import type { identity } from '@mp/contracts';
import type { IdentityDeps } from '../deps.js';

/**
 * Each tenant's raw retention, from its plan: what the monitoring-data archive job needs to know
 * which months of a tenant's readings to archive (tenants on a plan without one are left out:
 * their readings are kept forever). Only the monitoring-data service may call it (caller policy).
 */
export async function listRawRetention(deps: IdentityDeps): Promise<identity.RawRetentionList> {
  const { rows } = await deps.db.query<{ tenant_id: string; months: number }>(
    `SELECT t.id AS tenant_id, p.raw_retention_months AS months
       FROM tenants t JOIN plans p ON p.name = t.plan
      WHERE p.raw_retention_months IS NOT NULL
      ORDER BY t.id`,
  );
  return { tenants: rows.map((r) => ({ tenantId: r.tenant_id, rawRetentionMonths: r.months })) };
}
