import type { projects } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import { checkVersion } from '../access.js';
import type { ProjectsDeps } from '../deps.js';
import { emit, taskStatusChanged } from '../events.js';
import { personIn } from '../people.js';
import { isOverdue, TASK_COLUMNS, taskFor, toTask, type TaskRow } from '../task-row.js';
import { assertTransition, TASK_STATUSES, TASK_TRANSITIONS } from '../transitions.js';
import { checkEnum, checkOptionalText } from '../validation.js';

/** An overdue task's status cannot change until its deadline moves (422304, docs/rules.md#overdue-tasks). */
export function assertNotOverdue(task: TaskRow, now: Date): void {
  if (isOverdue(task, now)) {
    throw new DomainError('422304', { field: 'status', detail: `Task ${task.id} has been overdue since ${task.due_at}.` });
  }
}

/**
 * PUT /tasks/{id}/status: one move of the task transition table. Raises task.status_changed with
 * exactly the payload of docs/rules.md#event-payloads, and task.completed when the task is completed.
 */
export async function changeTaskStatus(deps: ProjectsDeps, req: projects.ChangeStatusRequest, ctx: CallerContext): Promise<projects.Task> {
  const status = checkEnum(req.status, TASK_STATUSES, 'status');
  const remark = checkOptionalText(req.remark, 'remark', 500) ?? '';
  const now = deps.clock.now();
  const row = await deps.db.transaction(async (tx) => {
    const { task, project } = await taskFor(tx, ctx, req.id, 'write');
    checkVersion(task.version, req.expectedVersion, 'task');
    assertNotOverdue(task, now);
    assertTransition(TASK_TRANSITIONS, task.status, status, 'task');
    if (status === 'assigned' && task.assignee_id === null) {
      throw new DomainError('422204', {
        field: 'status',
        detail: `Task ${task.id} has no assignee.`,
        suggestion: 'Assign it with POST /tasks/{task_id}/assign {"user_id": …}; that sets the status to assigned.',
      });
    }
    const at = now.toISOString();
    // Handing a task back (→ pending) clears its assignee: pending means nobody has it.
    const assigneeId = status === 'pending' ? null : task.assignee_id;
    const { rows } = await tx.query<TaskRow>(
      `UPDATE tasks SET status = $2, assignee_id = $3, completed_at = $4, updated_at = $5, version = version + 1 WHERE id = $1 RETURNING ${TASK_COLUMNS}`,
      [task.id, status, assigneeId, status === 'completed' ? at : null, at],
    );
    const payload = taskStatusChanged(task, project.name, task.status, status, await personIn(tx, project.id, ctx.principalId), at, remark);
    await emit(tx, ctx, 'task.status_changed', at, payload);
    if (status === 'completed') await emit(tx, ctx, 'task.completed', at, { ...payload, completed_at: at });
    const kept = assigneeId !== null;
    return { ...rows[0]!, assignee_name: kept ? (task.assignee_name ?? null) : null, assignee_phone: kept ? (task.assignee_phone ?? null) : null };
  });
  deps.relay.kick();
  return toTask(row, now);
}
