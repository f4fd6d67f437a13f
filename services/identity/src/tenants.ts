import type { identity } from '@mp/contracts';
import type { Queryable } from '@mp/db';
import { DomainError, excerpt } from '@mp/errors';
import { PLAN_COLUMNS, toPlan, type PlanRow } from './plans.js';

interface TenantRow extends PlanRow {
  id: string;
  tenant_name: string;
  created_at: string;
}

/** A tenant with its plan (404 family has no tenant code: an unknown tenant is 422104 for operators). */
export async function loadTenant(q: Queryable, id: string): Promise<identity.Tenant> {
  const { rows } = await q.query<TenantRow>(
    `SELECT t.id, t.name AS tenant_name, t.created_at, ${PLAN_COLUMNS} FROM tenants t JOIN plans p ON p.name = t.plan WHERE t.id = $1`,
    [id],
  );
  const row = rows[0];
  if (!row) throw new DomainError('422104', { field: 'tenant_id', detail: `Tenant ${id} does not exist.`, suggestion: 'Check the tenant id.' });
  return { id: row.id, name: row.tenant_name, plan: toPlan(row), createdAt: row.created_at };
}

export async function requirePlan(q: Queryable, name: string, field = 'plan'): Promise<void> {
  const { rows } = await q.query('SELECT 1 FROM plans WHERE name = $1', [name]);
  if (rows.length === 0)
    throw new DomainError('422104', { field, detail: `Plan ${excerpt(name)} does not exist.`, suggestion: 'Create it with UpsertPlan first.' });
}
