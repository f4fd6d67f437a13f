import type { Queryable } from '@mp/db';
import type { Scope } from './alarm-store.js';
import type { PointInfo } from '../ingest-context.js';
import type { AlarmSettings } from './settings.js';
import type { Reading } from './reading.js';

/**
 * Keeps the stale-data watch of the points a write reached: their latest reading and the moment
 * they become overdue (latest + expected interval × factor), which the scheduled check waits for.
 * One statement for all points of the write; a backfilled older reading moves nothing back.
 */
export async function watchForStaleness(
  tx: Queryable,
  rulesOf: (p: PointInfo) => AlarmSettings,
  scope: Scope,
  projectName: string,
  byPoint: Map<string, Reading[]>,
): Promise<void> {
  // In point order, as every writer locks them: two writes sharing points cannot deadlock here.
  const latest = [...byPoint.values()]
    .map((list) => list[list.length - 1]!.record)
    .filter((r) => rulesOf(r.point).expectedIntervalSeconds !== null)
    .sort((a, b) => (a.point.id < b.point.id ? -1 : 1));
  if (latest.length === 0) return;
  const interval = latest.map((r) => rulesOf(r.point).expectedIntervalSeconds!);
  const factor = latest.map((r) => rulesOf(r.point).staleFactor);
  await tx.query(
    `INSERT INTO alarm_watch (point_id, tenant_id, environment, project_id, project_name, point_name, sensor_type, warning, alarm,
                              expected_interval_s, stale_factor, last_measured_at, next_check_at)
     SELECT u.point_id, $1, $2, $3, $4, u.point_name, u.sensor_type, u.warning, u.alarm, u.interval_s, u.factor, u.at, u.at + make_interval(secs => u.interval_s * u.factor)
       FROM unnest($5::text[], $6::text[], $7::text[], $8::float8[], $9::float8[], $10::timestamptz[], $11::int[], $12::int[])
         AS u(point_id, point_name, sensor_type, warning, alarm, at, interval_s, factor)
     ON CONFLICT (point_id) DO UPDATE SET
       project_name = EXCLUDED.project_name, point_name = EXCLUDED.point_name, sensor_type = EXCLUDED.sensor_type,
       warning = EXCLUDED.warning, alarm = EXCLUDED.alarm, expected_interval_s = EXCLUDED.expected_interval_s, stale_factor = EXCLUDED.stale_factor,
       last_measured_at = greatest(alarm_watch.last_measured_at, EXCLUDED.last_measured_at),
       next_check_at = greatest(alarm_watch.last_measured_at, EXCLUDED.last_measured_at) + make_interval(secs => EXCLUDED.expected_interval_s * EXCLUDED.stale_factor)`,
    [
      scope.tenantId,
      scope.environment,
      scope.projectId,
      projectName,
      latest.map((r) => r.point.id),
      latest.map((r) => r.point.name),
      latest.map((r) => r.point.sensorType),
      latest.map((r) => r.point.warning),
      latest.map((r) => r.point.alarm),
      latest.map((r) => new Date(r.ms).toISOString()),
      interval,
      factor,
    ],
  );
}
