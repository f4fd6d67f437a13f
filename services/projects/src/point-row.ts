import { SENSOR_TYPES, type projects } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import type { Queryable } from '@mp/db';
import type { CallerContext } from '@mp/grpc';
import { alarmRulesOf } from './alarm-rules.js';
import { inScope } from './scope.js';
import { triggerLevelsOf } from './trigger-levels.js';
import { derivedChannelsOf, toCalibration, type CalibrationRow } from './calibrations.js';
import { checkId } from './validation.js';
import { POINT_COLUMNS, type PointRow } from './point-columns.js';

/** The row and its column list have their own module, which alarm-rules.ts and trigger-levels.ts read without importing this one. */
export { POINT_COLUMNS, type PointRow };

/** Sensor kinds (422103 for any other value): the shared vocabulary's. */
export { SENSOR_TYPES };

/** The reference coordinates, absent for a point without coordinates. */
const referenceOf = (row: PointRow): { reference?: projects.Coordinates } =>
  row.ref_x === null || row.ref_y === null || row.ref_z === null ? {} : { reference: { x: row.ref_x, y: row.ref_y, z: row.ref_z } };

export function toPoint(row: PointRow): projects.Point {
  return {
    id: row.id,
    projectId: row.project_id,
    number: row.number,
    name: row.name,
    sensorType: row.sensor_type,
    ...referenceOf(row),
    warningThreshold: row.warning_threshold,
    alarmThreshold: row.alarm_threshold,
    active: row.active,
    triggerLevels: triggerLevelsOf(row),
    derivedChannels: derivedChannelsOf(row.derived_channels),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    version: row.version,
    ...(row.abrupt_change_limit !== null ? { abruptChangeLimit: row.abrupt_change_limit } : {}),
    ...(row.precision_mm !== null ? { precision: row.precision_mm } : {}),
    ...(row.device_id !== null ? { deviceId: row.device_id } : {}),
    ...(row.description !== null ? { description: row.description } : {}),
    ...alarmRulesOf(row),
  };
}

/** What monitoring-data validates a measurement against (GetIngestContext). */
export function toPointSpec(row: PointRow, calibrations: readonly CalibrationRow[] = []): projects.PointSpec {
  return {
    id: row.id,
    projectId: row.project_id,
    number: row.number,
    name: row.name,
    sensorType: row.sensor_type,
    ...referenceOf(row),
    warningThreshold: row.warning_threshold,
    alarmThreshold: row.alarm_threshold,
    active: row.active,
    triggerLevels: triggerLevelsOf(row),
    calibrations: calibrations.map((c) => toCalibration(c, row.sensor_type)),
    derivedChannels: derivedChannelsOf(row.derived_channels),
    ...(row.abrupt_change_limit !== null ? { abruptChangeLimit: row.abrupt_change_limit } : {}),
    ...(row.precision_mm !== null ? { precision: row.precision_mm } : {}),
    ...alarmRulesOf(row),
  };
}

/** The caller's point (404003 when unknown here, 403003 when another tenant's). */
export async function loadPoint(q: Queryable, ctx: CallerContext, id: string, opts: { lock?: boolean } = {}): Promise<PointRow> {
  checkId('point', id, 'point_id');
  const { rows } = await q.query<PointRow>(`SELECT ${POINT_COLUMNS} FROM points WHERE id = $1${opts.lock ? ' FOR UPDATE' : ''}`, [id]);
  return inScope(
    rows[0],
    ctx,
    'point_id',
    () =>
      new DomainError('404003', {
        field: 'point_id',
        detail: `Monitoring point ${id} does not exist.`,
        suggestion: 'Check the point id, or list points with GET /projects/{project_id}/points.',
      }),
  );
}
