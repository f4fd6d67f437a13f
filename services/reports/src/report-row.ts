import type { reports } from '@mp/contracts';
import type { Queryable } from '@mp/db';
import { DomainError } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import type { Requester } from './sources.js';
import type { TemplateRow } from './template-row.js';
import { requireId, type Format } from './validation.js';

export type ReportStatus = 'generating' | 'generated' | 'failed' | 'approved' | 'rejected';

export interface ReportRow {
  id: string;
  tenant_id: string;
  environment: 'live' | 'sandbox';
  project_id: string;
  project_name: string;
  template_id: string;
  template: TemplateRow;
  title: string;
  period_from: string;
  period_to: string;
  time_zone: string;
  requester: Requester;
  status: ReportStatus;
  attempt: number;
  data_as_of: string | null;
  record_count: number;
  generated_at: string | null;
  failure_code: string | null;
  failure_detail: string | null;
  reviewed_by: string | null;
  reviewed_at: string | null;
  review_text: string | null;
  created_by: string | null;
  created_at: string;
  /** The tenant's name as the documents show it (null: reports asked for before it was kept). */
  tenant_name: string | null;
  /** The schedule that asked for it; null for a report a person asked for. */
  schedule_id: string | null;
}

export interface FileRow {
  report_id: string;
  format: Format;
  attempt: number;
  size_bytes: number;
  sha256: string;
  part_size: number;
}

export const REPORT_COLUMNS = `id, tenant_id, environment, project_id, project_name, template_id, template, title, period_from, period_to, time_zone,
  requester, status, attempt, data_as_of, record_count, generated_at, failure_code, failure_detail, reviewed_by, reviewed_at, review_text, created_by, created_at,
  tenant_name, schedule_id`;

/** Files in the order of the template's formats. */
export async function filesOf(q: Queryable, ids: string[]): Promise<Map<string, FileRow[]>> {
  const out = new Map<string, FileRow[]>(ids.map((id) => [id, []]));
  if (!ids.length) return out;
  const { rows } = await q.query<FileRow>('SELECT report_id, format, attempt, size_bytes, sha256, part_size FROM report_files WHERE report_id = ANY($1)', [
    ids,
  ]);
  for (const r of rows) out.get(r.report_id)!.push(r);
  return out;
}

export function toReport(r: ReportRow, files: FileRow[]): reports.Report {
  const order = r.template.formats;
  const sorted = [...files].sort((a, b) => order.indexOf(a.format) - order.indexOf(b.format));
  const reviewed = r.reviewed_by !== null && r.reviewed_at !== null;
  return {
    id: r.id,
    projectId: r.project_id,
    projectName: r.project_name,
    templateId: r.template_id,
    title: r.title,
    from: r.period_from,
    to: r.period_to,
    timeZone: r.time_zone,
    status: r.status,
    files: sorted.map((f) => ({ format: f.format, sizeBytes: Number(f.size_bytes), sha256: f.sha256 })),
    recordCount: r.record_count,
    createdAt: r.created_at,
    ...(r.created_by ? { createdBy: r.created_by } : {}),
    ...(r.schedule_id ? { scheduleId: r.schedule_id } : {}),
    ...(r.data_as_of ? { dataAsOf: r.data_as_of } : {}),
    ...(r.generated_at ? { generatedAt: r.generated_at } : {}),
    ...(r.failure_code ? { failureCode: r.failure_code, failureDetail: r.failure_detail ?? '' } : {}),
    ...(reviewed && r.status === 'approved'
      ? { approvedBy: r.reviewed_by!, approvedAt: r.reviewed_at!, ...(r.review_text !== null ? { comment: r.review_text } : {}) }
      : {}),
    ...(reviewed && r.status === 'rejected' ? { rejectedBy: r.reviewed_by!, rejectedAt: r.reviewed_at!, reason: r.review_text ?? '' } : {}),
  };
}

/** A report of the caller's tenant and environment; any other is reported missing (404005). */
export async function loadReport(q: Queryable, id: string, ctx: CallerContext, forUpdate = false): Promise<ReportRow> {
  requireId('report', id, 'report_id');
  const { rows } = await q.query<ReportRow>(
    `SELECT ${REPORT_COLUMNS} FROM reports WHERE id = $1 AND tenant_id = $2 AND environment = $3${forUpdate ? ' FOR UPDATE' : ''}`,
    [id, ctx.tenantId, ctx.environment],
  );
  if (!rows[0])
    throw new DomainError('404005', {
      field: 'report_id',
      detail: `Report ${id} does not exist.`,
      suggestion: 'List reports with GET /v3/reports and use an id from that list.',
    });
  return rows[0];
}
