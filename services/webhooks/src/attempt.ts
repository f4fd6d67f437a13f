import { ASYNC_COMMIT_SQL, type Queryable } from '@mp/db';
import { contextFrom, inSpan, linkTo, SpanKind, SpanStatusCode } from '@mp/kit';
import type { WebhooksDeps } from './deps.js';
import { signatureHeaders } from './delivery/sign.js';
import { sendWebhook, type AttemptResult } from './delivery/send.js';
import { envelopeBody } from './envelope.js';

/** What an attempt needs of a claimed delivery, its event and its webhook. */
export interface ClaimedDelivery {
  id: string;
  /** Attempts already made in the current cycle. */
  attempts: number;
  cycle: number;
  event_id: string;
  event_type: string;
  occurred_at: string;
  data: unknown;
  /** The trace context stored with the event (null when untraced). */
  traceparent: string | null;
  webhook_id: string;
  /** The webhook's tenant: its attempts in flight count against the tenant's share of the slots. */
  tenant_id: string;
  url: string;
  /** The secret that signs now (the old one during a rotation's grace period). */
  secret_sealed: string;
  max_retries: number;
  retry_interval: number;
  active: boolean;
  deleted: boolean;
}

/** docs/rules.md#retry-policy: the n-th retry waits retry_interval × 5^(n-1) seconds (5 s, 25 s, 125 s by default). */
export function retryDelaySeconds(retryInterval: number, retryNumber: number): number {
  return retryInterval * 5 ** (retryNumber - 1);
}

/**
 * The client span of one attempt (ADR 0037). A delivery's first attempt continues the trace of its
 * event (the write that caused it, through outbox, stream and consumer); a retry or resend, minutes
 * or hours later, starts a trace of its own linked to the event's, so one slow receiver does not
 * stretch the write's trace over hours. The span stands for the attempt's HTTPS requests
 * (redirects included), so they make no spans of their own; the receiver gets no trace header.
 */
function attemptSpan<T>(d: ClaimedDelivery, fn: () => Promise<T & Pick<AttemptResult, 'outcome' | 'httpStatus' | 'redirects'>>): Promise<T> {
  const first = d.attempts === 0 && d.cycle === 1;
  return inSpan(
    'webhook POST',
    {
      kind: SpanKind.CLIENT,
      quiet: true,
      ...(d.traceparent ? (first ? { parent: contextFrom(d.traceparent) } : { parent: contextFrom(null), links: linkTo(d.traceparent) }) : {}),
      attributes: {
        'http.request.method': 'POST',
        'server.address': hostOf(d.url),
        'mp.webhook_id': d.webhook_id,
        'mp.delivery_id': d.id,
        'mp.event_type': d.event_type,
        'mp.attempt': d.attempts + 1,
        'mp.cycle': d.cycle,
      },
    },
    async (span) => {
      const result = await fn();
      span.setAttributes({
        'mp.outcome': result.outcome,
        'mp.redirects': result.redirects,
        ...(result.httpStatus !== null ? { 'http.response.status_code': result.httpStatus } : {}),
      });
      if (result.outcome !== 'delivered') span.setStatus({ code: SpanStatusCode.ERROR, message: `attempt ${result.outcome}` });
      return result;
    },
  );
}

const hostOf = (url: string): string => {
  try {
    return new URL(url).host;
  } catch {
    return 'invalid';
  }
};

/** Sends one attempt of a delivery (signed anew with a fresh timestamp) and returns the result. */
export async function sendAttempt(deps: Pick<WebhooksDeps, 'secrets' | 'sender'>, d: ClaimedDelivery): Promise<AttemptResult> {
  return attemptSpan(d, () => send(deps, d));
}

function send(deps: Pick<WebhooksDeps, 'secrets' | 'sender'>, d: ClaimedDelivery): Promise<AttemptResult> {
  const body = envelopeBody({ event_id: d.event_id, event_type: d.event_type, occurred_at: d.occurred_at, data: d.data }, d.webhook_id);
  const headers = signatureHeaders(deps.secrets.open(d.secret_sealed), d.event_id, body);
  return sendWebhook({
    url: d.url,
    body,
    headers,
    timeoutMs: deps.sender.timeoutMs,
    maxRedirects: 3,
    allowPrivate: deps.sender.allowPrivate,
    ...(deps.sender.secureContext ? { secureContext: deps.sender.secureContext } : {}),
    ...(deps.sender.agent ? { agent: deps.sender.agent } : {}),
  });
}

export type DeliveryStatus = 'delivered' | 'failed' | 'pending';

/** One finished attempt, ready to be recorded. */
export interface AttemptRecord {
  delivery: ClaimedDelivery;
  startedAt: Date;
  finishedAt: Date;
  result: AttemptResult;
  /** False for test events: one attempt, no retries. */
  allowRetry: boolean;
}

