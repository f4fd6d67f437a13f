import type { reports } from '@mp/contracts';
import { createOnce, type Queryable } from '@mp/db';
import type { CallerContext } from '@mp/grpc';
import { checkTimeZone, newId } from '@mp/kit';
import type { ReportsDeps } from '../deps.js';
import { REPORT_COLUMNS, toReport, type ReportRow } from '../report-row.js';
import { requesterOf, type Requester } from '../sources.js';
import { loadTemplate, type TemplateRow } from '../template-row.js';
import { checkPeriod, checkText, requireId } from '../validation.js';

/** A report to store as `generating`: everything its documents are made from but the data. */
export interface NewReport {
  tenantId: string;
  environment: string;
  project: { id: string; name: string };
  template: TemplateRow;
  title: string;
  from: string;
  to: string;
  timeZone: string;
  requester: Requester;
  tenantName: string | null;
  scheduleId: string | null;
  createdBy: string | null;
  now: string;
}

/**
 * Stores a report as `generating` (the worker claims it, ADR 0026). A scheduled report that its
 * schedule already asked for the same period is not stored again: null.
 */
export async function insertReport(tx: Queryable, r: NewReport): Promise<ReportRow | null> {
  const { rows } = await tx.query<ReportRow>(
    `INSERT INTO reports (id, tenant_id, environment, project_id, project_name, template_id, template, title, period_from, period_to, time_zone,
                          requester, status, created_by, created_at, updated_at, tenant_name, schedule_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, 'generating', $13, $14, $14, $15, $16)
     ON CONFLICT (schedule_id, period_from) WHERE schedule_id IS NOT NULL DO NOTHING
     RETURNING ${REPORT_COLUMNS}`,
    [
      newId('report'),
      r.tenantId,
      r.environment,
      r.project.id,
      r.project.name,
      r.template.id,
      JSON.stringify(r.template),
      r.title,
      r.from,
      r.to,
      r.timeZone,
      JSON.stringify(r.requester),
      r.createdBy,
      r.now,
      r.tenantName,
      r.scheduleId,
    ],
  );
  return rows[0] ?? null;
}

/**
 * POST /projects/{id}/reports: everything that can be refused is checked now (period, time zone,
 * title, the template, the project and the caller's access to it through the projects service),
 * then the report is stored as `generating` with a copy of its template and the worker is woken.
 * The answer comes at once; the documents follow in the background (ADR 0026). Its times show in
 * the time zone asked for, else the template's, else the project's.
 */
export async function generateReport(deps: ReportsDeps, req: reports.GenerateReportRequest, ctx: CallerContext): Promise<reports.Report> {
  const projectId = requireId('project', req.projectId, 'project_id');
  requireId('template', req.templateId, 'template_id');
  const period = checkPeriod(req.from, req.to);
  const asked = req.timeZone !== undefined ? checkTimeZone(req.timeZone) : undefined;
  const title = req.title !== undefined ? checkText(req.title, 'title', 1, 200) : undefined;
  const template = await loadTemplate(deps.db, req.templateId, ctx);
  const project = await deps.sources.projects.getProject({ id: projectId }, ctx);
  const insert = async (tx: Queryable) => {
    const row = await insertReport(tx, {
      tenantId: ctx.tenantId,
      environment: ctx.environment,
      project,
      template,
      title: title ?? `${template.name}: ${project.name}`,
      from: new Date(period.from).toISOString(),
      to: new Date(period.to).toISOString(),
      timeZone: asked ?? template.time_zone ?? (project.timeZone || 'UTC'),
      requester: requesterOf(ctx),
      tenantName: req.tenantName || null,
      scheduleId: null,
      createdBy: ctx.principalId || null,
      now: deps.clock.now().toISOString(),
    });
    return toReport(row!, []);
  };
  const report = await createOnce(deps.db, deps.clock.now(), ctx, 'GenerateReport', req, insert);
  deps.wakeWorker();
  return report;
}
