// The words the API accepts for kinds, roles and permissions: the services check values against
// these lists (422103 for anything else) and the API reference states them as enums.

/** The permission identifiers a key, user or grant may carry. */
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

/** How urgent a task is. */
export const TASK_PRIORITIES = ['low', 'normal', 'high', 'urgent'] as const;

/** A project member's role: owners manage, editors write, viewers read. */
export const MEMBER_ROLES = ['owner', 'editor', 'viewer'] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];

/** Sensor kinds of a deformation-monitoring site. */
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

/** A device is an instrument of one of the sensor kinds, or the logger/gateway that reads them. */
export const DEVICE_TYPES = [...SENSOR_TYPES, 'data_logger', 'other'] as const;
export const DEVICE_STATUSES = ['active', 'inactive', 'maintenance', 'retired'] as const;

/** What a report template can hold, and the documents a report is rendered as. */
export const REPORT_SECTIONS = ['summary', 'alarms', 'latest', 'points'] as const;
export const REPORT_FORMATS = ['pdf', 'csv', 'xlsx'] as const;
