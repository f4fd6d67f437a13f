import type { ProjectStatus, TaskStatus } from '@mp/contracts';
import type { Queryable } from '@mp/db';
import { appendEvent, type EventPayload, type EventType } from '@mp/events';
import type { CallerContext } from '@mp/grpc';
import type { PersonJson } from './people.js';

/**
 * Writes a domain event of the caller's tenant and environment to the outbox, in `tx`; its data
 * is typed by the event catalogue, so a payload cannot drift from what receivers are promised.
 */
export async function emit<T extends EventType>(
  tx: Queryable,
  ctx: Pick<CallerContext, 'tenantId' | 'environment' | 'traceparent'>,
  type: T,
  occurredAt: string,
  data: EventPayload<T>,
) {
  return appendEvent(tx, {
    type,
    tenantId: ctx.tenantId,
    environment: ctx.environment,
    occurredAt,
    ...(ctx.traceparent ? { traceparent: ctx.traceparent } : {}),
    data,
  });
}

/**
 * task.status_changed, exactly docs/rules.md#event-payloads — no more, no fewer fields. task.completed carries the
 * same fields plus completed_at.
 */
export function taskStatusChanged(
  t: { id: string; name: string; project_id: string },
  projectName: string,
  previous: TaskStatus,
  current: TaskStatus,
  changedBy: PersonJson,
  changedAt: string,
  remark: string,
): EventPayload<'task.status_changed'> {
  return {
    task_id: t.id,
    task_name: t.name,
    project_id: t.project_id,
    project_name: projectName,
    previous_status: previous,
    current_status: current,
    changed_by: changedBy,
    changed_at: changedAt,
    remark,
  };
}

/** project.status_changed and project.completed: the shape of docs/rules.md#event-payloads, for a project. */
export function projectStatusChanged(
  p: { id: string; name: string },
  previous: ProjectStatus,
  current: ProjectStatus,
  changedBy: PersonJson,
  changedAt: string,
  remark: string,
): EventPayload<'project.status_changed'> {
  return {
    project_id: p.id,
    project_name: p.name,
    previous_status: previous,
    current_status: current,
    changed_by: changedBy,
    changed_at: changedAt,
    remark,
  };
}
