import type { projects } from '@mp/contracts';
import { createOnce, isUniqueViolation } from '@mp/db';
import { DomainError, excerpt } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import { newId } from '@mp/kit';
import { projectFor } from '../access.js';
import { assertInside } from '../bounds.js';
import type { ProjectsDeps } from '../deps.js';
import { loadDevice } from '../device-row.js';
import { checkAlarmRules, storeAlarmRules } from '../alarm-rules.js';
import { checkReference, checkTypeFields } from '../point-rules.js';
import { checkTriggerLevels } from '../trigger-levels.js';
import { BEGINNING, checkCalibration, checkDerivedChannels, insertCalibration } from '../calibrations.js';
import { POINT_COLUMNS, SENSOR_TYPES, toPoint, type PointRow } from '../point-row.js';
import { checkEnum, checkNumber, checkOptionalText, checkText } from '../validation.js';

/** POST /projects/{id}/points: number unique per project (409002), reference inside the project's bounds (422201). */
export async function createPoint(deps: ProjectsDeps, req: projects.CreatePointRequest, ctx: CallerContext): Promise<projects.Point> {
  const number = checkText(req.number, 'number', 1, 64);
  const name = checkText(req.name, 'name', 1, 100);
  const sensorType = checkEnum(req.sensorType, SENSOR_TYPES, 'sensor_type');
  checkTypeFields(sensorType, req.reference, req.warningThreshold, req.alarmThreshold);
  const reference = req.reference ? checkReference(req.reference) : null;
  const derived = checkDerivedChannels(req.derivedChannels?.items ?? [], sensorType);
  const triggerLevels = checkTriggerLevels(req.triggerLevels?.items ?? [], sensorType, derived);
  const calibration = req.calibration !== undefined ? checkCalibration(req.calibration, sensorType, 'calibration', BEGINNING) : null;
  const abrupt = req.abruptChangeLimit !== undefined ? checkNumber(req.abruptChangeLimit, 'abrupt_change_limit', { positive: true }) : null;
  const precision = req.precision !== undefined ? checkNumber(req.precision, 'precision', { positive: true }) : null;
  const description = checkOptionalText(req.description, 'description', 2000);
  const alarmRules = req.alarmRules !== undefined ? checkAlarmRules(req.alarmRules) : null;
  try {
    return await createOnce(deps.db, deps.clock.now(), ctx, 'CreatePoint', req, async (tx) => {
      const project = await projectFor(tx, ctx, req.projectId, 'write', { lock: 'update' });
      if (reference) assertInside(project.bounds, reference, 'reference');
      if (req.deviceId !== undefined) await loadDevice(tx, ctx, req.deviceId, { missing: '422104' });
      const now = deps.clock.now().toISOString();
      const { rows } = await tx.query<PointRow>(
        `INSERT INTO points (id, project_id, tenant_id, environment, number, name, sensor_type, ref_x, ref_y, ref_z, warning_threshold, alarm_threshold,
                             abrupt_change_limit, precision_mm, device_id, active, description, created_by, created_at, updated_at, trigger_levels, derived_channels)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $19, $20, $21) RETURNING ${POINT_COLUMNS}`,
        [
          newId('point'),
          project.id,
          ctx.tenantId,
          ctx.environment,
          number,
          name,
          sensorType,
          reference?.x ?? null,
          reference?.y ?? null,
          reference?.z ?? null,
          req.warningThreshold,
          req.alarmThreshold,
          abrupt,
          precision,
          req.deviceId ?? null,
          req.active ?? true,
          description,
          ctx.principalId,
          now,
          triggerLevels.length ? JSON.stringify(triggerLevels) : null,
          derived.length ? JSON.stringify(derived) : null,
        ],
      );
      // A new point has no readings yet: its first calibration needs no recomputation.
      if (calibration) await insertCalibration(tx, ctx, rows[0]!.id, calibration, now, 'calibration');
      await deps.ingestVersions.bump(tx, ctx, project.id);
      return toPoint(alarmRules ? await storeAlarmRules(tx, rows[0]!.id, alarmRules) : rows[0]!);
    });
  } catch (err) {
    throw duplicatePointNumber(err, number);
  }
}

/** 409002 for the per-project unique constraint; anything else unchanged. */
export function duplicatePointNumber(err: unknown, number: string | undefined): unknown {
  if (isUniqueViolation(err, 'points_number_unique')) {
    return new DomainError('409002', { field: 'number', detail: `The project already has a point numbered ${excerpt(number)}.` });
  }
  return err;
}
