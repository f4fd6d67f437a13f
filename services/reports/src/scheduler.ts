import type { Queryable } from '@mp/db';
import type { Logger } from '@mp/kit';
import type { ReportsDeps } from './deps.js';
import type { ReportMailer } from './mailer.js';
import { nextPeriodEnd, periodLabel, periodStart } from './periods.js';
import { SCHEDULE_COLUMNS, type ScheduleRow } from './schedule-row.js';
import { TEMPLATE_COLUMNS, type TemplateRow } from './template-row.js';
import { insertReport } from './use-cases/generate-report.js';

/** Schedules handled per transaction (each locked until its report is stored). */
const BATCH = 20;
/** Rounds of one tick: enough to catch up on many missed periods without holding a tick forever. */
const MAX_ROUNDS = 50;
/** A scheduled report generated longer ago than this is not mailed any more (e.g. when mail is configured later). */
const MAIL_WITHIN_MS = 7 * 86_400_000;

export interface SchedulerOptions {
  /** How often the scheduler looks for schedules that are due (MP_REPORTS_SCHEDULE_POLL_MS). */
  pollMs: number;
  mailer?: ReportMailer | null;
}

/**
 * Asks for the reports of schedules whose period ended (ADR 0109). The database drives it: a
 * due schedule is claimed with FOR UPDATE SKIP LOCKED, its report stored as `generating` and its
 * next period end written in the same transaction, so of any number of replicas ticking at once
 * exactly one asks for each period (a unique index on schedule and period start backs this up).
 * A scheduler that was stopped catches up one period per round. "Now" is the service's clock, and
 * tick() can be called directly, so tests move time without waiting for it.
 */
export class ReportScheduler {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;
  private stopped = true;

  constructor(
    private readonly deps: ReportsDeps,
    private readonly logger: Logger,
    private readonly opts: SchedulerOptions,
  ) {}

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  private schedule(ms: number): void {
    this.timer = setTimeout(() => {
      this.running = this.tick()
        .catch((err: unknown) => this.logger.warn({ err }, 'report scheduler tick failed'))
        .finally(() => {
          this.running = null;
          if (!this.stopped) this.schedule(this.opts.pollMs);
        });
    }, ms);
    this.timer.unref?.();
  }

  /** One pass: asks for every report that is due, then mails the scheduled reports that are ready. */
  async tick(): Promise<{ asked: number; mailed: number }> {
    let asked = 0;
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const n = await this.deps.db.transaction((tx) => this.askDue(tx));
      asked += n;
      if (n === 0) break;
    }
    if (asked) this.deps.wakeWorker();
    const mailed = this.opts.mailer ? await this.mailReady(this.opts.mailer) : 0;
    return { asked, mailed };
  }

  private async askDue(tx: Queryable): Promise<number> {
    const now = this.deps.clock.now();
    const { rows } = await tx.query<ScheduleRow>(
      `SELECT ${SCHEDULE_COLUMNS} FROM report_schedules WHERE deleted_at IS NULL AND next_run_at <= $1
        ORDER BY next_run_at LIMIT $2 FOR UPDATE SKIP LOCKED`,
      [now.toISOString(), BATCH],
    );
    for (const s of rows) {
      const end = Date.parse(s.next_run_at);
      const start = periodStart(s.frequency, end, s.time_zone);
      const label = periodLabel(s.frequency, start, end, s.time_zone);
      const { rows: templates } = await tx.query<TemplateRow>(
        `SELECT ${TEMPLATE_COLUMNS} FROM templates WHERE id = $1 AND tenant_id = $2 AND environment = $3 AND deleted_at IS NULL`,
        [s.template_id, s.tenant_id, s.environment],
      );
      const template = templates[0];
      let reportId: string | null = null;
      let error: string | null = null;
      if (!template) {
        error = `Template ${s.template_id} was deleted; no report for ${label}.`;
      } else {
        const report = await insertReport(tx, {
          tenantId: s.tenant_id,
          environment: s.environment,
          project: { id: s.project_id, name: s.project_name },
          template,
          title: `${template.name}: ${s.project_name}, ${label}`,
          from: new Date(start).toISOString(),
          to: new Date(end).toISOString(),
          timeZone: s.time_zone,
          requester: s.requester,
          tenantName: s.tenant_name,
          scheduleId: s.id,
          createdBy: s.created_by,
          now: now.toISOString(),
        });
        reportId = report?.id ?? null;
      }
      await tx.query(
        `UPDATE report_schedules SET next_run_at = $2, last_run_at = $3, last_report_id = COALESCE($4, last_report_id), last_error = $5, updated_at = $3
          WHERE id = $1`,
        [s.id, new Date(nextPeriodEnd(s.frequency, end, s.time_zone)).toISOString(), now.toISOString(), reportId, error],
      );
      this.logger.info({ schedule_id: s.id, report_id: reportId, period: label, error }, 'scheduled report asked for');
    }
    return rows.length;
  }

  /**
   * Hands each generated scheduled report to the mailer once: the report is locked while it is
   * sent and marked mailed in the same transaction, so two replicas never both send it; a mailer
   * that fails leaves it for the next tick.
   */
  private async mailReady(mailer: ReportMailer): Promise<number> {
    const since = new Date(this.deps.clock.now().getTime() - MAIL_WITHIN_MS).toISOString();
    return this.deps.db.transaction(async (tx) => {
      const { rows } = await tx.query<{
        id: string;
        tenant_id: string;
        environment: string;
        schedule_id: string;
        title: string;
        project_name: string;
        period_from: string;
        period_to: string;
        time_zone: string;
        formats: string[];
        recipients: string[];
      }>(
        `SELECT r.id, r.tenant_id, r.environment, r.schedule_id, r.title, r.project_name, r.period_from, r.period_to, r.time_zone,
                ARRAY(SELECT jsonb_array_elements_text(r.template->'formats')) AS formats, s.recipients
           FROM reports r JOIN report_schedules s ON s.id = r.schedule_id
          WHERE r.schedule_id IS NOT NULL AND r.mailed_at IS NULL AND r.status IN ('generated', 'approved') AND r.generated_at >= $1
            AND cardinality(s.recipients) > 0
          ORDER BY r.generated_at LIMIT $2 FOR UPDATE OF r SKIP LOCKED`,
        [since, BATCH],
      );
      let mailed = 0;
      for (const r of rows) {
        let outcome: { rejected: string[] } | void;
        try {
          outcome = await mailer.sendScheduledReport({
            tenantId: r.tenant_id,
            environment: r.environment,
            reportId: r.id,
            scheduleId: r.schedule_id,
            title: r.title,
            projectName: r.project_name,
            from: r.period_from,
            to: r.period_to,
            timeZone: r.time_zone,
            recipients: r.recipients,
            formats: r.formats,
          });
        } catch (err) {
          this.logger.warn({ err, report_id: r.id }, 'mailing a scheduled report failed; it is tried again');
          continue;
        }
        await tx.query('UPDATE reports SET mailed_at = $2 WHERE id = $1', [r.id, this.deps.clock.now().toISOString()]);
        if (outcome && outcome.rejected.length > 0) {
          // The others have it; those refused will not get it by trying again (a 5xx answer).
          await tx.query('UPDATE report_schedules SET last_error = $2 WHERE id = $1', [
            r.schedule_id,
            `The mail server refused ${outcome.rejected.join(', ')} for report ${r.id}; check the addresses.`.slice(0, 1000),
          ]);
          this.logger.warn({ report_id: r.id, rejected: outcome.rejected }, 'scheduled report mail refused for some recipients');
        }
        mailed++;
      }
      return mailed;
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }
}
