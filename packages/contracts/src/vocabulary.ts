// The words the platform's parts share: permission identifiers, member roles, sensor and device
// kinds (with their channels), alarm statuses, task priorities, report sections and formats, and the status tables.
// Services enforce them, the gateway documents them, the console offers them and the tests use
// them, all from here.
//
// Browser-safe: the console bundles this module (`@mp/contracts/vocabulary`), so it imports
// nothing but plain constants — no Node built-ins, no generated gRPC code.

import { SENSOR_TYPES } from './sensor-types.js';

export * from './statuses.js';
// Sensor types with their channels, units and plausible ranges (docs/instruments.md).
export * from './sensor-types.js';

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

/** The permissions that read something: `GET /sensor-types` takes any one of them. */
export const READ_PERMISSIONS = PERMISSIONS.filter((p) => p.endsWith(':read'));

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

/** A device is an instrument of one of the sensor kinds, or the logger/gateway that reads them. */
export const DEVICE_TYPES = [...SENSOR_TYPES, 'data_logger', 'other'] as const;
export type DeviceType = (typeof DEVICE_TYPES)[number];

export const DEVICE_STATUSES = ['active', 'inactive', 'maintenance', 'retired'] as const;
export type DeviceStatus = (typeof DEVICE_STATUSES)[number];

/** An alarm is open until a person acknowledges or clears it (ALARM_STEPS). */
export const ALARM_STATUSES = ['open', 'acknowledged', 'cleared'] as const;
export type AlarmStatus = (typeof ALARM_STATUSES)[number];

/**
 * An alarm's level, lowest first: the order is the severity the alarm inbox, project lists and
 * point states rank by (the highest level wins). A record's status is `normal` or one of these.
 */
export const ALARM_LEVELS = ['warning', 'alarm', 'action'] as const;
export type AlarmLevel = (typeof ALARM_LEVELS)[number];

/** A point's state now (GET /projects/{id}/points `status`), lowest first. */
export const POINT_STATUSES = ['normal', ...ALARM_LEVELS] as const;

/** What a notification mail is about: an alarm opened, its level rose, a reminder, the escalation list told. */
export const NOTIFICATION_KINDS = ['opened', 'escalated', 'reminder', 'escalation'] as const;
/** A notification mail is waiting (or retrying), sent, failed for good, or skipped while mail is not configured. */
export const NOTIFICATION_STATUSES = ['pending', 'sent', 'failed', 'skipped'] as const;

/** How urgent a task is. */
export const TASK_PRIORITIES = ['low', 'normal', 'high', 'urgent'] as const;

/** What a report template can hold, and the documents a report is rendered as. */
export const REPORT_SECTIONS = ['summary', 'alarms', 'latest', 'points'] as const;
export const REPORT_FORMATS = ['pdf', 'csv', 'xlsx'] as const;

/** Logger file imports (docs/imports.md): the file formats, and the timestamp formats a profile may name (`iso` the default). */
export const IMPORT_FORMATS = ['csv', 'toa5'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];
export const IMPORT_TIMESTAMP_FORMATS = [
  'iso',
  'YYYY-MM-DD HH:mm:ss',
  'YYYY-MM-DD HH:mm',
  'YYYY/MM/DD HH:mm:ss',
  'DD/MM/YYYY HH:mm:ss',
  'DD/MM/YYYY HH:mm',
  'MM/DD/YYYY HH:mm:ss',
  'MM/DD/YYYY HH:mm',
  'DD.MM.YYYY HH:mm:ss',
  'DD.MM.YYYY HH:mm',
] as const;
