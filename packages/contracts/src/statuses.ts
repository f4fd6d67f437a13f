// The published status lists and transition tables (docs/adr/0007). The projects service enforces
// them (services/projects/src/transitions.ts) and the gateway's API reference shows them: one
// table, two readers. A move that is not listed — including "to the same status" — is refused.

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

/** An alarm is open, acknowledged or cleared (docs/adr/0024); a person's steps and the statuses they start from. */
export const ALARM_STEPS = {
  acknowledge: { from: ['open'], to: 'acknowledged' },
  clear: { from: ['open', 'acknowledged'], to: 'cleared' },
} as const;

/** The transition table of one step, as the API reference prints it. */
export const alarmStepTransitions = (step: keyof typeof ALARM_STEPS): Record<string, readonly string[]> =>
  Object.fromEntries(ALARM_STEPS[step].from.map((from) => [from, [ALARM_STEPS[step].to]]));

export const REPORT_STATUSES = ['generating', 'generated', 'failed', 'approved', 'rejected'] as const;
export type ReportStatus = (typeof REPORT_STATUSES)[number];

/**
 * A report's status (docs/rules.md#report-generation, ADR 0026): generation ends in `generated` or `failed`; a person
 * approves or rejects a generated report (POST /reports/{id}/approve|reject), anything else is
 * 409011. The reports service moves only along this table.
 */
export const REPORT_TRANSITIONS: Record<ReportStatus, readonly ReportStatus[]> = {
  generating: ['generated', 'failed'],
  generated: ['approved', 'rejected'],
  failed: [],
  approved: [],
  rejected: [],
};
