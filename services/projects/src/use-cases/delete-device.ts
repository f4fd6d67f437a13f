import type { projects } from '@mp/contracts';
import type { CallerContext } from '@mp/grpc';
import { checkVersion } from '../access.js';
import type { ProjectsDeps } from '../deps.js';
import { DEVICE_COLUMNS, loadDevice, toDevice, type DeviceRow } from '../device-row.js';

/** DELETE /devices/{id}: points that used the device keep their data and lose the link (device_id → null). */
export async function deleteDevice(deps: ProjectsDeps, req: projects.Ref, ctx: CallerContext): Promise<projects.Device> {
  const row = await deps.db.transaction(async (tx) => {
    const current = await loadDevice(tx, ctx, req.id, { lock: true });
    checkVersion(current.version, req.expectedVersion, 'device');
    const { rows } = await tx.query<DeviceRow>(`DELETE FROM devices WHERE id = $1 RETURNING ${DEVICE_COLUMNS}`, [current.id]);
    return rows[0]!;
  });
  return toDevice(row);
}
