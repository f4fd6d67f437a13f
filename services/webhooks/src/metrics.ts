import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { AttemptResult } from './delivery/send.js';

/**
 * Prometheus metrics of one webhooks service (its own registry, so several services in one
 * process or test never collide). Per-webhook series carry only the webhook id: at most 50
 * webhooks per tenant and environment keeps the label set bounded.
 */
export class WebhookMetrics {
  readonly registry = new Registry();
  readonly attempts = new Counter({
    name: 'mp_webhook_attempts_total',
    help: 'Delivery attempts by outcome (delivered, failed, retry).',
    labelNames: ['outcome'],
    registers: [this.registry],
  });
  readonly attemptDuration = new Histogram({
    name: 'mp_webhook_attempt_duration_seconds',
    help: 'Duration of delivery attempts, redirects included.',
    labelNames: ['outcome'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });
  readonly inFlight = new Gauge({ name: 'mp_webhook_attempts_in_flight', help: 'Delivery attempts in flight in this process.', registers: [this.registry] });
  readonly eventsIngested = new Counter({
    name: 'mp_webhook_events_ingested_total',
    help: 'Domain events stored for delivery (at least one subscribed webhook; repeats excluded).',
    registers: [this.registry],
  });
  readonly deliveriesCreated = new Counter({
    name: 'mp_webhook_deliveries_created_total',
    help: 'Deliveries created for ingested events.',
    registers: [this.registry],
  });
  readonly successRate = new Gauge({
    name: 'mp_webhook_success_rate',
    help: 'Per webhook: delivered / (delivered + failed) over deliveries created in the last 24 h that have finished. Spec §6.5 advises an alarm below 0.95.',
    labelNames: ['webhook_id'],
    registers: [this.registry],
  });
  readonly deliveries24h = new Gauge({
    name: 'mp_webhook_deliveries_24h',
    help: 'Per webhook and status: deliveries created in the last 24 h.',
    labelNames: ['webhook_id', 'status'],
    registers: [this.registry],
  });

  private defaultsCollected = false;

  observeAttempt(result: Pick<AttemptResult, 'outcome' | 'durationMs'>): void {
    this.attempts.inc({ outcome: result.outcome });
    this.attemptDuration.observe({ outcome: result.outcome }, result.durationMs / 1000);
  }

  /** Process metrics (memory, event loop lag, …); only for a process that serves /metrics. */
  collectProcessMetrics(): void {
    if (this.defaultsCollected) return;
    this.defaultsCollected = true;
    collectDefaultMetrics({ register: this.registry, prefix: 'mp_webhooks_' });
  }
}
