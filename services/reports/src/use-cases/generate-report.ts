import type { reports } from '@mp/contracts';
import { createOnce, type Queryable } from '@mp/db';
import type { CallerContext } from '@mp/grpc';
import { newId } from '@mp/kit';
import type { ReportsDeps } from '../deps.js';
import { REPORT_COLUMNS, toReport, type ReportRow } from '../report-row.js';
import { requesterOf } from '../sources.js';
import { loadTemplate } from '../template-row.js';
import { checkPeriod, checkText, checkTimeZone, requireId } from '../validation.js';

/**
 * POST /projects/{id}/reports: everything that can be refused is checked now (period, time zone,
 * title, the template, the project and the caller's access to it through the projects service),
 * then the report is stored as `generating` with a copy of its template and the worker is woken.
 * The answer comes at once; the documents follow in the background (ADR 0026).
 */
export async function generateReport(deps: ReportsDeps, req: reports.GenerateReportRequest, ctx: CallerContext): Promise<reports.Report> {
  const projectId = requireId('project', req.projectId, 'project_id');
  requireId('template', req.templateId, 'template_id');
  const period = checkPeriod(req.from, req.to);
  const timeZone = checkTimeZone(req.timeZone);
  const title = req.title !== undefined ? checkText(req.title, 'title', 1, 200) : undefined;
  const template = await loadTemplate(deps.db, req.templateId, ctx);
  const project = await deps.sources.projects.getProject({ id: projectId }, ctx);
  const insert = async (tx: Queryable) => {
    const now = deps.clock.now().toISOString();
    const { rows } = await tx.query<ReportRow>(
      `INSERT INTO reports (id, tenant_id, environment, project_id, project_name, template_id, template, title, period_from, period_to, time_zone,
                            requester, status, created_by, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, 'generating', $13, $14, $14) RETURNING ${REPORT_COLUMNS}`,
      [
        newId('report'),
        ctx.tenantId,
        ctx.environment,
        project.id,
        project.name,
        template.id,
        JSON.stringify(template),
        title ?? `${template.name}: ${project.name}`,
        new Date(period.from).toISOString(),
        new Date(period.to).toISOString(),
        timeZone,
        JSON.stringify(requesterOf(ctx)),
        ctx.principalId || null,
        now,
      ],
    );
    return toReport(rows[0]!, []);
  };
  const report = await createOnce(deps.db, deps.clock.now(), ctx, 'GenerateReport', req, insert);
  deps.wakeWorker();
  return report;
}
