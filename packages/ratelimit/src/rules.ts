/** The limits of docs/rules.md#limits, each with its error code. Windows are fixed per key. */
export type LimitKind = 'api' | 'data_records' | 'reports' | 'auth';

export interface LimitRule {
  points: number;
  durationSeconds: number;
  code: '429001' | '429002' | '429003' | '429005';
  what: string;
}

export const DEFAULT_LIMITS: Record<LimitKind, LimitRule> = {
  api: { points: 100, durationSeconds: 60, code: '429001', what: 'API requests per minute' },
  data_records: { points: 500, durationSeconds: 60, code: '429002', what: 'data records written per minute' },
  reports: { points: 10, durationSeconds: 3600, code: '429003', what: 'report generations per hour' },
  auth: { points: 10, durationSeconds: 60, code: '429005', what: 'authentication requests per minute' },
};

/** A tenant plan's limits per kind and its concurrency; 0 or absent = the operator default. */
export type PlanLimits = Partial<Record<LimitKind, number>> & { concurrency?: number };

/** At most 50 requests in flight at once (429004, docs/rules.md#limits). */
export const DEFAULT_CONCURRENCY = 50;

export interface Verdict {
  allowed: boolean;
  kind: LimitKind;
  limit: number;
  remaining: number;
  /** Unix time in seconds when the window resets. */
  resetAt: number;
  /** Seconds to wait before retrying (0 when allowed). */
  retryAfter: number;
}

/** The headers of docs/rules.md#rate-limit-headers, sent on every limited route; Retry-After only on refusals. */
export function rateLimitHeaders(v: Verdict): Record<string, string> {
  const h: Record<string, string> = {
    'X-RateLimit-Limit': String(v.limit),
    'X-RateLimit-Remaining': String(v.remaining),
    'X-RateLimit-Reset': String(v.resetAt),
  };
  if (!v.allowed) h['Retry-After'] = String(Math.max(1, v.retryAfter));
  return h;
}
