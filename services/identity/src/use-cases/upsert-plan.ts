import type { identity } from '@mp/contracts';
import { DomainError, excerpt } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import { requireSystem } from '../caller.js';
import type { IdentityDeps } from '../deps.js';
import { FEATURES, PLAN_COLUMNS, toPlan, type PlanRow } from '../plans.js';
import { principalChanges } from '../principal-changes.js';

const PLAN_NAME = /^[a-z0-9][a-z0-9_-]{0,49}$/;
/** 100 years: more is "forever", which is said by leaving the setting out. */
const MAX_RETENTION_MONTHS = 1200;
const LIMIT_FIELDS = ['apiPerMinute', 'dataRecordsPerMinute', 'reportsPerHour', 'concurrentRequests'] as const;

/**
 * Operator RPC: creates or changes a plan (features and limits; a limit of 0 = operator default;
 * raw readings kept for raw_retention_months, forever when absent).
 */
export async function upsertPlan(deps: IdentityDeps, req: identity.Plan, ctx: CallerContext): Promise<identity.Plan> {
  requireSystem(ctx);
  if (!PLAN_NAME.test(req.name)) {
    throw new DomainError('422103', { field: 'name', detail: 'A plan name is 1 to 50 lowercase letters, digits, - or _.', suggestion: 'Use e.g. "starter".' });
  }
  req.features.forEach((f, i) => {
    if (!(FEATURES as readonly string[]).includes(f)) {
      throw new DomainError('422103', { field: `features[${i}]`, detail: `${excerpt(f)} is not a feature.`, suggestion: `Use only: ${FEATURES.join(', ')}.` });
    }
  });
  const limits = req.limits ?? { apiPerMinute: 0, dataRecordsPerMinute: 0, reportsPerHour: 0, concurrentRequests: 0 };
  for (const f of LIMIT_FIELDS) {
    if (!Number.isInteger(limits[f]) || limits[f] < 0) {
      throw new DomainError('400003', {
        field: `limits.${f}`,
        detail: `${f} must be a whole number ≥ 0 (0 = operator default).`,
        suggestion: 'Send 0 or a positive limit.',
      });
    }
  }
  const retention = req.rawRetentionMonths ?? null;
  if (retention !== null && (!Number.isInteger(retention) || retention < 1 || retention > MAX_RETENTION_MONTHS)) {
    throw new DomainError('400003', {
      field: 'raw_retention_months',
      detail: `raw_retention_months must be a whole number of months from 1 to ${MAX_RETENTION_MONTHS}.`,
      suggestion: 'Leave it out to keep raw readings forever.',
    });
  }
  const now = deps.clock.now().toISOString();
  // A plan is shared by tenants: every tenant's auth version is bumped (ADR 0119), before the
  // write (a failed bump writes nothing) and after it.
  const changes = principalChanges(deps);
  await changes.bump(null);
  const { rows } = await deps.db.query<PlanRow>(
    `INSERT INTO plans AS p (name, features, api_per_minute, data_records_per_minute, reports_per_hour, concurrent_requests, raw_retention_months, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $8, $7, $7)
     ON CONFLICT (name) DO UPDATE SET features = EXCLUDED.features, api_per_minute = EXCLUDED.api_per_minute,
       data_records_per_minute = EXCLUDED.data_records_per_minute, reports_per_hour = EXCLUDED.reports_per_hour,
       concurrent_requests = EXCLUDED.concurrent_requests, raw_retention_months = EXCLUDED.raw_retention_months, updated_at = EXCLUDED.updated_at
     RETURNING ${PLAN_COLUMNS}`,
    [req.name, [...new Set(req.features)], limits.apiPerMinute, limits.dataRecordsPerMinute, limits.reportsPerHour, limits.concurrentRequests, now, retention],
  );
  await changes.settle();
  deps.logger.info({ plan: req.name, request_id: ctx.requestId }, 'plan saved');
  return toPlan(rows[0]!);
}
