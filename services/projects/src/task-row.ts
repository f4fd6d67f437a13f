import { TASK_PRIORITIES, type projects } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import type { Queryable } from '@mp/db';
import type { CallerContext } from '@mp/grpc';
import { projectFor } from './access.js';
import type { ProjectRow } from './project-row.js';
import { TASK_TERMINAL, type TaskStatus } from './transitions.js';
import { inScope } from './scope.js';
import { checkId } from './validation.js';

export interface TaskRow {
  id: string;
  project_id: string;
  tenant_id: string;
  environment: string;
  name: string;
  description: string | null;
  status: TaskStatus;
  priority: (typeof TASK_PRIORITIES)[number];
  assignee_id: string | null;
  due_at: string | null;
  overdue_at: string | null;
  completed_at: string | null;
  created_by: string | null;
  created_at: string;
  updated_at: string;
  version: number;
  /** Joined from project_members (display data of the assignee). */
  assignee_name?: string | null;
  assignee_phone?: string | null;
}

export { TASK_PRIORITIES };

const COLUMNS = [
  'id',
  'project_id',
  'tenant_id',
  'environment',
  'name',
  'description',
  'status',
  'priority',
  'assignee_id',
  'due_at',
  'overdue_at',
  'completed_at',
  'created_by',
  'created_at',
  'updated_at',
  'version',
];

/** Task columns (prefixed with the table alias t) plus the assignee's display data. */
export const TASK_SELECT = `SELECT ${COLUMNS.map((c) => `t.${c}`).join(', ')}, m.name AS assignee_name, m.phone_masked AS assignee_phone
  FROM tasks t LEFT JOIN project_members m ON m.project_id = t.project_id AND m.user_id = t.assignee_id`;

/** Columns for RETURNING after an UPDATE/INSERT (no join); reload with TASK_SELECT for display data. */
export const TASK_COLUMNS = COLUMNS.join(', ');

/** Overdue: past due_at and neither completed nor cancelled (docs/rules.md#overdue-tasks). */
export function isOverdue(row: Pick<TaskRow, 'due_at' | 'status'>, now: Date): boolean {
  return row.due_at !== null && !TASK_TERMINAL.includes(row.status) && Date.parse(row.due_at) <= now.getTime();
}

export function toTask(row: TaskRow, now: Date): projects.Task {
  return {
    id: row.id,
    projectId: row.project_id,
    name: row.name,
    status: row.status,
    priority: row.priority,
    overdue: isOverdue(row, now),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    version: row.version,
    ...(row.description !== null ? { description: row.description } : {}),
    ...(row.assignee_id !== null ? { assignee: { userId: row.assignee_id, name: row.assignee_name ?? row.assignee_id, phone: row.assignee_phone ?? '' } } : {}),
    ...(row.due_at !== null ? { dueAt: row.due_at } : {}),
    ...(row.completed_at !== null ? { completedAt: row.completed_at } : {}),
    ...(row.created_by !== null ? { createdBy: row.created_by } : {}),
  };
}

/** The caller's task with its assignee's display data (404002 when unknown here, 403003 when another tenant's). */
export async function loadTask(q: Queryable, ctx: CallerContext, id: string, opts: { lock?: boolean } = {}): Promise<TaskRow> {
  checkId('task', id, 'task_id');
  const { rows } = await q.query<TaskRow>(`${TASK_SELECT} WHERE t.id = $1${opts.lock ? ' FOR UPDATE OF t' : ''}`, [id]);
  return inScope(
    rows[0],
    ctx,
    'task_id',
    () =>
      new DomainError('404002', {
        field: 'task_id',
        detail: `Task ${id} does not exist.`,
        suggestion: 'Check the task id, or list tasks with GET /projects/{project_id}/tasks.',
      }),
  );
}

/**
 * The caller's task and its project for `need`: read, or write (project locked against a
 * concurrent status change, 422301 when archived, task row locked).
 */
export async function taskFor(q: Queryable, ctx: CallerContext, id: string, need: 'read' | 'write'): Promise<{ task: TaskRow; project: ProjectRow }> {
  const peek = await loadTask(q, ctx, id);
  const project = await projectFor(q, ctx, peek.project_id, need);
  return { task: need === 'read' ? peek : await loadTask(q, ctx, id, { lock: true }), project };
}
