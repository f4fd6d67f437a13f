import type { monitoringData } from '@mp/contracts';
import type { Queryable } from '@mp/db';
import { DomainError } from '@mp/errors';
import { decodeCursor, isId, pageLimit, toPage } from '@mp/kit';
import type { CallerContext } from '@mp/grpc';
import { timeRange } from '../time-range.js';
import { ALARM_COLUMNS, type AlarmRow } from './alarm-store.js';
import { toAlarm } from './alarm-view.js';
import { ALARM_LEVELS, ALARM_STATUSES } from './settings.js';

/** The filters both alarm lists take (a project's, and the tenant's inbox). */
export interface AlarmFilters {
  status?: string | undefined;
  level?: string | undefined;
  pointId?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
  page?: { limit?: number; cursor?: string } | undefined;
}

function oneOf(value: string | undefined, allowed: readonly string[], field: string): string | undefined {
  if (value === undefined || allowed.includes(value)) return value;
  throw new DomainError('400001', { field, detail: `${field} must be one of ${allowed.join(', ')}.`, suggestion: `Use one of: ${allowed.join(', ')}.` });
}

/** Checks the filters before anything is asked of another service (400001 / 400004 / 422204). */
export function checkAlarmFilters(f: AlarmFilters): void {
  oneOf(f.status, ALARM_STATUSES, 'status');
  oneOf(f.level, ALARM_LEVELS, 'level');
  if (f.pointId !== undefined && !isId('point', f.pointId))
    throw new DomainError('400004', { field: 'point_id', detail: 'point_id is not a point id (pt_…).', suggestion: 'Use the id the API returned.' });
  timeRange(f.from, f.to);
  if (f.page?.cursor) cursorOf(f.page.cursor);
}

function cursorOf(cursor: string): [string, string] {
  const [at, id] = decodeCursor(cursor);
  if (typeof at !== 'string' || typeof id !== 'string' || Number.isNaN(Date.parse(at)))
    throw new DomainError('400004', {
      field: 'cursor',
      detail: 'cursor is not one this API returned',
      suggestion: 'Pass the next_cursor value from the previous page unchanged.',
    });
  return [at, id];
}

/**
 * One page of alarms of the caller's tenant environment, newest opened first, filtered by status,
 * level, point and the time they were opened ([from, to)), paged by (opened_at, id) cursors.
 * `projectIds`: the projects whose alarms may be listed (null: every project of the tenant
 * environment). The (tenant_id, environment, opened_at) and (project_id, opened_at) indexes serve it.
 */
export async function listAlarmPage(db: Queryable, caller: CallerContext, projectIds: string[] | null, f: AlarmFilters): Promise<monitoringData.AlarmList> {
  checkAlarmFilters(f);
  const limit = pageLimit(f.page?.limit);
  const params: unknown[] = [caller.tenantId, caller.environment];
  const where = ['tenant_id = $1', 'environment = $2'];
  const add = (sql: string, value: unknown) => {
    params.push(value);
    where.push(sql.replace('?', `$${params.length}`));
  };
  if (projectIds !== null)
    add(projectIds.length === 1 ? 'project_id = ?' : 'project_id = ANY(?::text[])', projectIds.length === 1 ? projectIds[0] : projectIds);
  const range = timeRange(f.from, f.to);
  if (f.status) add('status = ?', f.status);
  if (f.level) add('level = ?', f.level);
  if (f.pointId !== undefined) add('point_id = ?', f.pointId);
  if (range.from !== null) add('opened_at >= ?', new Date(range.from).toISOString());
  if (range.to !== null) add('opened_at < ?', new Date(range.to).toISOString());
  if (f.page?.cursor) {
    const [at, id] = cursorOf(f.page.cursor);
    params.push(at, id);
    where.push(`(opened_at, id) < ($${params.length - 1}::timestamptz, $${params.length})`);
  }
  params.push(limit + 1);
  const { rows } = await db.query<AlarmRow>(
    `SELECT ${ALARM_COLUMNS} FROM alarms WHERE ${where.join(' AND ')} ORDER BY opened_at DESC, id DESC LIMIT $${params.length}`,
    params,
  );
  const page = toPage(rows, limit, (r) => [new Date(r.opened_at).toISOString(), r.id]);
  return { items: page.items.map((r) => toAlarm(r)), page: { hasMore: page.hasMore, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) } };
}
