import type { reports } from '@mp/contracts';
import type { Queryable } from '@mp/db';
import { DomainError } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import type { Frequency } from './periods.js';
import type { Requester } from './sources.js';
import { requireId } from './validation.js';

export interface ScheduleRow {
  id: string;
  tenant_id: string;
  environment: string;
  project_id: string;
  project_name: string;
  template_id: string;
  frequency: Frequency;
  time_zone: string;
  recipients: string[];
  tenant_name: string | null;
  requester: Requester;
  next_run_at: string;
  last_report_id: string | null;
  last_run_at: string | null;
  last_error: string | null;
  created_by: string | null;
  created_at: string;
}

export const SCHEDULE_COLUMNS = `id, tenant_id, environment, project_id, project_name, template_id, frequency, time_zone, recipients, tenant_name, requester,
  next_run_at, last_report_id, last_run_at, last_error, created_by, created_at`;

export function toSchedule(r: ScheduleRow): reports.ReportSchedule {
  return {
    id: r.id,
    projectId: r.project_id,
    templateId: r.template_id,
    frequency: r.frequency,
    timeZone: r.time_zone,
    recipients: r.recipients,
    nextRunAt: r.next_run_at,
    createdAt: r.created_at,
    ...(r.last_report_id ? { lastReportId: r.last_report_id } : {}),
    ...(r.last_run_at ? { lastRunAt: r.last_run_at } : {}),
    ...(r.last_error ? { lastError: r.last_error } : {}),
    ...(r.created_by ? { createdBy: r.created_by } : {}),
  };
}

/** A schedule of the caller's tenant and environment; any other is reported missing (404018). */
export async function loadSchedule(q: Queryable, id: string, ctx: CallerContext, forUpdate = false): Promise<ScheduleRow> {
  requireId('reportSchedule', id, 'schedule_id');
  const { rows } = await q.query<ScheduleRow>(
    `SELECT ${SCHEDULE_COLUMNS} FROM report_schedules WHERE id = $1 AND tenant_id = $2 AND environment = $3 AND deleted_at IS NULL${forUpdate ? ' FOR UPDATE' : ''}`,
    [id, ctx.tenantId, ctx.environment],
  );
  if (!rows[0])
    throw new DomainError('404018', {
      field: 'schedule_id',
      detail: `Report schedule ${id} does not exist.`,
      suggestion: 'List the schedules with GET /v3/projects/{project_id}/report-schedules and use an id from that list.',
    });
  return rows[0];
}
