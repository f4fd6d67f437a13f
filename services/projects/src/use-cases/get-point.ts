import type { projects } from '@mp/contracts';
import type { CallerContext } from '@mp/grpc';
import { projectFor } from '../access.js';
import type { ProjectsDeps } from '../deps.js';
import { loadPoint, toPoint } from '../point-row.js';

export async function getPoint(deps: ProjectsDeps, req: projects.Ref, ctx: CallerContext): Promise<projects.Point> {
  const point = await loadPoint(deps.db, ctx, req.id);
  await projectFor(deps.db, ctx, point.project_id, 'read');
  return toPoint(point);
}
