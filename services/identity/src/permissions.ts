import { isPermission, PERMISSIONS, type Permission } from '@mp/contracts';
import { DomainError, excerpt } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';

/** The permission identifiers, the only values a key, user or grant may carry: the shared vocabulary's. */
export const ALL_PERMISSIONS = PERMISSIONS;
export { isPermission, type Permission };

/**
 * Validates permissions a caller hands out to a key or a user (ADR 0010): each must be a
 * permission identifier (422103), and the caller must hold it (401004), so a narrow
 * administrator cannot mint a wider key or user. Returns them de-duplicated, in the given order.
 */
export function checkGrantable(permissions: string[], ctx: CallerContext, opts: { field?: string; allowEmpty?: boolean } = {}): string[] {
  const field = opts.field ?? 'permissions';
  if (permissions.length === 0 && !opts.allowEmpty) {
    throw new DomainError('422101', {
      field,
      detail: `${field} must list at least one permission identifier.`,
      suggestion: `Grant one or more of: ${ALL_PERMISSIONS.join(', ')}.`,
    });
  }
  permissions.forEach((p, i) => {
    if (!isPermission(p)) {
      throw new DomainError('422103', {
        field: `${field}[${i}]`,
        detail: `${excerpt(p)} is not a permission identifier.`,
        suggestion: `Use only: ${ALL_PERMISSIONS.join(', ')}.`,
      });
    }
  });
  permissions.forEach((p, i) => {
    if (!ctx.permissions.includes(p)) {
      throw new DomainError('401004', {
        field: `${field}[${i}]`,
        detail: `You cannot grant ${p}: you do not hold it yourself.`,
        suggestion: 'Grant only permissions you hold, or ask an administrator who holds them.',
      });
    }
  });
  return [...new Set(permissions)];
}

/** The reach rule (ADR 0019) is shared with the webhooks service, which applies it to webhooks. */
export { requireReachable } from '@mp/grpc';
