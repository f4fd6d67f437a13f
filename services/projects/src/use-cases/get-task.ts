import type { projects } from '@mp/contracts';
import type { CallerContext } from '@mp/grpc';
import type { ProjectsDeps } from '../deps.js';
import { taskFor, toTask } from '../task-row.js';

export async function getTask(deps: ProjectsDeps, req: projects.Ref, ctx: CallerContext): Promise<projects.Task> {
  const { task } = await taskFor(deps.db, ctx, req.id, 'read');
  return toTask(task, deps.clock.now());
}
