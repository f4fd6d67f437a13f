import type { reports } from '@mp/contracts';
import { createOnce, type Queryable } from '@mp/db';
import { DomainError, excerpt } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import { checkTimeZone, ListQuery, newId } from '@mp/kit';
import { readableProjects } from '../access.js';
import type { ReportsDeps } from '../deps.js';
import { FREQUENCIES, nextPeriodEnd, type Frequency } from '../periods.js';
import { loadSchedule, SCHEDULE_COLUMNS, toSchedule, type ScheduleRow } from '../schedule-row.js';
import { requesterOf } from '../sources.js';
import { loadTemplate } from '../template-row.js';
import { requireId } from '../validation.js';

/** Schedules a tenant may hold per environment; more is refused with 422105. */
export const MAX_SCHEDULES = 100;
/** Addresses one schedule mails its reports to. */
export const MAX_RECIPIENTS = 20;
/** An address as SMTP carries it (RFC 5321: at most 254 characters), with one @ and a dot in its domain. */
const EMAIL = /^[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:"]+\.[^\s@<>()[\]\\,;:"]+$/;

function checkFrequency(value: string): Frequency {
  if (!(FREQUENCIES as readonly string[]).includes(value)) {
    throw new DomainError('422103', {
      field: 'frequency',
      detail: `${excerpt(value)} is not one of ${FREQUENCIES.join(', ')}.`,
      suggestion: 'Send "weekly" (Monday to Monday) or "monthly" (calendar months).',
    });
  }
  return value as Frequency;
}

export function checkRecipients(values: string[]): string[] {
  if (values.length > MAX_RECIPIENTS) {
    throw new DomainError('400003', {
      field: 'recipients',
      detail: `A schedule mails at most ${MAX_RECIPIENTS} recipients.`,
      suggestion: 'Send the reports to a distribution list instead of to each person.',
    });
  }
  const seen = new Set<string>();
  values.forEach((v, i) => {
    if (v.length > 254 || !EMAIL.test(v)) {
      throw new DomainError('422103', {
        field: `recipients[${i}].email`,
        detail: `${excerpt(v)} is not an e-mail address.`,
        suggestion: 'Send each recipient as { "email": "name@example.com" }.',
      });
    }
    seen.add(v);
  });
  return [...seen];
}

/**
 * POST /projects/{id}/report-schedules: a template's report of the project for every week or month
 * (ADR 0109). Checked as a report request is (template, project and the caller's access to it),
 * and kept with the caller as the requester each period's report reads the data as. The first
 * report is asked for when the current week or month ends, in the schedule's time zone: the one
 * asked for, else the template's, else the project's.
 */
export async function createSchedule(deps: ReportsDeps, req: reports.CreateReportScheduleRequest, ctx: CallerContext): Promise<reports.ReportSchedule> {
  const projectId = requireId('project', req.projectId, 'project_id');
  requireId('template', req.templateId, 'template_id');
  const frequency = checkFrequency(req.frequency);
  const recipients = checkRecipients(req.recipients);
  const asked = req.timeZone !== undefined ? checkTimeZone(req.timeZone) : undefined;
  const template = await loadTemplate(deps.db, req.templateId, ctx);
  const project = await deps.sources.projects.getProject({ id: projectId }, ctx);
  const timeZone = asked ?? template.time_zone ?? (project.timeZone || 'UTC');
  const insert = async (tx: Queryable) => {
    const { rows: count } = await tx.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM report_schedules WHERE tenant_id = $1 AND environment = $2 AND deleted_at IS NULL',
      [ctx.tenantId, ctx.environment],
    );
    if ((count[0]?.n ?? 0) >= MAX_SCHEDULES) {
      throw new DomainError('422105', {
        field: null,
        detail: `A tenant can hold at most ${MAX_SCHEDULES} report schedules per environment.`,
        suggestion: 'Delete schedules you no longer need.',
      });
    }
    const now = deps.clock.now();
    const { rows } = await tx.query<ScheduleRow>(
      `INSERT INTO report_schedules (id, tenant_id, environment, project_id, project_name, template_id, frequency, time_zone, recipients, tenant_name,
                                     requester, next_run_at, created_by, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $14) RETURNING ${SCHEDULE_COLUMNS}`,
      [
        newId('reportSchedule'),
        ctx.tenantId,
        ctx.environment,
        project.id,
        project.name,
        template.id,
        frequency,
        timeZone,
        recipients,
        req.tenantName || null,
        JSON.stringify(requesterOf(ctx)),
        new Date(nextPeriodEnd(frequency, now.getTime(), timeZone)).toISOString(),
        ctx.principalId || null,
        now.toISOString(),
      ],
    );
    return toSchedule(rows[0]!);
  };
  return createOnce(deps.db, deps.clock.now(), ctx, 'CreateReportSchedule', req, insert);
}

/** A schedule whose project the caller reads (403001), and for `write` may change (403002), as for reports. */
async function accessibleSchedule(deps: ReportsDeps, id: string, ctx: CallerContext, need: 'read' | 'write'): Promise<ScheduleRow> {
  const row = await loadSchedule(deps.db, id, ctx);
  const roles = await readableProjects(deps, ctx, [row.project_id]);
  if (roles === null) return row;
  const role = roles.get(row.project_id);
  if (!role) {
    throw new DomainError('403001', {
      field: 'schedule_id',
      detail: `Report schedule ${row.id} is of a project you are not a member of.`,
      suggestion: "Ask one of the project's owners to add you with POST /projects/{project_id}/members.",
    });
  }
  if (need === 'write' && role === 'viewer') {
    throw new DomainError('403002', {
      field: 'schedule_id',
      detail: `Your role in the project of report schedule ${row.id} (viewer) is read-only.`,
      suggestion: 'Ask a project owner to give you the editor role.',
    });
  }
  return row;
}

export async function getSchedule(deps: ReportsDeps, req: reports.Ref, ctx: CallerContext): Promise<reports.ReportSchedule> {
  return toSchedule(await accessibleSchedule(deps, req.id, ctx, 'read'));
}

/** GET /projects/{id}/report-schedules: newest first; the project must be one the caller reads. */
export async function listSchedules(deps: ReportsDeps, req: reports.ListReportSchedulesRequest, ctx: CallerContext): Promise<reports.ReportScheduleList> {
  const projectId = requireId('project', req.projectId ?? '', 'project_id');
  // The projects service answers 404001 / 403001 for a project the caller cannot read.
  await deps.sources.projects.getProject({ id: projectId }, ctx);
  const q = new ListQuery(req.page);
  q.and(`tenant_id = ${q.param(ctx.tenantId)}`)
    .and(`environment = ${q.param(ctx.environment)}`)
    .and(`project_id = ${q.param(projectId)}`)
    .and('deleted_at IS NULL');
  const { rows } = await deps.db.query<ScheduleRow>(q.sql(`SELECT ${SCHEDULE_COLUMNS} FROM report_schedules`), q.params);
  return q.result(rows, toSchedule);
}

/** DELETE /report-schedules/{id}: no further reports; those it asked for stay. */
export async function deleteSchedule(deps: ReportsDeps, req: reports.Ref, ctx: CallerContext): Promise<reports.ReportSchedule> {
  const row = await accessibleSchedule(deps, req.id, ctx, 'write');
  const now = deps.clock.now().toISOString();
  await deps.db.query('UPDATE report_schedules SET deleted_at = $2, updated_at = $2 WHERE id = $1 AND deleted_at IS NULL', [row.id, now]);
  return toSchedule(row);
}
