import { DomainError } from '@mp/errors';

// The published transition tables (docs/adr/0007, README "Projects, tasks, monitoring points and devices"). A move that is not
// listed — including "to the same status" — is refused; nothing else in the code decides this.

export const PROJECT_STATUSES = ['not_started', 'in_progress', 'paused', 'completed', 'archived'] as const;
export type ProjectStatus = (typeof PROJECT_STATUSES)[number];

export const PROJECT_TRANSITIONS: Record<ProjectStatus, readonly ProjectStatus[]> = {
  not_started: ['in_progress', 'archived'],
  in_progress: ['paused', 'completed'],
  paused: ['in_progress', 'completed'],
  // Reopening a completed project is allowed (follow-up monitoring); archiving closes it for good.
  completed: ['in_progress', 'archived'],
  // Archived is final: every change, this one included, is 422301 (checked before the table).
  archived: [],
};

/** Statuses that raise project.completed besides project.status_changed (spec §6.2, api-surface). */
export const PROJECT_COMPLETION_STATUSES: readonly ProjectStatus[] = ['completed', 'archived'];

export const TASK_STATUSES = ['pending', 'assigned', 'in_progress', 'completed', 'cancelled'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

/**
 * Moves of PUT /tasks/{id}/status. `pending` means nobody has the task, so pending → assigned is
 * not a status move: POST /tasks/{id}/assign makes it (and leaves other statuses as they are).
 */
export const TASK_TRANSITIONS: Record<TaskStatus, readonly TaskStatus[]> = {
  pending: ['in_progress', 'cancelled'],
  // assigned → pending hands the task back (the assignee is cleared).
  assigned: ['pending', 'in_progress', 'cancelled'],
  // in_progress → assigned puts started work back in the assignee's queue.
  in_progress: ['assigned', 'completed', 'cancelled'],
  completed: [],
  cancelled: [],
};

/** Task statuses in which the task is closed: no assignment, no overdue. */
export const TASK_TERMINAL: readonly TaskStatus[] = ['completed', 'cancelled'];

/** 409005 (task) or 409008 (project) when the table does not list the move (docs/adr/0004, 0007). */
export function assertTransition<S extends string>(table: Record<S, readonly S[]>, from: S, to: S, what: 'task' | 'project'): void {
  if (table[from].includes(to)) return;
  const allowed = table[from];
  throw new DomainError(what === 'task' ? '409005' : '409008', {
    field: 'status',
    detail: `A ${what} in status ${from} cannot move to ${to}.`,
    suggestion: allowed.length ? `From ${from} the ${what} can move to: ${allowed.join(', ')}.` : `A ${from} ${what} cannot change status any more.`,
  });
}
