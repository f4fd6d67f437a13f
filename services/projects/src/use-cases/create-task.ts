import type { projects } from '@mp/contracts';
import { createOnce } from '@mp/db';
import { DomainError } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import { newId } from '@mp/kit';
import { projectFor } from '../access.js';
import { assigneeIn } from '../assignee.js';
import type { ProjectsDeps } from '../deps.js';
import { emit } from '../events.js';
import { personIn } from '../people.js';
import { TASK_COLUMNS, TASK_PRIORITIES, toTask, type TaskRow } from '../task-row.js';
import { checkDateTime, checkEnum, checkOptionalText, checkText } from '../validation.js';

/**
 * POST /projects/{id}/tasks. A paused project takes no new tasks (422302), an archived one no
 * change at all (422301). With an assignee the task starts as `assigned` and task.assigned follows
 * task.created.
 */
export async function createTask(deps: ProjectsDeps, req: projects.CreateTaskRequest, ctx: CallerContext): Promise<projects.Task> {
  const name = checkText(req.name, 'name', 2, 100);
  const description = checkOptionalText(req.description, 'description', 2000);
  const priority = req.priority !== undefined ? checkEnum(req.priority, TASK_PRIORITIES, 'priority') : 'normal';
  const dueAt = req.dueAt !== undefined ? checkDateTime(req.dueAt, 'due_at') : null;
  const task = await createOnce(deps.db, deps.clock.now(), ctx, 'CreateTask', req, async (tx) => {
    const project = await projectFor(tx, ctx, req.projectId, 'write');
    if (project.status === 'paused') {
      throw new DomainError('422302', { field: 'project_id', detail: `Project ${project.id} is paused; it takes no new tasks.` });
    }
    const assignee = req.assigneeId !== undefined ? await assigneeIn(tx, project.id, req.assigneeId, 'assignee_id') : null;
    const now = deps.clock.now();
    const at = now.toISOString();
    const { rows } = await tx.query<TaskRow>(
      `INSERT INTO tasks (id, project_id, tenant_id, environment, name, description, status, priority, assignee_id, due_at, created_by, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $12) RETURNING ${TASK_COLUMNS}`,
      [
        newId('task'),
        project.id,
        ctx.tenantId,
        ctx.environment,
        name,
        description,
        assignee ? 'assigned' : 'pending',
        priority,
        assignee?.user_id ?? null,
        dueAt,
        ctx.principalId,
        at,
      ],
    );
    const row: TaskRow = { ...rows[0]!, assignee_name: assignee?.name ?? null, assignee_phone: assignee?.phone ?? null };
    const actor = await personIn(tx, project.id, ctx.principalId);
    const base = { task_id: row.id, task_name: row.name, project_id: project.id, project_name: project.name };
    await emit(tx, ctx, 'task.created', at, {
      ...base,
      status: row.status,
      priority: row.priority,
      due_at: row.due_at,
      assignee,
      created_by: actor,
      created_at: row.created_at,
    });
    if (assignee)
      await emit(tx, ctx, 'task.assigned', at, { ...base, status: row.status, assignee, previous_assignee: null, assigned_by: actor, assigned_at: at });
    return toTask(row, now);
  });
  deps.relay.kick();
  return task;
}
