import type { projects } from '@mp/contracts';
import type { CallerContext } from '@mp/grpc';
import { checkVersion } from '../access.js';
import type { ProjectsDeps } from '../deps.js';
import { checkCalibration, duplicateSerial } from '../device-rules.js';
import { DEVICE_COLUMNS, DEVICE_STATUSES, DEVICE_TYPES, loadDevice, toDevice, type DeviceRow } from '../device-row.js';
import { dateOnly } from '../project-row.js';
import { checkClear, checkDate, checkEnum, checkOptionalText, checkText } from '../validation.js';

const CLEARABLE = ['name', 'manufacturer', 'calibrated_at', 'calibration_due_at', 'description'] as const;

/** PATCH /devices/{id}. */
export async function updateDevice(deps: ProjectsDeps, req: projects.UpdateDeviceRequest, ctx: CallerContext): Promise<projects.Device> {
  const clear = checkClear(req.clear, CLEARABLE);
  const serial = req.serialNumber !== undefined ? checkText(req.serialNumber, 'serial_number', 1, 64) : undefined;
  const model = req.model !== undefined ? checkText(req.model, 'model', 1, 100) : undefined;
  const type = req.type !== undefined ? checkEnum(req.type, DEVICE_TYPES, 'type') : undefined;
  const name = req.name !== undefined ? checkText(req.name, 'name', 1, 100) : undefined;
  const manufacturer = req.manufacturer !== undefined ? checkText(req.manufacturer, 'manufacturer', 1, 100) : undefined;
  const status = req.status !== undefined ? checkEnum(req.status, DEVICE_STATUSES, 'status') : undefined;
  const calibratedAt = req.calibratedAt !== undefined ? checkDate(req.calibratedAt, 'calibrated_at') : undefined;
  const dueAt = req.calibrationDueAt !== undefined ? checkDate(req.calibrationDueAt, 'calibration_due_at') : undefined;
  const description = req.description !== undefined ? checkOptionalText(req.description, 'description', 2000) : undefined;
  try {
    const row = await deps.db.transaction(async (tx) => {
      const current = await loadDevice(tx, ctx, req.id, { lock: true });
      checkVersion(current.version, req.expectedVersion, 'device');
      const pick = <T>(field: string, given: T | undefined, kept: T | null): T | null => (clear.has(field) ? null : given !== undefined ? given : kept);
      const next = {
        calibratedAt: pick('calibrated_at', calibratedAt, dateOnly(current.calibrated_at)),
        dueAt: pick('calibration_due_at', dueAt, dateOnly(current.calibration_due_at)),
      };
      checkCalibration(next.calibratedAt, next.dueAt);
      const { rows } = await tx.query<DeviceRow>(
        `UPDATE devices SET serial_number = $2, model = $3, type = $4, name = $5, manufacturer = $6, status = $7, calibrated_at = $8, calibration_due_at = $9,
                description = $10, updated_at = $11, version = version + 1 WHERE id = $1 RETURNING ${DEVICE_COLUMNS}`,
        [
          current.id,
          serial ?? current.serial_number,
          model ?? current.model,
          type ?? current.type,
          pick('name', name, current.name),
          pick('manufacturer', manufacturer, current.manufacturer),
          status ?? current.status,
          next.calibratedAt,
          next.dueAt,
          pick('description', description, current.description),
          deps.clock.now().toISOString(),
        ],
      );
      return rows[0]!;
    });
    return toDevice(row);
  } catch (err) {
    throw duplicateSerial(err, serial);
  }
}
