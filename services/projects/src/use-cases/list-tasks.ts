import { ListQuery } from '@mp/kit';
import type { projects } from '@mp/contracts';
import type { CallerContext } from '@mp/grpc';
import { projectFor } from '../access.js';
import type { ProjectsDeps } from '../deps.js';
import { TASK_PRIORITIES, TASK_SELECT, toTask, type TaskRow } from '../task-row.js';
import { TASK_STATUSES } from '../transitions.js';
import { checkEnum, checkId, containsPattern } from '../validation.js';

/** GET /projects/{id}/tasks with filters status, assignee_id, priority, overdue and q (name). */
export async function listTasks(deps: ProjectsDeps, req: projects.ListTasksRequest, ctx: CallerContext): Promise<projects.TaskList> {
  const project = await projectFor(deps.db, ctx, req.projectId, 'read');
  const now = deps.clock.now();
  const q = new ListQuery(req.page, { alias: 't' });
  q.and(`t.project_id = ${q.param(project.id)}`);
  if (req.status !== undefined) q.and(`t.status = ${q.param(checkEnum(req.status, TASK_STATUSES, 'status'))}`);
  if (req.priority !== undefined) q.and(`t.priority = ${q.param(checkEnum(req.priority, TASK_PRIORITIES, 'priority'))}`);
  if (req.assigneeId !== undefined) q.and(`t.assignee_id = ${q.param(checkId('user', req.assigneeId, 'assignee_id'))}`);
  if (req.q) q.and(`t.name ILIKE ${q.param(containsPattern(req.q))}`);
  if (req.overdue !== undefined) {
    // The same definition as isOverdue(): past due_at and not closed.
    const overdue = `(t.due_at IS NOT NULL AND t.due_at <= ${q.param(now.toISOString())} AND t.status NOT IN ('completed', 'cancelled'))`;
    q.and(req.overdue ? overdue : `NOT ${overdue}`);
  }
  const { rows } = await deps.db.query<TaskRow>(q.sql(TASK_SELECT), q.params);
  return q.result(rows, (r) => toTask(r, now));
}
