/** The event types (docs/rules.md#event-types) and the alarm events (ADR 0024), by group; the console test checks them against @mp/events. */
export const EVENT_GROUPS: [string, string[]][] = [
  ['Data', ['data.created', 'data.updated', 'data.abnormal', 'data.batch_completed']],
  ['Tasks', ['task.created', 'task.assigned', 'task.status_changed', 'task.completed', 'task.overdue']],
  ['Projects', ['project.created', 'project.status_changed', 'project.completed']],
  ['Reports', ['report.generated', 'report.approved', 'report.rejected']],
  ['Alarms', ['alarm.opened', 'alarm.escalated', 'alarm.acknowledged', 'alarm.cleared']],
];

export const rate = (r: number | null | undefined) => (r === null || r === undefined ? 'no finished deliveries in 24 h' : `${(r * 100).toFixed(1)} %`);
