import { counter, DURATION_BUCKETS, gauge, histogram } from '@mp/kit';
import type { AttemptResult } from './delivery/send.js';

/** Webhooks named by id in mp_webhook_success_rate: the lowest rates below the threshold only. */
export const SUCCESS_RATE_SERIES_CAP = 20;

/**
 * Prometheus metrics of the webhooks service, on the process registry (ADR 0036). Every label set
 * is bounded: outcomes and statuses, and webhook ids only on the success-rate series of at most
 * SUCCESS_RATE_SERIES_CAP webhooks, those below the threshold (the ones an operator must look at).
 */
export class WebhookMetrics {
  readonly attempts = counter({
    name: 'mp_webhook_attempts_total',
    help: 'Delivery attempts by outcome (delivered, failed, retry).',
    labelNames: ['outcome'],
  });
  readonly attemptDuration = histogram({
    name: 'mp_webhook_attempt_duration_seconds',
    help: 'Duration of delivery attempts, redirects included.',
    labelNames: ['outcome'],
    buckets: DURATION_BUCKETS,
  });
  readonly inFlight = gauge({ name: 'mp_webhook_attempts_in_flight', help: 'Delivery attempts in flight in this process.' });
  readonly eventsIngested = counter({
    name: 'mp_webhook_events_ingested_total',
    help: 'Domain events stored for delivery (at least one subscribed webhook; repeats excluded).',
  });
  readonly deliveriesCreated = counter({
    name: 'mp_webhook_deliveries_created_total',
    help: 'Deliveries created for ingested events.',
  });
  readonly deliveryLatency = histogram({
    name: 'mp_webhook_delivery_latency_seconds',
    help: 'From the event occurring to its delivery finishing (delivered or finally failed), retries included.',
    labelNames: ['outcome'],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 14400, 86400],
  });
  readonly successRate = gauge({
    name: 'mp_webhook_success_rate',
    help: `Webhooks below the success threshold (at most ${SUCCESS_RATE_SERIES_CAP}, the lowest): delivered / (delivered + failed) over the last 24 h. An alert below 0.95 is advised (docs/rules.md#success-rate).`,
    labelNames: ['webhook_id'],
  });
  readonly belowThreshold = gauge({
    name: 'mp_webhooks_below_success_threshold',
    help: 'Webhooks whose 24-hour delivery success rate is below the threshold (0.95), with enough finished deliveries to judge.',
  });
  readonly lowestSuccessRate = gauge({
    name: 'mp_webhook_success_rate_lowest',
    help: 'The lowest 24-hour delivery success rate of any webhook with enough finished deliveries to judge (1 when none).',
  });
  readonly deliveries24h = gauge({
    name: 'mp_webhook_deliveries_24h',
    help: 'Deliveries created in the last 24 h, by status, all webhooks together.',
    labelNames: ['status'],
  });

  observeAttempt(result: Pick<AttemptResult, 'outcome' | 'durationMs'>): void {
    this.attempts.inc({ outcome: result.outcome });
    this.attemptDuration.observe({ outcome: result.outcome }, result.durationMs / 1000);
  }
}
