import { DEVICE_STATUSES, DEVICE_TYPES, type projects } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import type { Queryable } from '@mp/db';
import type { CallerContext } from '@mp/grpc';
import { dateOnly } from './project-row.js';
import { inScope } from './scope.js';
import { checkId } from './validation.js';

export interface DeviceRow {
  id: string;
  tenant_id: string;
  environment: string;
  serial_number: string;
  name: string | null;
  model: string;
  type: string;
  manufacturer: string | null;
  status: string;
  calibrated_at: string | null;
  calibration_due_at: string | null;
  description: string | null;
  created_at: string;
  updated_at: string;
  version: number;
}

export { DEVICE_STATUSES, DEVICE_TYPES };

/**
 * Duplicate serial number. The catalogue has no device code yet (requested: 409007 "duplicate
 * device serial number"); until then the nearest meaning, 409002 "duplicate … number", with
 * field serial_number. Change it here only.
 */
export const DUPLICATE_SERIAL_CODE = '409007';

export const DEVICE_COLUMNS =
  'id, tenant_id, environment, serial_number, name, model, type, manufacturer, status, calibrated_at, calibration_due_at, description, created_at, updated_at, version';

export function toDevice(row: DeviceRow): projects.Device {
  const calibratedAt = dateOnly(row.calibrated_at);
  const calibrationDueAt = dateOnly(row.calibration_due_at);
  return {
    id: row.id,
    serialNumber: row.serial_number,
    model: row.model,
    type: row.type,
    status: row.status,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    version: row.version,
    ...(row.name !== null ? { name: row.name } : {}),
    ...(row.manufacturer !== null ? { manufacturer: row.manufacturer } : {}),
    ...(calibratedAt !== null ? { calibratedAt } : {}),
    ...(calibrationDueAt !== null ? { calibrationDueAt } : {}),
    ...(row.description !== null ? { description: row.description } : {}),
  };
}

/** The caller's device (404008 when unknown here, 403003 when another tenant's). `field` names where the id came from. */
export async function loadDevice(
  q: Queryable,
  ctx: CallerContext,
  id: string,
  opts: { lock?: boolean; field?: string; missing?: '404008' | '422104' } = {},
): Promise<DeviceRow> {
  const field = opts.field ?? 'device_id';
  checkId('device', id, field);
  const { rows } = await q.query<DeviceRow>(`SELECT ${DEVICE_COLUMNS} FROM devices WHERE id = $1${opts.lock ? ' FOR UPDATE' : ''}`, [id]);
  // As a reference inside another resource an unknown device is 422104, as the resource itself 404008.
  const code = opts.missing ?? '404008';
  return inScope(
    rows[0],
    ctx,
    field,
    () => new DomainError(code, { field, detail: `Device ${id} does not exist.`, suggestion: 'Check the device id, or list devices with GET /devices.' }),
  );
}
