import type { Database } from '@mp/db';
import { counter, histogram, oncePerScrape, sampledGauge } from '@mp/kit';

/** How a generation attempt ended: the bounded `outcome` label of the report job metrics. */
export type JobOutcome = 'generated' | 'failed' | 'handed_over' | 'retry';

/**
 * Prometheus metrics of report generation (ADR 0036: on the process registry, bounded
 * labels only). Attempts and their durations are counted by the process that ran them; the queue
 * (reports waiting as `generating`) is read from the database when scraped, so every replica
 * reports the same figures and dashboards take the max, not the sum.
 */
export class ReportMetrics {
  readonly jobs = counter({
    name: 'mp_report_jobs_total',
    help: 'Report generation attempts by outcome (generated, failed, handed_over: lease lost or stopping, retry: left for a later claim).',
    labelNames: ['outcome'],
  });
  readonly duration = histogram({
    name: 'mp_report_generation_seconds',
    help: 'Duration of report generation attempts, by outcome.',
    labelNames: ['outcome'],
    buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
  });

  observe(outcome: JobOutcome, seconds: number): void {
    this.jobs.inc({ outcome });
    this.duration.observe({ outcome }, seconds);
  }

  /** The waiting-queue gauges of this service's database; returns their unregister call. */
  watchQueue(db: Database): () => void {
    // One query serves both gauges of one scrape.
    const read = oncePerScrape(() =>
      db
        .query<{ n: number; age: number | null }>(
          `SELECT count(*)::int AS n, coalesce(extract(epoch FROM now() - min(created_at)), 0)::float8 AS age FROM reports WHERE status = 'generating'`,
        )
        .then(({ rows }) => ({ n: rows[0]!.n, age: rows[0]!.age ?? 0 })),
    );
    const offs = [
      sampledGauge({ name: 'mp_report_jobs_waiting', help: 'Reports asked for and not yet generated (status generating).' }, async () => [
        { labels: {}, value: (await read()).n },
      ]),
      sampledGauge({ name: 'mp_report_jobs_oldest_waiting_age_seconds', help: 'Age of the oldest report still generating (0 when none).' }, async () => [
        { labels: {}, value: Math.max(0, (await read()).age) },
      ]),
    ];
    return () => offs.forEach((off) => off());
  }
}
