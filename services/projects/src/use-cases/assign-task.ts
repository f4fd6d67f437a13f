import type { projects } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import { checkVersion } from '../access.js';
import { assigneeIn } from '../assignee.js';
import type { ProjectsDeps } from '../deps.js';
import { emit, taskStatusChanged } from '../events.js';
import { personIn } from '../people.js';
import { TASK_COLUMNS, taskFor, toTask, type TaskRow } from '../task-row.js';
import { TASK_TERMINAL } from '../transitions.js';
import { checkId } from '../validation.js';
import { assertNotOverdue } from './change-task-status.js';

/**
 * POST /tasks/{id}/assign: gives the task to a member (owner or editor). A pending task becomes
 * assigned, which is a status change too (task.status_changed; refused with 422304 while the task
 * is overdue). Re-assigning an assigned or started task keeps its status. Closed tasks: 409005.
 * Assigning the current assignee again changes nothing and raises nothing.
 */
export async function assignTask(deps: ProjectsDeps, req: projects.AssignTaskRequest, ctx: CallerContext): Promise<projects.Task> {
  const userId = checkId('user', req.userId, 'user_id');
  const now = deps.clock.now();
  const row = await deps.db.transaction(async (tx) => {
    const { task, project } = await taskFor(tx, ctx, req.id, 'write');
    checkVersion(task.version, req.expectedVersion, 'task');
    if (TASK_TERMINAL.includes(task.status)) {
      throw new DomainError('409005', {
        field: 'status',
        detail: `Task ${task.id} is ${task.status}; a closed task cannot be assigned.`,
        suggestion: 'Create a new task instead.',
      });
    }
    const assignee = await assigneeIn(tx, project.id, userId, 'user_id');
    if (task.assignee_id === userId) return task;
    const status = task.status === 'pending' ? 'assigned' : task.status;
    if (status !== task.status) assertNotOverdue(task, now);
    const at = now.toISOString();
    const { rows } = await tx.query<TaskRow>(
      `UPDATE tasks SET assignee_id = $2, status = $3, updated_at = $4, version = version + 1 WHERE id = $1 RETURNING ${TASK_COLUMNS}`,
      [task.id, userId, status, at],
    );
    const actor = await personIn(tx, project.id, ctx.principalId);
    const previous = task.assignee_id ? { user_id: task.assignee_id, name: task.assignee_name ?? task.assignee_id, phone: task.assignee_phone ?? '' } : null;
    await emit(tx, ctx, 'task.assigned', at, {
      task_id: task.id,
      task_name: task.name,
      project_id: project.id,
      project_name: project.name,
      status,
      assignee,
      previous_assignee: previous,
      assigned_by: actor,
      assigned_at: at,
    });
    if (status !== task.status) await emit(tx, ctx, 'task.status_changed', at, taskStatusChanged(task, project.name, task.status, status, actor, at, ''));
    return { ...rows[0]!, assignee_name: assignee.name, assignee_phone: assignee.phone };
  });
  deps.relay.kick();
  return toTask(row, now);
}
