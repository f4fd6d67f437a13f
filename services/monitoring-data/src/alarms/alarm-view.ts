import type { monitoringData } from '@mp/contracts';
import type { Queryable } from '@mp/db';
import { DomainError } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import { isId } from '@mp/kit';
import type { DataDeps } from '../deps.js';
import type { ProjectContext } from '../ingest-context.js';
import { ALARM_COLUMNS, type AlarmRow } from './alarm-store.js';

const iso = (v: string | Date) => new Date(v).toISOString();

interface HistoryRow {
  at: string;
  action: string;
  level: string;
  status: string;
  actor_type: string | null;
  actor_id: string | null;
  comment: string | null;
  data_id: string | null;
  reason: string | null;
}

export function toAlarm(row: AlarmRow, history: HistoryRow[] = []): monitoringData.Alarm {
  const opt = <K extends string, V>(key: K, v: V | null): { [P in K]?: V } => (v === null ? {} : ({ [key]: v } as { [P in K]: V }));
  return {
    id: row.id,
    projectId: row.project_id,
    pointId: row.point_id,
    rule: row.rule,
    level: row.level,
    status: row.status,
    reason: row.reason,
    ...opt('thresholdWarning', row.threshold_warning),
    ...opt('thresholdAlarm', row.threshold_alarm),
    ...opt('value', row.value),
    ...opt('firstDataId', row.first_data_id),
    ...opt('lastDataId', row.last_data_id),
    ...opt('lastMeasuredAt', row.last_measured_at && iso(row.last_measured_at)),
    readingCount: row.reading_count,
    ...opt('channel', row.channel),
    ...opt('firstMeasuredAt', row.first_measured_at && iso(row.first_measured_at)),
    openingCount: row.opening_count,
    normalCount: row.normal_count,
    openedAt: iso(row.opened_at),
    updatedAt: iso(row.updated_at),
    ...opt('acknowledgedAt', row.acknowledged_at && iso(row.acknowledged_at)),
    ...opt('acknowledgedBy', row.acknowledged_by),
    ...opt('acknowledgeComment', row.acknowledge_comment),
    ...opt('clearedAt', row.cleared_at && iso(row.cleared_at)),
    ...opt('clearedBy', row.cleared_by),
    ...opt('clearComment', row.clear_comment),
    version: row.version,
    history: history.map((h) => ({
      at: iso(h.at),
      action: h.action,
      level: h.level,
      status: h.status,
      ...opt('actorType', h.actor_type),
      ...opt('actorId', h.actor_id),
      ...opt('comment', h.comment),
      ...opt('dataId', h.data_id),
      ...opt('reason', h.reason),
    })),
  };
}

export async function historyOf(q: Queryable, alarmId: string): Promise<HistoryRow[]> {
  const { rows } = await q.query<HistoryRow>(
    'SELECT at, action, level, status, actor_type, actor_id, comment, data_id, reason FROM alarm_history WHERE alarm_id = $1 ORDER BY seq',
    [alarmId],
  );
  return rows;
}

/**
 * An alarm by id for the caller: 400004 for a malformed id, 404014 when it does not exist in the
 * caller's tenant and environment (another tenant's alarm is not revealed, as data records), then
 * the caller's access to its project (403001, and 403002 for changes, from the projects service).
 * `lock` takes the row for update inside the caller's transaction.
 */
export async function loadAlarm(
  deps: Pick<DataDeps, 'db' | 'contexts'>,
  caller: CallerContext,
  id: string,
  forWrite: boolean,
): Promise<{ row: AlarmRow; ctx: ProjectContext }> {
  const row = await loadAlarmRow(deps.db, caller, id);
  const ctx = await deps.contexts.get(caller, row.project_id, [], forWrite);
  return { row, ctx };
}

/**
 * The alarm's row alone (404014 for another tenant's or environment's), locked with `lock`: for
 * use inside a transaction after loadAlarm checked access. The access check reads this service's
 * database outside the transaction (the project's ingest version), which on the embedded
 * database's single connection would wait for the transaction itself.
 */
export async function loadAlarmRow(q: Queryable, caller: CallerContext, id: string, lock = false): Promise<AlarmRow> {
  if (!isId('alarm', id))
    throw new DomainError('400004', { field: 'alarm_id', detail: 'alarm_id is not an alarm id (alm_…).', suggestion: 'Use the id the API returned.' });
  const { rows } = await q.query<AlarmRow>(`SELECT ${ALARM_COLUMNS} FROM alarms WHERE id = $1${lock ? ' FOR UPDATE' : ''}`, [id]);
  const row = rows[0];
  if (!row || row.tenant_id !== caller.tenantId || row.environment !== caller.environment) {
    throw new DomainError('404014', {
      field: 'alarm_id',
      detail: `Alarm ${id} does not exist.`,
      suggestion: 'Check the alarm_id, or find the alarm with GET /v3/projects/{project_id}/alarms.',
    });
  }
  return row;
}
