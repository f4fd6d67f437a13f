import { z } from 'zod';
import { PROJECT_STATUSES, RECORD_STATUSES, REPORT_FORMATS, REPORT_STATUSES, TASK_PRIORITIES, TASK_STATUSES, TRIGGER_LEVELS } from '@mp/contracts';

// The `data` of each event as producers build it and webhook receivers get it (docs/events.md).
// Every schema is named (`meta({ id })`): the OpenAPI document's `webhooks` section refers to
// them, and the SDK's types are generated from there. Objects are closed in the document, so a
// producer that adds a field without adding it here fails the contract tests.

const isoTime = z.string().meta({ description: 'ISO 8601 UTC timestamp.' });
const nullableTime = isoTime.nullable();

/** A member as events show them: display name and masked phone (the id as name for a non-member). */
export const personSchema = z
  .object({
    user_id: z.string(),
    name: z.string(),
    phone: z.string().meta({ description: 'Masked: the first three and last four digits kept (138****5678); empty when unknown.' }),
  })
  .meta({ id: 'EventPerson' });

const values = z
  .object({
    x: z.number().optional(),
    y: z.number().optional(),
    z: z.number().optional(),
    dx: z.number().optional(),
    dy: z.number().optional(),
    dz: z.number().optional(),
  })
  .catchall(z.number())
  .meta({
    description:
      'The values the record has: coordinates x, y, z in metres and displacements dx, dy, dz in millimetres (geodetic types), or the channels of the point’s sensor type by name, in their units, with those its calibration converted and its derived channels (docs/instruments.md).',
  });

/** normal, or the highest trigger level crossed (warning, alarm, action). */
const recordStatus = z.enum(RECORD_STATUSES);
const alertLevel = z.enum(TRIGGER_LEVELS);

const recordBase = {
  data_id: z.string(),
  point_id: z.string(),
  point_name: z.string(),
  sensor_type: z.string(),
  measured_at: z.string().meta({ description: 'ISO 8601 with the UTC offset the reading was sent with.' }),
  values,
  status: recordStatus,
};

/** One monitoring record of data.created and data.updated. */
export const eventRecordSchema = z.object({ ...recordBase, quality_flag: z.string() }).meta({ id: 'EventRecord' });

/** One record of data.abnormal: displacements only, the limits it broke and why. */
export const abnormalRecordSchema = z
  .object({
    ...recordBase,
    values: values
      .pick({ dx: true, dy: true, dz: true })
      .catchall(z.number())
      .meta({ description: 'dx, dy, dz (mm) of a geodetic record; the channels of an instrument’s.' }),
    status: alertLevel,
    threshold: z.object({ warning: z.number(), alarm: z.number() }),
    reason: z.string(),
    level: alertLevel.optional().meta({ description: 'The level crossed (the record’s status).' }),
    channel: z.string().optional().meta({ description: 'The channel whose limit was crossed (dx, dy or dz for a displacement threshold).' }),
  })
  .meta({ id: 'EventAbnormalRecord' });

const inProject = { project_id: z.string(), project_name: z.string() };

export const dataCreatedPayload = z
  .object({
    ...inProject,
    records: z.array(eventRecordSchema),
    total_count: z.number().int(),
    abnormal_count: z.number().int(),
  })
  .meta({ id: 'DataCreatedPayload', description: 'Every record a write stored.' });

export const dataUpdatedPayload = z
  .object({
    ...inProject,
    change: z.enum(['updated', 'deleted']),
    changed_fields: z.array(z.string()).meta({ description: 'values, quality_flag and/or remark; empty for a deletion.' }),
    records: z.array(eventRecordSchema).meta({
      description: 'The record as it is now, or as it was when deleted; a recomputation’s batch (ADR 0116): the readings it changed, as they are now.',
    }),
    remark: z.string().nullable().optional().meta({ description: 'The record’s remark after the change (not on a deletion).' }),
  })
  .meta({
    id: 'DataUpdatedPayload',
    description:
      'A record was changed (PATCH /data/{id}) or deleted (DELETE /data/{id}), or readings were recomputed (a new calibration, changed derived channels).',
  });

export const dataAbnormalPayload = z
  .object({ ...inProject, alert_level: alertLevel, records: z.array(abnormalRecordSchema) })
  .meta({ id: 'DataAbnormalPayload', description: 'Records over a threshold, or the reading a rate or stale-data alarm is about.' });

export const dataBatchCompletedPayload = z
  .object({
    batch_id: z.string(),
    project_id: z.string(),
    project_name: z.string().optional().meta({ description: 'Absent when the batch failed before its project was read.' }),
    status: z.enum(['completed', 'failed']),
    total_count: z.number().int(),
    accepted_count: z.number().int(),
    rejected_count: z.number().int(),
    abnormal_count: z.number().int(),
    created_at: isoTime,
    completed_at: isoTime,
  })
  .meta({ id: 'DataBatchCompletedPayload' });

const inTask = { task_id: z.string(), task_name: z.string(), ...inProject };
const taskStatus = z.enum(TASK_STATUSES);

