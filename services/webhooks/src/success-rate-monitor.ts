import type { Logger } from '@mp/kit';
import type { WebhooksDeps } from './deps.js';
import { deliveryStats, STATS_WINDOW_HOURS } from './delivery-stats.js';
import { SUCCESS_RATE_SERIES_CAP } from './metrics.js';

export interface MonitorOptions {
  /** How often the rates are recomputed. */
  intervalMs: number;
  /** docs/rules.md#success-rate: raise an alarm when the delivery success rate falls below 95 percent. */
  threshold?: number;
  /** Finished deliveries needed before a rate is judged (one failure out of three is no alarm). */
  minFinished?: number;
}

/**
 * Recomputes every webhook's 24-hour success rate, publishes it as the mp_webhook_success_rate
 * gauges (bounded: totals, and the lowest few webhooks by id), and logs an alarm (pino warn, `alarm: "webhook_success_rate_low"`) when a webhook falls
 * below the threshold, once per fall; a recovery is logged at info. Every replica computes the
 * same numbers from the database, so any replica's /metrics is right.
 */
export class SuccessRateMonitor {
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private running: Promise<void> | null = null;
  private readonly alarmed = new Set<string>();

  constructor(
    private readonly deps: Pick<WebhooksDeps, 'db' | 'metrics'>,
    private readonly logger: Logger,
    private readonly opts: MonitorOptions,
  ) {}

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  /** One pass; also called by tests to avoid waiting for the interval. */
  async refresh(): Promise<void> {
    const threshold = this.opts.threshold ?? 0.95;
    const minFinished = this.opts.minFinished ?? 20;
    const { rows: hooks } = await this.deps.db.query<{ id: string; tenant_id: string; environment: string; name: string }>(
      'SELECT id, tenant_id, environment, name FROM webhooks WHERE deleted_at IS NULL',
    );
    const stats = await deliveryStats(
      this.deps.db,
      hooks.map((h) => h.id),
    );
    const seen = new Set<string>();
    const totals = { delivered: 0, failed: 0, pending: 0 };
    const low: { id: string; rate: number }[] = [];
    let lowest = 1;
    for (const hook of hooks) {
      const s = stats.get(hook.id);
      if (!s) continue;
      seen.add(hook.id);
      for (const status of ['delivered', 'failed', 'pending'] as const) totals[status] += s[status];
      if (s.success_rate === null) continue;
      const fields = {
        webhook_id: hook.id,
        webhook_name: hook.name,
        tenant_id: hook.tenant_id,
        environment: hook.environment,
        success_rate: s.success_rate,
        delivered: s.delivered,
        failed: s.failed,
        window_hours: STATS_WINDOW_HOURS,
        threshold,
      };
      const judged = s.delivered + s.failed >= minFinished;
      if (judged) lowest = Math.min(lowest, s.success_rate);
      const isLow = s.success_rate < threshold && judged;
      if (isLow) low.push({ id: hook.id, rate: s.success_rate });
      if (isLow && !this.alarmed.has(hook.id)) {
        this.alarmed.add(hook.id);
        this.logger.warn(
          { alarm: 'webhook_success_rate_low', ...fields },
          `webhook delivery success rate ${(s.success_rate * 100).toFixed(2)}% is below ${threshold * 100}%`,
        );
      } else if (!isLow && s.success_rate >= threshold && this.alarmed.delete(hook.id)) {
        this.logger.info({ alarm: 'webhook_success_rate_recovered', ...fields }, `webhook delivery success rate back at ${(s.success_rate * 100).toFixed(2)}%`);
      }
    }
    const { metrics } = this.deps;
    for (const status of ['delivered', 'failed', 'pending'] as const) metrics.deliveries24h.set({ status }, totals[status]);
    metrics.belowThreshold.set(low.length);
    metrics.lowestSuccessRate.set(lowest);
    // Only the lowest few are named, so the series stay bounded however many webhooks there are.
    metrics.successRate.reset();
    for (const { id, rate } of low.sort((a, b) => a.rate - b.rate).slice(0, SUCCESS_RATE_SERIES_CAP)) metrics.successRate.set({ webhook_id: id }, rate);
    // Webhooks deleted (or without deliveries any more) can alarm afresh later.
    for (const id of this.alarmed) if (!seen.has(id)) this.alarmed.delete(id);
  }

  private schedule(delayMs: number): void {
    this.timer = setTimeout(() => {
      this.timer = null;
      this.running = this.refresh()
        .catch((err) => this.logger.warn({ err }, 'could not compute webhook success rates; trying again later'))
        .finally(() => {
          this.running = null;
          if (!this.stopped) this.schedule(this.opts.intervalMs);
        });
    }, delayMs);
  }
}
