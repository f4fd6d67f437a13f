import type { projects } from '@mp/contracts';
import type { CallerContext } from '@mp/grpc';
import type { ProjectsDeps } from '../deps.js';
import { loadDevice, toDevice } from '../device-row.js';

export async function getDevice(deps: ProjectsDeps, req: projects.Ref, ctx: CallerContext): Promise<projects.Device> {
  return toDevice(await loadDevice(deps.db, ctx, req.id));
}
