import type { Queryable } from '@mp/db';
import type { WebhooksDeps } from './deps.js';
import { signatureHeaders } from './delivery/sign.js';
import { sendWebhook, type AttemptResult } from './delivery/send.js';
import { envelopeBody } from './envelope.js';

/** What an attempt needs of a claimed delivery, its event and its webhook. */
export interface ClaimedDelivery {
  id: string;
  attempts: number;
  event_id: string;
  event_type: string;
  occurred_at: string;
  data: unknown;
  webhook_id: string;
  url: string;
  secret_sealed: string;
  max_retries: number;
  retry_interval: number;
  active: boolean;
  deleted: boolean;
}

/** Spec §6.5: the n-th retry waits retry_interval × 5^(n-1) seconds (5 s, 25 s, 125 s by default). */
export function retryDelaySeconds(retryInterval: number, retryNumber: number): number {
  return retryInterval * 5 ** (retryNumber - 1);
}

/** Sends one attempt of a delivery (signed anew with a fresh timestamp) and returns the result. */
export async function sendAttempt(deps: Pick<WebhooksDeps, 'secrets' | 'sender'>, d: ClaimedDelivery): Promise<AttemptResult> {
  const body = envelopeBody({ event_id: d.event_id, event_type: d.event_type, occurred_at: d.occurred_at, data: d.data }, d.webhook_id);
  const headers = signatureHeaders(deps.secrets.open(d.secret_sealed), d.event_id, body);
  return sendWebhook({
    url: d.url,
    body,
    headers,
    timeoutMs: deps.sender.timeoutMs,
    maxRedirects: 3,
    allowPrivate: deps.sender.allowPrivate,
    ...(deps.sender.ca ? { ca: deps.sender.ca } : {}),
  });
}

/**
 * Records an attempt and moves the delivery on (spec §3): delivered; failed without retry (4xx,
 * refused target); or, for 5xx and time-outs, pending again after the back-off while retries
 * remain, failed once max_retries retries were used. `retry` is forced to `failed` when
 * `allowRetry` is false (test events get one attempt).
 */
export async function recordAttempt(q: Queryable, d: ClaimedDelivery, startedAt: Date, result: AttemptResult, allowRetry = true): Promise<'delivered' | 'failed' | 'pending'> {
  const attempt = d.attempts + 1;
  const retriesUsed = attempt - 1;
  let status: 'delivered' | 'failed' | 'pending';
  let nextAt: Date | null = null;
  if (result.outcome === 'delivered') status = 'delivered';
  else if (result.outcome === 'retry' && allowRetry && retriesUsed < d.max_retries) {
    status = 'pending';
    nextAt = new Date(Date.now() + retryDelaySeconds(d.retry_interval, retriesUsed + 1) * 1000);
  } else status = 'failed';

  await q.query(
    `INSERT INTO delivery_attempts (delivery_id, attempt, started_at, duration_ms, http_status, outcome, error)
     VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING`,
    [d.id, attempt, startedAt.toISOString(), result.durationMs, result.httpStatus, result.outcome, result.error],
  );
  await q.query(
    `UPDATE deliveries SET status = $2, attempts = $3, http_status = $4, duration_ms = $5, error = $6,
            delivered_at = CASE WHEN $2 = 'delivered' THEN now() ELSE NULL END,
            failed_at = CASE WHEN $2 = 'failed' THEN now() ELSE NULL END,
            next_attempt_at = $7, lease_until = NULL, updated_at = now()
      WHERE id = $1`,
    [d.id, status, attempt, result.httpStatus, result.durationMs, status === 'delivered' ? null : result.error, nextAt?.toISOString() ?? null],
  );
  return status;
}
