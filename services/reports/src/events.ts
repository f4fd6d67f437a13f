import type { Queryable } from '@mp/db';
import { appendEvent, type EventPayload } from '@mp/events';
import type { FileRow, ReportRow } from './report-row.js';

type ReportEventData = EventPayload<'report.generated'>;

/**
 * The data of report.generated, report.approved and report.rejected (docs/events.md): the report,
 * its project and period, its files, and for a review who, when and why.
 */
export function reportEventData(r: ReportRow, files: FileRow[]): ReportEventData {
  const order = r.template.formats;
  const data: ReportEventData = {
    report_id: r.id,
    report_title: r.title,
    project_id: r.project_id,
    project_name: r.project_name,
    template_id: r.template_id,
    period: { from: r.period_from, to: r.period_to },
    status: r.status,
    files: [...files]
      .sort((a, b) => order.indexOf(a.format) - order.indexOf(b.format))
      .map((f) => ({ format: f.format, size_bytes: Number(f.size_bytes), sha256: f.sha256 })),
    generated_at: r.generated_at,
    data_as_of: r.data_as_of,
  };
  if (r.status === 'approved') Object.assign(data, { approved_by: r.reviewed_by, approved_at: r.reviewed_at, comment: r.review_text });
  if (r.status === 'rejected') Object.assign(data, { rejected_by: r.reviewed_by, rejected_at: r.reviewed_at, reason: r.review_text });
  return data;
}

/** Writes the report's event to the outbox in `tx` (the change that raised it commits with it). */
export function emitReportEvent(
  tx: Queryable,
  type: 'report.generated' | 'report.approved' | 'report.rejected',
  r: ReportRow,
  files: FileRow[],
  occurredAt: string,
) {
  return appendEvent(tx, { type, tenantId: r.tenant_id, environment: r.environment, occurredAt, data: reportEventData(r, files) });
}
