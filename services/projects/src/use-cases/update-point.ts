import type { projects } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import { checkVersion, projectFor } from '../access.js';
import { assertInside } from '../bounds.js';
import type { ProjectsDeps } from '../deps.js';
import { loadDevice } from '../device-row.js';
import { checkAlarmRules, storeAlarmRules } from '../alarm-rules.js';
import { checkReference, checkTypeFields } from '../point-rules.js';
import { checkTriggerLevels, triggerLevelsOf } from '../trigger-levels.js';
import { checkDerivedChannels, derivedChannelsOf } from '../calibrations.js';
import { loadPoint, POINT_COLUMNS, SENSOR_TYPES, toPoint, type PointRow } from '../point-row.js';
import { checkClear, checkEnum, checkNumber, checkOptionalText, checkText } from '../validation.js';
import { duplicatePointNumber } from './create-point.js';

/** What decides the derived values a reading holds: each channel's name and expression, in order (a unit is only a label). */
const computedBy = (list: readonly projects.DerivedChannel[]) => JSON.stringify(list.map((d) => [d.name, d.expression]));

const CLEARABLE = ['abrupt_change_limit', 'precision', 'device_id', 'description', 'alarm_rules'] as const;

/** PATCH /points/{id}: the same rules as creation, applied to the merged point. */
export async function updatePoint(deps: ProjectsDeps, req: projects.UpdatePointRequest, ctx: CallerContext): Promise<projects.Point> {
  const clear = checkClear(req.clear, CLEARABLE);
  const number = req.number !== undefined ? checkText(req.number, 'number', 1, 64) : undefined;
  const name = req.name !== undefined ? checkText(req.name, 'name', 1, 100) : undefined;
  const sensorType = req.sensorType !== undefined ? checkEnum(req.sensorType, SENSOR_TYPES, 'sensor_type') : undefined;
  const reference = req.reference !== undefined ? checkReference(req.reference) : undefined;
  const abrupt = req.abruptChangeLimit !== undefined ? checkNumber(req.abruptChangeLimit, 'abrupt_change_limit', { positive: true }) : undefined;
  const precision = req.precision !== undefined ? checkNumber(req.precision, 'precision', { positive: true }) : undefined;
  const description = req.description !== undefined ? checkOptionalText(req.description, 'description', 2000) : undefined;
  const alarmRules = req.alarmRules !== undefined ? checkAlarmRules(req.alarmRules) : undefined;
  try {
    const row = await deps.db.transaction(async (tx) => {
      const peek = await loadPoint(tx, ctx, req.id);
      const project = await projectFor(tx, ctx, peek.project_id, 'write', { lock: 'update' });
      const current = await loadPoint(tx, ctx, req.id, { lock: true });
      checkVersion(current.version, req.expectedVersion, 'point');
      const warning = req.warningThreshold ?? current.warning_threshold;
      const alarm = req.alarmThreshold ?? current.alarm_threshold;
      const type = sensorType ?? current.sensor_type;
      const ref = reference ?? (current.ref_x === null ? null : { x: current.ref_x, y: current.ref_y!, z: current.ref_z! });
      checkTypeFields(type, ref, warning, alarm);
      if (reference) assertInside(project.bounds, reference, 'reference');
      // A calibration's coefficients are the instrument's: under another type the same raw channel
      // (a vibrating wire's frequency) would be converted into the new type's unit with them.
      if (type !== current.sensor_type) {
        const { rows: kept } = await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM point_calibrations WHERE point_id = $1', [current.id]);
        if (kept[0]!.n > 0) {
          throw new DomainError('422204', {
            field: 'sensor_type',
            detail: `Point ${current.id} has ${kept[0]!.n} calibration(s) of its ${current.sensor_type}; they would convert readings of a ${type} wrongly.`,
            suggestion: 'Create a new point for the other instrument (calibrations cannot be moved to another type).',
          });
        }
      }
      // Trigger levels are checked against the type the point has after the change.
      // Derived channels too; a trigger level may name one of them.
      const derived = checkDerivedChannels(req.derivedChannels ? req.derivedChannels.items : derivedChannelsOf(current.derived_channels), type);
      const levels = checkTriggerLevels(req.triggerLevels ? req.triggerLevels.items : triggerLevelsOf(current), type, derived);
      if (req.deviceId !== undefined) await loadDevice(tx, ctx, req.deviceId, { missing: '422104' });
      const pick = <T>(field: string, given: T | undefined, kept: T | null): T | null => (clear.has(field) ? null : given !== undefined ? given : kept);
      const { rows } = await tx.query<PointRow>(
        `UPDATE points SET number = $2, name = $3, sensor_type = $4, ref_x = $5, ref_y = $6, ref_z = $7, warning_threshold = $8, alarm_threshold = $9,
                abrupt_change_limit = $10, precision_mm = $11, device_id = $12, active = $13, description = $14, updated_at = $15, trigger_levels = $16, derived_channels = $17,
                version = version + 1
          WHERE id = $1 RETURNING ${POINT_COLUMNS}`,
        [
          current.id,
          number ?? current.number,
          name ?? current.name,
          sensorType ?? current.sensor_type,
          ref?.x ?? null,
          ref?.y ?? null,
          ref?.z ?? null,
          warning,
          alarm,
          pick('abrupt_change_limit', abrupt, current.abrupt_change_limit),
          pick('precision', precision, current.precision_mm),
          pick('device_id', req.deviceId, current.device_id),
          req.active ?? current.active,
          pick('description', description, current.description),
          deps.clock.now().toISOString(),
          levels.length ? JSON.stringify(levels) : null,
          derived.length ? JSON.stringify(derived) : null,
        ],
      );
      const version = await deps.ingestVersions.bump(tx, ctx, project.id);
      // New derived channels change what stored readings hold (ADR 0117): they are recomputed
      // from the point's first reading, by a job handed over before this change commits.
      if (req.derivedChannels && computedBy(derived) !== computedBy(derivedChannelsOf(current.derived_channels))) {
        await deps.ingestVersions.scheduleRecompute(ctx, {
          calibrationId: '',
          projectId: project.id,
          pointId: current.id,
          validFrom: new Date(0).toISOString(),
          createdBy: ctx.principalId,
          cause: 'derived_channels',
          minVersion: version,
        });
      }
      if (clear.has('alarm_rules') || alarmRules !== undefined) return storeAlarmRules(tx, current.id, clear.has('alarm_rules') ? null : alarmRules!);
      return rows[0]!;
    });
    return toPoint(row);
  } catch (err) {
    throw duplicatePointNumber(err, number);
  }
}