export const taskCreatedPayload = z
  .object({
    ...inTask,
    status: taskStatus,
    priority: z.enum(TASK_PRIORITIES),
    due_at: nullableTime,
    assignee: personSchema.nullable(),
    created_by: personSchema,
    created_at: isoTime,
  })
  .meta({ id: 'TaskCreatedPayload' });

export const taskAssignedPayload = z
  .object({
    ...inTask,
    status: taskStatus,
    assignee: personSchema,
    previous_assignee: personSchema.nullable(),
    assigned_by: personSchema,
    assigned_at: isoTime,
  })
  .meta({ id: 'TaskAssignedPayload' });

const taskStatusChangedShape = {
  ...inTask,
  previous_status: taskStatus,
  current_status: taskStatus,
  changed_by: personSchema,
  changed_at: isoTime,
  remark: z.string(),
};

export const taskStatusChangedPayload = z.object(taskStatusChangedShape).meta({ id: 'TaskStatusChangedPayload' });

export const taskCompletedPayload = z
  .object({ ...taskStatusChangedShape, completed_at: isoTime })
  .meta({ id: 'TaskCompletedPayload', description: 'task.status_changed’s fields and when the task was completed.' });

export const taskOverduePayload = z
  .object({ ...inTask, status: taskStatus, due_at: isoTime, overdue_at: isoTime, assignee: personSchema.nullable() })
  .meta({ id: 'TaskOverduePayload' });

const projectStatus = z.enum(PROJECT_STATUSES);

export const projectCreatedPayload = z
  .object({
    ...inProject,
    number: z.string(),
    status: projectStatus,
    start_date: z.string().nullable(),
    end_date: z.string().nullable(),
    created_by: z.string().meta({ description: 'The id of the user or API key that created the project.' }),
    created_at: isoTime,
  })
  .meta({ id: 'ProjectCreatedPayload' });

export const projectStatusChangedPayload = z
  .object({
    ...inProject,
    previous_status: projectStatus,
    current_status: projectStatus,
    changed_by: personSchema,
    changed_at: isoTime,
    remark: z.string(),
  })
  .meta({ id: 'ProjectStatusChangedPayload', description: 'Also the data of project.completed (a move to completed or archived).' });

export const reportPayload = z
  .object({
    report_id: z.string(),
    report_title: z.string(),
    ...inProject,
    template_id: z.string(),
    period: z.object({ from: z.string(), to: z.string() }),
    status: z.enum(REPORT_STATUSES),
    files: z.array(z.object({ format: z.enum(REPORT_FORMATS), size_bytes: z.number().int(), sha256: z.string() })),
    generated_at: nullableTime,
    data_as_of: nullableTime,
    approved_by: z.string().nullable().optional(),
    approved_at: nullableTime.optional(),
    comment: z.string().nullable().optional(),
    rejected_by: z.string().nullable().optional(),
    rejected_at: nullableTime.optional(),
    reason: z.string().nullable().optional(),
  })
  .meta({
    id: 'ReportEventPayload',
    description: 'The report, its period and files; approved_by/approved_at/comment on report.approved, rejected_by/rejected_at/reason on report.rejected.',
  });

const alarmShape = {
  alarm_id: z.string(),
  project_id: z.string(),
  point_id: z.string(),
  rule: z.enum(['threshold', 'rate', 'stale']),
  level: alertLevel,
  channel: z.string().nullable().optional().meta({ description: 'The channel whose level was crossed (threshold alarms).' }),
  status: z.enum(['open', 'acknowledged', 'cleared']),
  reason: z.string(),
  by: z.object({ principal_type: z.string(), principal_id: z.string() }).nullable().meta({
    description: 'Null when the readings cleared the alarm; principal_type `recipient` (an e-mail address) for an acknowledge link of a notification.',
  }),
  automatic: z.boolean(),
  comment: z.string().nullable(),
  at: isoTime,
};

export const alarmPayload = z.object(alarmShape).meta({ id: 'AlarmEventPayload' });

/**
 * alarm.opened and alarm.escalated: one event per transition (never one per reading), with what a
 * person told of it needs — the project and point by name, the value and the reading's time.
 */
export const alarmRaisedPayload = z
  .object({
    ...alarmShape,
    project_name: z.string(),
    point_name: z.string(),
    channel: z.string().nullable().meta({ description: 'The channel whose reading raised the alarm; null when the rule is about the point as a whole.' }),
    value: z.number().nullable().meta({ description: "The value that broke the rule in the rule's unit (mm, mm/day, seconds without data)." }),
    data_id: z.string().nullable(),
    measured_at: nullableTime.meta({ description: 'When the reading that raised it was measured (UTC).' }),
  })
  .meta({ id: 'AlarmRaisedPayload', description: 'An alarm was opened, or its level rose (escalated, which re-opens an acknowledged alarm).' });

export const webhookTestPayload = z
  .object({ message: z.string(), webhook_id: z.string(), webhook_name: z.string() })
  .meta({ id: 'WebhookTestPayload', description: 'Sent by POST /webhooks/{id}/test to that webhook only.' });
