import { REPORT_STATUSES, type reports } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import { ListQuery } from '@mp/kit';
import { loadReadableReport, readableProjects } from '../access.js';
import type { ReportsDeps } from '../deps.js';
import { emitReportEvent } from '../events.js';
import { filesOf, loadReport, REPORT_COLUMNS, toReport, type ReportRow } from '../report-row.js';
import { checkText, requireId } from '../validation.js';

export async function getReport(deps: ReportsDeps, req: reports.Ref, ctx: CallerContext): Promise<reports.Report> {
  const row = await loadReadableReport(deps, req.id, ctx);
  return toReport(row, (await filesOf(deps.db, [row.id])).get(row.id)!);
}

/**
 * GET /reports: newest first, filtered by project_id and status; only reports of projects the
 * caller reads (a filter on a project it does not read lists nothing, as GET /projects would).
 */
export async function listReports(deps: ReportsDeps, req: reports.ListReportsRequest, ctx: CallerContext): Promise<reports.ReportList> {
  const q = new ListQuery(req.page);
  q.and(`tenant_id = ${q.param(ctx.tenantId)}`).and(`environment = ${q.param(ctx.environment)}`);
  const projectId = req.projectId !== undefined ? requireId('project', req.projectId, 'project_id') : undefined;
  if (projectId !== undefined) q.and(`project_id = ${q.param(projectId)}`);
  if (req.status !== undefined) {
    if (!(REPORT_STATUSES as readonly string[]).includes(req.status))
      throw new DomainError('400001', { field: 'status', detail: `status must be one of ${REPORT_STATUSES.join(', ')}.` });
    q.and(`status = ${q.param(req.status)}`);
  }
  const readable = await readableProjects(deps, ctx, projectId !== undefined ? [projectId] : []);
  if (readable !== null) q.and(`project_id = ANY(${q.param([...readable.keys()])}::text[])`);
  const { rows } = await deps.db.query<ReportRow>(q.sql(`SELECT ${REPORT_COLUMNS} FROM reports`), q.params);
  const files = await filesOf(
    deps.db,
    rows.map((r) => r.id),
  );
  return q.result(rows, (r) => toReport(r, files.get(r.id)!));
}

/**
 * Approve (comment optional) or reject (reason required) a `generated` report, with its event in
 * the same transaction. The row is locked, so of two reviewers acting at once one succeeds and the
 * other gets 409011.
 */
export async function reviewReport(
  deps: ReportsDeps,
  decision: 'approved' | 'rejected',
  req: reports.ReviewRequest,
  ctx: CallerContext,
): Promise<reports.Report> {
  const field = decision === 'approved' ? 'comment' : 'reason';
  let text: string | null = null;
  if (req.text !== undefined) text = checkText(req.text, field, decision === 'approved' ? 0 : 1, 2000) || null;
  if (decision === 'rejected' && text === null) {
    throw new DomainError('422101', { field: 'reason', detail: 'A rejection needs a reason.', suggestion: 'Send { "reason": "…" } saying what must change.' });
  }
  // A report never changes project, so its access is checked before the row is locked: the call
  // to the projects service is not made while holding the lock.
  await loadReadableReport(deps, req.id, ctx, 'write');
  const result = await deps.db.transaction(async (tx) => {
    const row = await loadReport(tx, req.id, ctx, true);
    if (row.status !== 'generated') {
      throw new DomainError('409011', {
        field: 'status',
        detail: `Report ${row.id} is ${row.status}; only a generated report can be ${decision}.`,
        suggestion:
          row.status === 'generating' ? 'Wait for report.generated, then try again.' : 'Read the report to see who reviewed it, or generate a new one.',
      });
    }
    const now = deps.clock.now().toISOString();
    const reviewer = ctx.principalId;
    await tx.query(`UPDATE reports SET status = $2, reviewed_by = $3, reviewed_at = $4, review_text = $5, updated_at = $4 WHERE id = $1`, [
      row.id,
      decision,
      reviewer,
      now,
      text,
    ]);
    const next: ReportRow = { ...row, status: decision, reviewed_by: reviewer, reviewed_at: now, review_text: text };
    const files = (await filesOf(tx, [row.id])).get(row.id)!;
    await emitReportEvent(tx, decision === 'approved' ? 'report.approved' : 'report.rejected', next, files, now);
    return toReport(next, files);
  });
  deps.relay.kick();
  return result;
}
