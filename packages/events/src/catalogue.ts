/**
 * The event catalogue (spec §6.2): every event type, its group, and the subject it travels on.
 * Producers and consumers both read this table, so an unknown type cannot be published or
 * subscribed to by accident.
 */
export const EVENT_TYPES = [
  'data.created',
  'data.updated',
  'data.abnormal',
  'data.batch_completed',
  'task.created',
  'task.assigned',
  'task.status_changed',
  'task.completed',
  'task.overdue',
  'project.created',
  'project.status_changed',
  'project.completed',
  'report.generated',
  'report.approved',
  'report.rejected',
  // Extensions beyond spec §6.2 (docs/adr/0024-alarms.md): a person acknowledged an alarm; an
  // alarm was cleared, by a person or by the readings returning within the limits.
  'alarm.acknowledged',
  'alarm.cleared',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/** The test event of POST /webhooks/{id}/test; it is sent to one webhook only, never published. */
export const TEST_EVENT_TYPE = 'webhook.test';

export function isEventType(value: unknown): value is EventType {
  return typeof value === 'string' && (EVENT_TYPES as readonly string[]).includes(value);
}

export type EventGroup = 'data' | 'task' | 'project' | 'report' | 'alarm';

export function eventGroup(type: EventType): EventGroup {
  return type.split('.')[0] as EventGroup;
}

/**
 * The permission that reading an event's payload needs: the one its resource is read with through
 * the API (alarms are read with data:read). A webhook carries payloads to whoever holds its URL
 * and secret, so subscribing to an event needs this permission too — a subscription is a read.
 */
export const EVENT_READ_PERMISSION: Readonly<Record<EventGroup, string>> = {
  data: 'data:read',
  alarm: 'data:read',
  task: 'task:read',
  project: 'project:read',
  report: 'report:read',
};

export function readPermissionOf(type: EventType): string {
  return EVENT_READ_PERMISSION[eventGroup(type)];
}

/**
 * A domain event as it travels from the outbox through the transport to the webhooks service.
 * The webhook envelope (spec §2.5) is built from it per subscriber.
 */
export interface DomainEvent<D = Record<string, unknown>> {
  event_id: string;
  event_type: EventType;
  tenant_id: string;
  environment: 'live' | 'sandbox';
  /** ISO 8601 UTC time the change was committed. */
  occurred_at: string;
  data: D;
  /** W3C traceparent of the request that caused the event, when there was one. */
  traceparent?: string;
}

/** Subject of an event type under a prefix, e.g. `mp.events.project.created`. */
export function subjectFor(prefix: string, type: EventType): string {
  return `${prefix}.${type}`;
}
