import type { projects } from '@mp/contracts';
import { createOnce } from '@mp/db';
import type { CallerContext } from '@mp/grpc';
import { newId } from '@mp/kit';
import type { ProjectsDeps } from '../deps.js';
import { checkCalibration, duplicateSerial } from '../device-rules.js';
import { DEVICE_COLUMNS, DEVICE_STATUSES, DEVICE_TYPES, toDevice, type DeviceRow } from '../device-row.js';
import { checkDate, checkEnum, checkOptionalText, checkText } from '../validation.js';

/** POST /devices: serial number unique per tenant and environment. */
export async function createDevice(deps: ProjectsDeps, req: projects.CreateDeviceRequest, ctx: CallerContext): Promise<projects.Device> {
  const serial = checkText(req.serialNumber, 'serial_number', 1, 64);
  const model = checkText(req.model, 'model', 1, 100);
  const type = checkEnum(req.type, DEVICE_TYPES, 'type');
  const name = req.name !== undefined ? checkText(req.name, 'name', 1, 100) : null;
  const manufacturer = req.manufacturer !== undefined ? checkText(req.manufacturer, 'manufacturer', 1, 100) : null;
  const status = req.status !== undefined ? checkEnum(req.status, DEVICE_STATUSES, 'status') : 'active';
  const calibratedAt = checkDate(req.calibratedAt, 'calibrated_at');
  const dueAt = checkDate(req.calibrationDueAt, 'calibration_due_at');
  checkCalibration(calibratedAt, dueAt);
  const description = checkOptionalText(req.description, 'description', 2000);
  try {
    return await createOnce(deps.db, deps.clock.now(), ctx, 'CreateDevice', req, async (tx) => {
      const now = deps.clock.now().toISOString();
      const { rows } = await tx.query<DeviceRow>(
        `INSERT INTO devices (id, tenant_id, environment, serial_number, name, model, type, manufacturer, status, calibrated_at, calibration_due_at, description, created_by, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $14) RETURNING ${DEVICE_COLUMNS}`,
        [
          newId('device'),
          ctx.tenantId,
          ctx.environment,
          serial,
          name,
          model,
          type,
          manufacturer,
          status,
          calibratedAt,
          dueAt,
          description,
          ctx.principalId,
          now,
        ],
      );
      return toDevice(rows[0]!);
    });
  } catch (err) {
    throw duplicateSerial(err, serial);
  }
}
