import { DomainError } from '@mp/errors';
import type { Logger } from '@mp/kit';
import type { ReportsDeps } from './deps.js';
import { failReport, generateDocuments, LeaseLost } from './generate.js';
import type { JobOutcome, ReportMetrics } from './metrics.js';
import { REPORT_COLUMNS, type ReportRow } from './report-row.js';

/** Claims after which a report that keeps failing for other reasons than its data is given up (500005). */
export const MAX_ATTEMPTS = 5;

export interface WorkerOptions {
  concurrency: number;
  leaseMs: number;
  pollMs: number;
}

/**
 * Generates reports in the background (ADR 0026). A report waiting as `generating` is claimed
 * with FOR UPDATE SKIP LOCKED, its attempt counted and a lease taken, which a heartbeat renews
 * while it renders; replicas take different reports. A process that dies stops renewing, and
 * once the lease ends any replica (or the same one restarted) claims the report again under a new
 * attempt; the old attempt can no longer finish it, so a report is never finished twice, and a
 * stalled process that wakes up finds its attempt overtaken and drops its work.
 */
export class GenerationWorker {
  private running = 0;
  private stopped = true;
  private timer: NodeJS.Timeout | null = null;
  private claiming: Promise<void> | null = null;
  private again = false;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly deps: ReportsDeps,
    private readonly logger: Logger,
    private readonly opts: WorkerOptions,
    private readonly metrics?: ReportMetrics,
  ) {}

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  /** Looks for work now (a report was just asked for). */
  wake(): void {
    if (!this.stopped) this.schedule(0);
  }

  private schedule(ms: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.fill();
    }, ms);
    this.timer.unref?.();
  }

  /** Claims reports until every slot is busy or none waits. */
  private fill(): Promise<void> {
    if (this.claiming) {
      this.again = true;
      return this.claiming;
    }
    this.claiming = (async () => {
      do {
        this.again = false;
        while (!this.stopped && this.running < this.opts.concurrency) {
          let row: ReportRow | null;
          try {
            row = await this.claim();
          } catch (err) {
            this.logger.warn({ err }, 'claiming a report to generate failed');
            row = null;
          }
          if (!row) break;
          this.track(this.run(row));
        }
      } while (this.again && !this.stopped);
    })().finally(() => {
      this.claiming = null;
      if (!this.stopped) this.schedule(this.opts.pollMs);
    });
    return this.claiming;
  }

  private track(p: Promise<void>): void {
    this.running++;
    this.inFlight.add(p);
    void p.finally(() => {
      this.running--;
      this.inFlight.delete(p);
      if (!this.stopped) this.schedule(0);
    });
  }

  /**
   * Takes tenants in turn, not reports in order of arrival (ADR 0071): of each tenant's oldest
   * waiting report, the one whose tenant has the fewest reports in hand (leased, on any replica)
   * goes first, then the one whose tenant was served longest ago (never first), then the oldest.
   * A tenant that asks for fifty large reports so delays another tenant's by at most the reports
   * already in hand, not by its whole queue.
   */
  private async claim(): Promise<ReportRow | null> {
    const { rows } = await this.deps.db.query<ReportRow>(
      `WITH waiting AS (
         SELECT DISTINCT ON (tenant_id) id, tenant_id, created_at FROM reports
          WHERE status = 'generating' AND (lease_until IS NULL OR lease_until < now())
          ORDER BY tenant_id, created_at
       ), ranked AS (
         SELECT w.id, w.created_at,
                (SELECT count(*) FROM reports g WHERE g.tenant_id = w.tenant_id AND g.status = 'generating' AND g.lease_until >= now()) AS in_hand,
                (SELECT max(c.claimed_at) FROM reports c WHERE c.tenant_id = w.tenant_id) AS last_claimed
           FROM waiting w
       )
       UPDATE reports SET attempt = attempt + 1, lease_until = now() + ($1::int * interval '1 millisecond'), claimed_at = now()
        WHERE id = (SELECT r.id FROM ranked k JOIN reports r ON r.id = k.id
                     WHERE r.status = 'generating' AND (r.lease_until IS NULL OR r.lease_until < now())
                     ORDER BY k.in_hand, k.last_claimed NULLS FIRST, k.created_at
                     LIMIT 1 FOR UPDATE OF r SKIP LOCKED)
        RETURNING ${REPORT_COLUMNS}`,
      [this.opts.leaseMs],
    );
    return rows[0] ?? null;
  }

  private async run(row: ReportRow): Promise<void> {
    const attempt = row.attempt;
    const log = this.logger.child({ report_id: row.id, attempt });
    if (attempt > MAX_ATTEMPTS) {
      await failReport(
        this.deps,
        row.id,
        attempt,
        new DomainError('500005', { detail: `Generation was interrupted ${MAX_ATTEMPTS} times; it is not tried again.` }),
      );
      log.error('report given up after repeated interruptions');
      this.metrics?.observe('failed', 0);
      return;
    }
    let held = true;
    const beat = setInterval(
      () => {
        this.deps.db
          .query(`UPDATE reports SET lease_until = now() + ($3::int * interval '1 millisecond') WHERE id = $1 AND attempt = $2 AND status = 'generating'`, [
            row.id,
            attempt,
            this.opts.leaseMs,
          ])
          .then((r) => {
            if (r.rowCount === 0) held = false;
          })
          .catch((err: unknown) => log.warn({ err }, 'renewing a report lease failed'));
      },
      Math.max(200, Math.floor(this.opts.leaseMs / 3)),
    );
    beat.unref?.();
    const started = performance.now();
    let outcome: JobOutcome = 'retry';
    try {
      await generateDocuments(this.deps, row, attempt, () => held && !this.stopped);
      outcome = 'generated';
      log.info({ ms: Math.round(performance.now() - started) }, 'report generated');
    } catch (err) {
      if (err instanceof LeaseLost) {
        outcome = 'handed_over';
        log.warn('report generation handed over (lease lost or service stopping)');
        // Stopping: the next claim need not wait for the lease to run out.
        if (this.stopped) await this.release(row.id, attempt, 0);
      } else if (err instanceof DomainError && !err.code.startsWith('5')) {
        // The data cannot be read as the requester (access removed, project deleted, …): final.
        await failReport(this.deps, row.id, attempt, err);
        outcome = 'failed';
        log.warn({ code: err.code, detail: err.detail }, 'report generation failed');
      } else {
        // Infrastructure (a service or the database away): leave it for a later claim.
        log.error({ err }, 'report generation interrupted; it will be tried again');
        if (attempt >= MAX_ATTEMPTS) {
          await failReport(
            this.deps,
            row.id,
            attempt,
            new DomainError('500005', { detail: 'The report could not be generated; the services it reads did not answer.' }),
          );
          outcome = 'failed';
        } else {
          await this.release(row.id, attempt, Math.min(60_000, 2000 * attempt));
        }
      }
    } finally {
      clearInterval(beat);
      this.metrics?.observe(outcome, (performance.now() - started) / 1000);
    }
  }

  /** Lets another claim take the report after `afterMs` (while this attempt still holds it). */
  private release(id: string, attempt: number, afterMs: number): Promise<unknown> {
    return this.deps.db
      .query(`UPDATE reports SET lease_until = now() + ($3::int * interval '1 millisecond') WHERE id = $1 AND attempt = $2 AND status = 'generating'`, [
        id,
        attempt,
        afterMs,
      ])
      .catch((err: unknown) => this.logger.warn({ err, report_id: id }, 'releasing a report lease failed'));
  }

  /** Stops claiming and waits for the reports in hand (they stop at their next page and are left to the next claim). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.claiming;
    await Promise.all([...this.inFlight]);
  }
}
