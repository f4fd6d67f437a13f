import type { monitoringData } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import type { Queryable } from '@mp/db';
import type { DataDeps } from './deps.js';
import type { ProjectContext } from './ingest-context.js';
import { formatMeasuredAt } from './measured-at.js';
import { requireId } from './project-id.js';

export interface RecordRow {
  id: string;
  tenant_id: string;
  environment: string;
  project_id: string;
  point_id: string;
  measured_at: string;
  utc_offset: number;
  x: number | null;
  y: number | null;
  z: number | null;
  dx: number | null;
  dy: number | null;
  dz: number | null;
  /** instrument channels by name (jsonb; text on some drivers); null for geodetic records */
  channels: Record<string, number> | string | null;
  status: string;
  quality_flag: string;
  remark: string | null;
  created_at: string;
  updated_at: string;
  version: number;
}

export const RECORD_COLUMNS =
  'id, tenant_id, environment, project_id, point_id, measured_at, utc_offset, x, y, z, dx, dy, dz, channels, status, quality_flag, remark, created_at, updated_at, version';

/** A stored record's instrument channels (null for a geodetic record). */
export const channelsOf = (row: Pick<RecordRow, 'channels'>): Record<string, number> | null =>
  typeof row.channels === 'string' ? (JSON.parse(row.channels) as Record<string, number>) : row.channels;

export function toRecord(row: RecordRow): monitoringData.DataRecord {
  const channels = channelsOf(row);
  const values: monitoringData.Values = channels ? { channels: { values: channels } } : {};
  for (const k of ['x', 'y', 'z', 'dx', 'dy', 'dz'] as const) if (row[k] !== null) values[k] = row[k]!;
  return {
    id: row.id,
    projectId: row.project_id,
    pointId: row.point_id,
    measuredAt: formatMeasuredAt(Date.parse(row.measured_at), row.utc_offset),
    values,
    status: row.status,
    qualityFlag: row.quality_flag,
    ...(row.remark !== null ? { remark: row.remark } : {}),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    version: row.version,
    units: {},
  };
}

/**
 * A record by id for the caller: 404004 when it does not exist in the caller's tenant and
 * environment (another tenant's record is not revealed), then the caller's access to its project
 * (403001/403002 from the projects service).
 */
export async function loadRecord(
  deps: Pick<DataDeps, 'db' | 'contexts'>,
  caller: CallerContext,
  id: string,
  forWrite: boolean,
  q: Queryable = deps.db,
): Promise<{ row: RecordRow; ctx: ProjectContext }> {
  requireId('data', id);
  const { rows } = await q.query<RecordRow>(`SELECT ${RECORD_COLUMNS} FROM data_records WHERE id = $1`, [id]);
  const row = rows[0];
  if (!row || row.tenant_id !== caller.tenantId || row.environment !== caller.environment) {
    throw new DomainError('404004', {
      field: 'data_id',
      detail: `Data record ${id} does not exist.`,
      suggestion: 'Check the data_id, or find the record with GET /v3/points/{point_id}/data.',
    });
  }
  const ctx = await deps.contexts.get(caller, row.project_id, [row.point_id], forWrite);
  return { row, ctx };
}
