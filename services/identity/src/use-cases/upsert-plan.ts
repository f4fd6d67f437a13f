import type { identity } from '@mp/contracts';
import { DomainError, excerpt } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import { requireSystem } from '../caller.js';
import type { IdentityDeps } from '../deps.js';
import { FEATURES, PLAN_COLUMNS, toPlan, type PlanRow } from '../plans.js';

const PLAN_NAME = /^[a-z0-9][a-z0-9_-]{0,49}$/;
const LIMIT_FIELDS = ['apiPerMinute', 'dataRecordsPerMinute', 'reportsPerHour', 'concurrentRequests'] as const;

/** Operator RPC: creates or changes a plan (features and limits; a limit of 0 = operator default). */
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
  const now = deps.clock.now().toISOString();
  const { rows } = await deps.db.query<PlanRow>(
    `INSERT INTO plans AS p (name, features, api_per_minute, data_records_per_minute, reports_per_hour, concurrent_requests, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $7)
     ON CONFLICT (name) DO UPDATE SET features = EXCLUDED.features, api_per_minute = EXCLUDED.api_per_minute,
       data_records_per_minute = EXCLUDED.data_records_per_minute, reports_per_hour = EXCLUDED.reports_per_hour,
       concurrent_requests = EXCLUDED.concurrent_requests, updated_at = EXCLUDED.updated_at
     RETURNING ${PLAN_COLUMNS}`,
    [req.name, [...new Set(req.features)], limits.apiPerMinute, limits.dataRecordsPerMinute, limits.reportsPerHour, limits.concurrentRequests, now],
  );
  deps.logger.info({ plan: req.name, request_id: ctx.requestId }, 'plan saved');
  return toPlan(rows[0]!);
}
