import type { monitoringData } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import { decodeCursor, pageLimit, toPage } from '@mp/kit';
import type { DataDeps } from '../deps.js';
import { requireId } from '../project-id.js';
import { RECORD_COLUMNS, toRecord, type RecordRow } from '../record-row.js';
import { timeRange } from '../time-range.js';
import { QUALITY_FLAGS } from './update-record.js';

export const STATUSES = ['normal', 'warning', 'alarm'] as const;

/**
 * Records per page for the reports service, which reads a report's whole period (438,000 records
 * for 50 points over a year): at the API's 100 that was 4,380 calls. Callers are told apart by
 * the party whose key signed the call, never by what the request says.
 */
export const EXPORT_PAGE_LIMIT = 2000;

function oneOf(value: string | undefined, allowed: readonly string[], field: string): string | undefined {
  if (value === undefined || allowed.includes(value)) return value;
  throw new DomainError('400001', { field, detail: `${field} must be one of ${allowed.join(', ')}.` });
}

/**
 * Records of a project, or of one point, in a time range [from, to), newest first (order=asc for
 * oldest first), paged by (measured_at, id) cursors. Served by the (project_id, measured_at) and
 * (point_id, measured_at) indexes, and only the partitions of the range are read.
 */
export async function listRecords(deps: DataDeps, req: monitoringData.ListRecordsRequest, caller: CallerContext): Promise<monitoringData.RecordList> {
  let projectId: string;
  if (req.pointId !== undefined) {
    requireId('point', req.pointId);
    projectId = (await deps.contexts.forPoint(caller, req.pointId)).projectId;
  } else if (req.projectId !== undefined) {
    projectId = requireId('project', req.projectId);
  } else {
    throw new DomainError('400001', { field: 'project_id', detail: 'Give a project_id or a point_id.' });
  }
  if (req.pointId === undefined) await deps.contexts.get(caller, projectId, [], false);
  const status = oneOf(req.status, STATUSES, 'status');
  const quality = oneOf(req.qualityFlag, QUALITY_FLAGS, 'quality_flag');
  const order = oneOf(req.order, ['asc', 'desc'], 'order') ?? 'desc';
  const range = timeRange(req.from, req.to);
  const limit = caller.caller === 'reports' ? Math.min(Math.max(1, req.page?.limit || 20), EXPORT_PAGE_LIMIT) : pageLimit(req.page?.limit);

  const params: unknown[] = [caller.tenantId, caller.environment, projectId];
  const where = ['tenant_id = $1', 'environment = $2', 'project_id = $3'];
  const add = (sql: string, value: unknown) => {
    params.push(value);
    where.push(sql.replace('?', `$${params.length}`));
  };
  if (req.pointId !== undefined) add('point_id = ?', req.pointId);
  if (range.from !== null) add('measured_at >= ?', new Date(range.from).toISOString());
  if (range.to !== null) add('measured_at < ?', new Date(range.to).toISOString());
  if (status) add('status = ?', status);
  if (quality) add('quality_flag = ?', quality);
  if (req.page?.cursor) {
    const [at, id] = decodeCursor(req.page.cursor);
    if (typeof at !== 'string' || typeof id !== 'string' || Number.isNaN(Date.parse(at)))
      throw new DomainError('400004', { field: 'cursor', detail: 'cursor is not one this API returned' });
    params.push(at, id);
    where.push(`(measured_at, id) ${order === 'desc' ? '<' : '>'} ($${params.length - 1}::timestamptz, $${params.length})`);
  }
  params.push(limit + 1);
  const dir = order === 'desc' ? 'DESC' : 'ASC';
  const { rows } = await deps.db.query<RecordRow>(
    `SELECT ${RECORD_COLUMNS} FROM data_records WHERE ${where.join(' AND ')} ORDER BY measured_at ${dir}, id ${dir} LIMIT $${params.length}`,
    params,
  );
  const page = toPage(rows, limit, (r) => [r.measured_at, r.id]);
  return { items: page.items.map(toRecord), page: { hasMore: page.hasMore, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) } };
}