/**
 * Where a delivery goes after an attempt (docs/rules.md#delivery-outcomes): any 2xx delivered; 4xx, refused targets and
 * other final failures failed; 5xx, time-outs and connection failures pending again after the
 * back-off while retries remain, failed once max_retries retries were used. The back-off counts
 * from the end of the attempt: retry n is due retry_interval × 5^(n-1) seconds after it.
 */
export function nextStep(r: Pick<AttemptRecord, 'delivery' | 'finishedAt' | 'result' | 'allowRetry'>): {
  attempt: number;
  status: DeliveryStatus;
  nextAttemptAt: Date | null;
} {
  const attempt = r.delivery.attempts + 1;
  const retriesUsed = attempt - 1;
  if (r.result.outcome === 'delivered') return { attempt, status: 'delivered', nextAttemptAt: null };
  if (r.result.outcome === 'retry' && r.allowRetry && retriesUsed < r.delivery.max_retries) {
    return {
      attempt,
      status: 'pending',
      nextAttemptAt: new Date(r.finishedAt.getTime() + retryDelaySeconds(r.delivery.retry_interval, retriesUsed + 1) * 1000),
    };
  }
  return { attempt, status: 'failed', nextAttemptAt: null };
}

/**
 * Records finished attempts in one statement: each attempt row, and the delivery moved on. The
 * update only applies while the delivery is still pending in the same cycle with the attempt
 * count the attempt started from; so a late record (a lease that lapsed, a resend, a delete in
 * between) never overwrites newer state, and recording the same attempt twice is harmless.
 * Committed with synchronous_commit off (ASYNC_COMMIT_SQL): a database crash can only forget an
 * outcome, and the delivery is then attempted again after its lease (a repeat, never a loss).
 * Resolves with the new status of each record (null where the delivery had moved on).
 */
export async function recordAttempts(q: Queryable, records: AttemptRecord[]): Promise<(DeliveryStatus | null)[]> {
  if (records.length === 0) return [];
  const steps = records.map(nextStep);
  const col = <T>(f: (r: AttemptRecord, i: number) => T) => records.map(f);
  const { rows } = await q.query<{ id: string; status: DeliveryStatus }>(
    `WITH ${ASYNC_COMMIT_SQL}, input AS (
       SELECT * FROM unnest($1::text[], $2::int[], $3::int[], $4::timestamptz[], $5::timestamptz[], $6::int[], $7::int[],
                            $8::text[], $9::text[], $10::int[], $11::text[], $12::timestamptz[])
         AS t(delivery_id, cycle, attempt, started_at, finished_at, duration_ms, http_status, outcome, error, redirects, status, next_attempt_at)
          -- The state an attempt starts from, compared as a column: a constant status = 'pending'
          -- on d would let the planner drive the update from the partial indexes of open rows,
          -- which stale statistics put at about one row: it then read them all for every batch
          -- (ADR 0058). Compared so, only the primary key reaches d.
          CROSS JOIN (VALUES ('pending')) AS f(from_status)
     ), attempts AS (
       INSERT INTO delivery_attempts (delivery_id, cycle, attempt, started_at, finished_at, duration_ms, http_status, outcome, error, redirects, retry_at)
       SELECT delivery_id, cycle, attempt, started_at, finished_at, duration_ms, http_status, outcome, error, redirects, next_attempt_at FROM input
       ON CONFLICT DO NOTHING
     )
     UPDATE deliveries d
        SET status = i.status, attempts = i.attempt, http_status = i.http_status, duration_ms = i.duration_ms,
            error = CASE WHEN i.status = 'delivered' THEN NULL ELSE i.error END,
            delivered_at = CASE WHEN i.status = 'delivered' THEN i.finished_at END,
            failed_at = CASE WHEN i.status = 'failed' THEN i.finished_at END,
            next_attempt_at = i.next_attempt_at, lease_until = NULL, updated_at = now()
       FROM input i CROSS JOIN async_commit
      WHERE d.id = i.delivery_id AND d.cycle = i.cycle AND d.attempts = i.attempt - 1 AND d.status = i.from_status
     RETURNING d.id, d.status`,
    [
      col((r) => r.delivery.id),
      col((r) => r.delivery.cycle),
      steps.map((s) => s.attempt),
      col((r) => r.startedAt.toISOString()),
      col((r) => r.finishedAt.toISOString()),
      col((r) => r.result.durationMs),
      col((r) => r.result.httpStatus),
      // The attempt's effect on the delivery: the 5xx that used up the last retry is 'failed'.
      steps.map((s) => (s.status === 'pending' ? 'retry' : s.status)),
      col((r) => r.result.error),
      col((r) => r.result.redirects),
      steps.map((s) => s.status),
      steps.map((s) => s.nextAttemptAt?.toISOString() ?? null),
    ],
    { prepare: 'webhooks_record_attempts' },
  );
  const applied = new Map(rows.map((r) => [r.id, r.status]));
  return records.map((r) => applied.get(r.delivery.id) ?? null);
}
