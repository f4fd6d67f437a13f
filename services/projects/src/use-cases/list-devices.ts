import { ListQuery } from '@mp/kit';
import type { projects } from '@mp/contracts';
import type { CallerContext } from '@mp/grpc';
import type { ProjectsDeps } from '../deps.js';
import { DEVICE_COLUMNS, DEVICE_STATUSES, DEVICE_TYPES, toDevice, type DeviceRow } from '../device-row.js';
import { checkEnum, containsPattern } from '../validation.js';

/** GET /devices with filters status, type and q (serial number, name or model). */
export async function listDevices(deps: ProjectsDeps, req: projects.ListDevicesRequest, ctx: CallerContext): Promise<projects.DeviceList> {
  const q = new ListQuery(req.page);
  q.and(`tenant_id = ${q.param(ctx.tenantId)}`).and(`environment = ${q.param(ctx.environment)}`);
  if (req.status !== undefined) q.and(`status = ${q.param(checkEnum(req.status, DEVICE_STATUSES, 'status'))}`);
  if (req.type !== undefined) q.and(`type = ${q.param(checkEnum(req.type, DEVICE_TYPES, 'type'))}`);
  if (req.q) {
    const p = q.param(containsPattern(req.q));
    q.and(`(serial_number ILIKE ${p} OR name ILIKE ${p} OR model ILIKE ${p})`);
  }
  const { rows } = await deps.db.query<DeviceRow>(q.sql(`SELECT ${DEVICE_COLUMNS} FROM devices`), q.params);
  return q.result(rows, toDevice);
}
