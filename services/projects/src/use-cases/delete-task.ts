import type { projects } from '@mp/contracts';
import type { CallerContext } from '@mp/grpc';
import { checkVersion } from '../access.js';
import type { ProjectsDeps } from '../deps.js';
import { TASK_COLUMNS, taskFor, toTask, type TaskRow } from '../task-row.js';

/** DELETE /tasks/{id}: editors and owners; no event (the catalogue has none for deletions). */
export async function deleteTask(deps: ProjectsDeps, req: projects.Ref, ctx: CallerContext): Promise<projects.Task> {
  const row = await deps.db.transaction(async (tx) => {
    const { task } = await taskFor(tx, ctx, req.id, 'write');
    checkVersion(task.version, req.expectedVersion, 'task');
    const { rows } = await tx.query<TaskRow>(`DELETE FROM tasks WHERE id = $1 RETURNING ${TASK_COLUMNS}`, [task.id]);
    return { ...rows[0]!, assignee_name: task.assignee_name ?? null, assignee_phone: task.assignee_phone ?? null };
  });
  return toTask(row, deps.clock.now());
}
