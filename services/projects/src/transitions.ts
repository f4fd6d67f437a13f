import { DomainError } from '@mp/errors';

import { PROJECT_STATUSES, PROJECT_TRANSITIONS, TASK_STATUSES, TASK_TRANSITIONS, type ProjectStatus, type TaskStatus } from '@mp/contracts';

// The published transition tables live in @mp/contracts (statuses.ts), where the gateway's API
// reference reads them too; this service enforces them here and nothing else decides a move.
export { PROJECT_STATUSES, PROJECT_TRANSITIONS, TASK_STATUSES, TASK_TRANSITIONS, type ProjectStatus, type TaskStatus };

/** Statuses that raise project.completed besides project.status_changed (docs/rules.md#project-statuses). */
export const PROJECT_COMPLETION_STATUSES: readonly ProjectStatus[] = ['completed', 'archived'];

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
