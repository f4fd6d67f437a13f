import type { z } from 'zod';
import * as p from './payloads.js';

/**
 * The event catalogue: every event type, its group, the subject it travels on and the schema of
 * its data. Producers and consumers both read this table, so an unknown type cannot be published
 * or subscribed to by accident, and the OpenAPI document's `webhooks` section and the SDK's
 * types are generated from the same schemas the contract tests check deliveries against.
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
  // Our own event types (docs/rules.md#alarm-events, docs/adr/0024-alarms.md, 0090): an alarm was opened or its level
  // rose; a person acknowledged an alarm; an alarm was cleared, by a person or by the readings
  // returning within the limits.
  'alarm.opened',
  'alarm.escalated',
  'alarm.acknowledged',
  'alarm.cleared',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/** The test event of POST /webhooks/{id}/test; it is sent to one webhook only, never published. */
export const TEST_EVENT_TYPE = 'webhook.test';

/** What each event's data holds and when it fires (docs/events.md). */
export const EVENT_CATALOGUE = {
  'data.created': { payload: p.dataCreatedPayload, fires: 'Monitoring data was written (a synchronous write or a batch).' },
  'data.updated': { payload: p.dataUpdatedPayload, fires: 'A monitoring record was changed or deleted.' },
  'data.abnormal': { payload: p.dataAbnormalPayload, fires: 'Monitoring data broke a threshold, a rate limit, or a point went stale.' },
  'data.batch_completed': { payload: p.dataBatchCompletedPayload, fires: 'An asynchronous batch write finished (completed or failed).' },
  'task.created': { payload: p.taskCreatedPayload, fires: 'A task was created.' },
  'task.assigned': { payload: p.taskAssignedPayload, fires: 'A task was given to a member (at creation or later).' },
  'task.status_changed': { payload: p.taskStatusChangedPayload, fires: "A task's status changed." },
  'task.completed': { payload: p.taskCompletedPayload, fires: 'A task was completed (after its task.status_changed).' },
  'task.overdue': { payload: p.taskOverduePayload, fires: 'An open task passed its due time.' },
  'project.created': { payload: p.projectCreatedPayload, fires: 'A project was created.' },
  'project.status_changed': { payload: p.projectStatusChangedPayload, fires: "A project's status changed." },
  'project.completed': { payload: p.projectStatusChangedPayload, fires: 'A project was completed or archived (after its project.status_changed).' },
  'report.generated': { payload: p.reportPayload, fires: 'A report finished generating; its files can be downloaded.' },
  'report.approved': { payload: p.reportPayload, fires: 'A generated report was approved.' },
  'report.rejected': { payload: p.reportPayload, fires: 'A generated report was rejected.' },
  'alarm.opened': { payload: p.alarmRaisedPayload, fires: 'An alarm was opened (once per alarm, not per reading).' },
  'alarm.escalated': { payload: p.alarmRaisedPayload, fires: "An active alarm's level rose; an acknowledged one is open again." },
  'alarm.acknowledged': { payload: p.alarmPayload, fires: 'A person acknowledged an alarm.' },
  'alarm.cleared': { payload: p.alarmPayload, fires: 'An alarm was cleared, by a person or by the readings returning within the limits.' },
} as const satisfies Record<EventType, { payload: z.ZodType; fires: string }>;

/** The data of an event type, as producers build it and receivers get it. */
export type EventPayload<T extends EventType> = z.infer<(typeof EVENT_CATALOGUE)[T]['payload']>;

/** The test event's entry: not an EventType (never published), but delivered like one. */
export const TEST_EVENT = { payload: p.webhookTestPayload, fires: 'POST /webhooks/{id}/test was called for this webhook.' } as const;

/** The schema of the data of a delivered event type (the test event's included); undefined for an unknown type. */
export function payloadSchemaOf(type: string): z.ZodType | undefined {
  if (type === TEST_EVENT_TYPE) return TEST_EVENT.payload;
  return isEventType(type) ? EVENT_CATALOGUE[type].payload : undefined;
}

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
 * The webhook envelope (docs/rules.md#event-envelope) is built from it per subscriber.
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

/**
 * How a webhook delivery is sent: the request headers the webhooks service sets and receivers
 * (and the SDK's verifyWebhook) read, and the signature's replay window. The OpenAPI document
 * describes deliveries from these.
 */
export const DELIVERY = {
  headers: {
    signature: 'X-Service-Signature',
    timestamp: 'X-Service-Timestamp',
    eventId: 'X-Service-Event-ID',
  },
  signaturePrefix: 'sha256=',
  toleranceSeconds: 300,
  userAgent: 'MonitoringPlatform-Webhooks/3',
} as const;
