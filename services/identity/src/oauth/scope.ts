import { isPermission } from '../permissions.js';

/** The permission identifiers of a space-separated scope, de-duplicated; null when one is unknown or none is given. */
export function parseScope(scope: string): string[] | null {
  const parts = scope.split(' ').filter(Boolean);
  if (parts.length === 0 || !parts.every(isPermission)) return null;
  return [...new Set(parts)];
}
