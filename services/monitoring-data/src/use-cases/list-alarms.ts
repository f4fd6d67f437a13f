import type { monitoringData } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import { decodeCursor, isId, pageLimit, toPage } from '@mp/kit';
import type { DataDeps } from '../deps.js';
import { ALARM_COLUMNS, type AlarmRow } from '../alarms/alarm-store.js';
import { toAlarm } from '../alarms/alarm-view.js';
import { ALARM_LEVELS, ALARM_STATUSES } from '../alarms/settings.js';
import { requireId } from '../project-id.js';
import { timeRange } from '../time-range.js';

function oneOf(value: string | undefined, allowed: readonly string[], field: string): string | undefined {
  if (value === undefined || allowed.includes(value)) return value;
  throw new DomainError('400001', { field, detail: `${field} must be one of ${allowed.join(', ')}.`, suggestion: `Use one of: ${allowed.join(', ')}.` });
}

/**
 * GET /projects/{id}/alarms: newest opened first, filtered by status, level, point and the time
 * they were opened ([from, to)), paged by (opened_at, id) cursors on the (project_id, opened_at)
 * index.
 */
export async function listAlarms(deps: DataDeps, req: monitoringData.ListAlarmsRequest, caller: CallerContext): Promise<monitoringData.AlarmList> {
  const projectId = requireId('project', req.projectId);
  const status = oneOf(req.status, ALARM_STATUSES, 'status');
  const level = oneOf(req.level, ALARM_LEVELS, 'level');
  if (req.pointId !== undefined && !isId('point', req.pointId))
    throw new DomainError('400004', { field: 'point_id', detail: 'point_id is not a point id (pt_…).', suggestion: 'Use the id the API returned.' });
  const range = timeRange(req.from, req.to);
  await deps.contexts.get(caller, projectId, [], false);
  const limit = pageLimit(req.page?.limit);
  const params: unknown[] = [caller.tenantId, caller.environment, projectId];
  const where = ['tenant_id = $1', 'environment = $2', 'project_id = $3'];
  const add = (sql: string, value: unknown) => {
    params.push(value);
    where.push(sql.replace('?', `$${params.length}`));
  };
  if (status) add('status = ?', status);
  if (level) add('level = ?', level);
  if (req.pointId !== undefined) add('point_id = ?', req.pointId);
  if (range.from !== null) add('opened_at >= ?', new Date(range.from).toISOString());
  if (range.to !== null) add('opened_at < ?', new Date(range.to).toISOString());
  if (req.page?.cursor) {
    const [at, id] = decodeCursor(req.page.cursor);
    if (typeof at !== 'string' || typeof id !== 'string' || Number.isNaN(Date.parse(at)))
      throw new DomainError('400004', {
        field: 'cursor',
        detail: 'cursor is not one this API returned',
        suggestion: 'Pass the next_cursor value from the previous page unchanged.',
      });
    params.push(at, id);
    where.push(`(opened_at, id) < ($${params.length - 1}::timestamptz, $${params.length})`);
  }
  params.push(limit + 1);
  const { rows } = await deps.db.query<AlarmRow>(
    `SELECT ${ALARM_COLUMNS} FROM alarms WHERE ${where.join(' AND ')} ORDER BY opened_at DESC, id DESC LIMIT $${params.length}`,
    params,
  );
  const page = toPage(rows, limit, (r) => [new Date(r.opened_at).toISOString(), r.id]);
  return { items: page.items.map((r) => toAlarm(r)), page: { hasMore: page.hasMore, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) } };
}
