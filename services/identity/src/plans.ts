import type { identity } from '@mp/contracts';
import type { Queryable } from '@mp/db';
import { DomainError } from '@mp/errors';
import type { Environment } from './environment.js';

/**
 * Features a plan can license. A tenant whose plan lacks one gets 403004 where it is used:
 * `sandbox` at every sign-in and request of the sandbox environment, `oauth` when registering or
 * using OAuth clients, `reports` and `data_batches` where the gateway applies requireFeature.
 */
export const FEATURES = ['sandbox', 'oauth', 'reports', 'data_batches'] as const;
export type Feature = (typeof FEATURES)[number];

/** The plan every tenant starts on: every feature, the operator's default limits. */
export const DEFAULT_PLAN = 'standard';

export interface PlanRow {
  name: string;
  features: string[];
  api_per_minute: number;
  data_records_per_minute: number;
  reports_per_hour: number;
  concurrent_requests: number;
  raw_retention_months: number | null;
}

export const PLAN_COLUMNS =
  'p.name, p.features, p.api_per_minute, p.data_records_per_minute, p.reports_per_hour, p.concurrent_requests, p.raw_retention_months';

export function toPlan(row: PlanRow): identity.Plan {
  return {
    name: row.name,
    features: row.features,
    limits: {
      apiPerMinute: row.api_per_minute,
      dataRecordsPerMinute: row.data_records_per_minute,
      reportsPerHour: row.reports_per_hour,
      concurrentRequests: row.concurrent_requests,
    },
    ...(row.raw_retention_months !== null ? { rawRetentionMonths: row.raw_retention_months } : {}),
  };
}

/** The plan of a tenant (its row joined with the tenant's). */
export async function tenantPlan(q: Queryable, tenantId: string): Promise<identity.Plan> {
  const { rows } = await q.query<PlanRow>(`SELECT ${PLAN_COLUMNS} FROM tenants t JOIN plans p ON p.name = t.plan WHERE t.id = $1`, [tenantId]);
  if (!rows[0]) throw new Error(`tenant ${tenantId} has no plan`);
  return toPlan(rows[0]);
}

const FEATURE_NAMES: Record<Feature, string> = {
  sandbox: 'The sandbox environment',
  oauth: 'OAuth 2.0 applications',
  reports: 'Report generation',
  data_batches: 'Batch data uploads',
};

export function notLicensed(feature: Feature, plan: identity.Plan, field: string | null = null): DomainError {
  return new DomainError('403004', {
    field,
    detail: `${FEATURE_NAMES[feature]} is not part of your plan (${plan.name}).`,
    suggestion: 'Ask your tenant administrator to move the tenant to a plan that includes it.',
  });
}

export function requireFeature(plan: identity.Plan, feature: Feature, field: string | null = null): void {
  if (!plan.features.includes(feature)) throw notLicensed(feature, plan, field);
}

/** Every way in (login, refresh, token, key) checks this: the sandbox is a licensed feature. */
export function requireEnvironment(plan: identity.Plan, environment: Environment): void {
  if (environment === 'sandbox') requireFeature(plan, 'sandbox');
}
