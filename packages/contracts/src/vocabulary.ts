// The words the platform's parts share: permission identifiers, member roles, sensor and device
// kinds, alarm statuses, task priorities, report sections and formats, and the status tables.
// Services enforce them, the gateway documents them, the console offers them and the tests use
// them, all from here.
//
// Browser-safe: the console bundles this module (`@mp/contracts/vocabulary`), so it imports
// nothing but plain constants — no Node built-ins, no generated gRPC code.

export * from './statuses.js';

/** The permission identifiers: the only values a key, user or OAuth grant may carry. */
export const PERMISSIONS = [
  'project:read',
  'project:write',
  'task:read',
  'task:write',
  'data:read',
  'data:write',
  'report:read',
  'report:write',
  'system:read',
  'system:admin',
] as const;
export type Permission = (typeof PERMISSIONS)[number];

export function isPermission(value: string): value is Permission {
  return (PERMISSIONS as readonly string[]).includes(value);
}

/** What each permission allows, in the words a person granting it reads (the OAuth consent page). */
export const PERMISSION_MEANINGS: Readonly<Record<Permission, string>> = {
  'project:read': 'read project information',
  'project:write': 'create and modify projects',
  'task:read': 'read tasks',
  'task:write': 'dispatch and modify tasks',
  'data:read': 'read monitoring data',
  'data:write': 'write monitoring data',
  'report:read': 'read reports',
  'report:write': 'generate reports',
  'system:read': 'read system configuration',
  'system:admin': 'system administration',
};

/** A project member's role: read (any), write (owner, editor), manage members and delete (owner). */
export const MEMBER_ROLES = ['owner', 'editor', 'viewer'] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];

/** Sensor kinds of a deformation-monitoring site (a point's sensor_type). */
export const SENSOR_TYPES = [
  'total_station',
  'gnss',
  'level',
  'inclinometer',
  'tiltmeter',
  'settlement_gauge',
  'extensometer',
  'crack_meter',
  'piezometer',
  'strain_gauge',
  'water_level_gauge',
] as const;
export type SensorType = (typeof SENSOR_TYPES)[number];

/** A device is an instrument of one of the sensor kinds, or the logger/gateway that reads them. */
export const DEVICE_TYPES = [...SENSOR_TYPES, 'data_logger', 'other'] as const;
export type DeviceType = (typeof DEVICE_TYPES)[number];

export const DEVICE_STATUSES = ['active', 'inactive', 'maintenance', 'retired'] as const;
export type DeviceStatus = (typeof DEVICE_STATUSES)[number];

/** An alarm is open until a person acknowledges or clears it (ALARM_STEPS). */
export const ALARM_STATUSES = ['open', 'acknowledged', 'cleared'] as const;
export type AlarmStatus = (typeof ALARM_STATUSES)[number];

/** Trigger levels of an alarm, least to most urgent (api-surface, third wave). */
export const ALARM_LEVELS = ['warning', 'alarm', 'action'] as const;
export type AlarmLevel = (typeof ALARM_LEVELS)[number];

/** What a notification mail is about: an alarm opened, its level rose, a reminder, the escalation list told. */
export const NOTIFICATION_KINDS = ['opened', 'escalated', 'reminder', 'escalation'] as const;
/** A notification mail is waiting (or retrying), sent, failed for good, or skipped while mail is not configured. */
export const NOTIFICATION_STATUSES = ['pending', 'sent', 'failed', 'skipped'] as const;

/** How urgent a task is. */
export const TASK_PRIORITIES = ['low', 'normal', 'high', 'urgent'] as const;

/** What a report template can hold, and the documents a report is rendered as. */
export const REPORT_SECTIONS = ['summary', 'alarms', 'latest', 'points'] as const;
export const REPORT_FORMATS = ['pdf', 'csv', 'xlsx'] as const;
