import type { monitoringData } from '@mp/contracts';

export interface BatchRow {
  id: string;
  tenant_id: string;
  environment: string;
  project_id: string;
  status: string;
  total_count: number;
  processed_count: number;
  accepted_count: number;
  rejected_count: number;
  abnormal_count: number;
  failure_code: string | null;
  failure_detail: string | null;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
}

export const BATCH_COLUMNS =
  'id, tenant_id, environment, project_id, status, total_count, processed_count, accepted_count, rejected_count, abnormal_count, failure_code, failure_detail, created_at, started_at, completed_at';

export function toBatch(
  row: BatchRow,
  errors: monitoringData.RecordError[] = [],
  errorsPage?: { hasMore: boolean; nextCursor?: string },
): monitoringData.Batch {
  return {
    id: row.id,
    projectId: row.project_id,
    status: row.status,
    totalCount: row.total_count,
    processedCount: row.processed_count,
    acceptedCount: row.accepted_count,
    rejectedCount: row.rejected_count,
    abnormalCount: row.abnormal_count,
    createdAt: row.created_at,
    ...(row.started_at ? { startedAt: row.started_at } : {}),
    ...(row.completed_at ? { completedAt: row.completed_at } : {}),
    ...(row.failure_code ? { failureCode: row.failure_code, failureDetail: row.failure_detail ?? '' } : {}),
    errors,
    errorsPage: errorsPage ?? { hasMore: false },
  };
}
