/** The permission identifiers of spec §2.2, the only values a key or user may carry. */
export const ALL_PERMISSIONS = [
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

export type Permission = (typeof ALL_PERMISSIONS)[number];

export function isPermission(value: string): value is Permission {
  return (ALL_PERMISSIONS as readonly string[]).includes(value);
}
