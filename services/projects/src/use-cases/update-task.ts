import type { projects } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import { checkVersion } from '../access.js';
import type { ProjectsDeps } from '../deps.js';
import { TASK_COLUMNS, TASK_PRIORITIES, taskFor, toTask, type TaskRow } from '../task-row.js';
import { TASK_TERMINAL } from '../transitions.js';
import { checkClear, checkDateTime, checkEnum, checkOptionalText, checkText } from '../validation.js';

const CLEARABLE = ['description', 'due_at'] as const;

/**
 * PATCH /tasks/{id}. A closed task (completed, cancelled) is read-only: 409005. Moving due_at past
 * "now" ends the overdue state (the sweep may flag the task again at the new deadline).
 */
export async function updateTask(deps: ProjectsDeps, req: projects.UpdateTaskRequest, ctx: CallerContext): Promise<projects.Task> {
  const clear = checkClear(req.clear, CLEARABLE);
  const name = req.name !== undefined ? checkText(req.name, 'name', 2, 100) : undefined;
  const description = req.description !== undefined ? checkOptionalText(req.description, 'description', 2000) : undefined;
  const priority = req.priority !== undefined ? checkEnum(req.priority, TASK_PRIORITIES, 'priority') : undefined;
  const dueAt = req.dueAt !== undefined ? checkDateTime(req.dueAt, 'due_at') : undefined;
  const now = deps.clock.now();
  const row = await deps.db.transaction(async (tx) => {
    const { task } = await taskFor(tx, ctx, req.id, 'write');
    checkVersion(task.version, req.expectedVersion, 'task');
    if (TASK_TERMINAL.includes(task.status)) {
      throw new DomainError('409005', {
        field: 'status',
        detail: `Task ${task.id} is ${task.status}; a closed task cannot be changed.`,
        suggestion: 'Create a new task instead.',
      });
    }
    const nextDue = clear.has('due_at') ? null : dueAt !== undefined ? dueAt : task.due_at;
    const stillOverdueFlagged = task.overdue_at !== null && nextDue !== null && Date.parse(nextDue) <= now.getTime();
    const { rows } = await tx.query<TaskRow>(
      `UPDATE tasks SET name = $2, description = $3, priority = $4, due_at = $5, overdue_at = $6, updated_at = $7, version = version + 1
        WHERE id = $1 RETURNING ${TASK_COLUMNS}`,
      [
        task.id,
        name ?? task.name,
        clear.has('description') ? null : description !== undefined ? description : task.description,
        priority ?? task.priority,
        nextDue,
        stillOverdueFlagged ? task.overdue_at : null,
        now.toISOString(),
      ],
    );
    return { ...rows[0]!, assignee_name: task.assignee_name ?? null, assignee_phone: task.assignee_phone ?? null };
  });
  return toTask(row, now);
}
