import type { identity } from '@mp/contracts';
import type { Environment } from './environment.js';

export interface UserRow {
  id: string;
  tenant_id: string;
  username: string;
  name: string;
  phone: string | null;
  password_hash: string;
  permissions: string[];
  disabled: boolean;
  /** The end of the latest sign-in lock of this account from any source (ADR 0019); shown to administrators. */
  locked_until: string | null;
  last_login_at: string | null;
  created_at: string;
  updated_at: string;
  version: number;
}

export const USER_COLUMNS =
  'id, tenant_id, username, name, phone, password_hash, permissions, disabled, locked_until, last_login_at, created_at, updated_at, version';

/** The contract shape of a user: never the password hash. An expired lock is not shown. */
export function toUser(row: UserRow, now: Date): identity.User {
  const locked = row.locked_until !== null && Date.parse(row.locked_until) > now.getTime();
  return {
    id: row.id,
    tenantId: row.tenant_id,
    username: row.username,
    name: row.name,
    ...(row.phone !== null ? { phone: row.phone } : {}),
    permissions: row.permissions,
    disabled: row.disabled,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    version: row.version,
    ...(row.last_login_at !== null ? { lastLoginAt: row.last_login_at } : {}),
    ...(locked ? { lockedUntil: row.locked_until! } : {}),
  };
}

export interface ApiKeyRow {
  id: string;
  tenant_id: string;
  environment: Environment;
  name: string;
  prefix: string;
  key_hash: string;
  permissions: string[];
  created_by: string | null;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
  rolled_at: string | null;
  /** The latest end of a previous value's grace period, when one is still running. */
  previous_expires_at: string | null;
}

/**
 * Columns of `api_keys k` plus the end of the longest running grace period of a previous value
 * (`$now` is the parameter holding the current time).
 */
export const apiKeyColumns = (now: string) =>
  `k.id, k.tenant_id, k.environment, k.name, k.prefix, k.key_hash, k.permissions, k.created_by, k.created_at, k.expires_at, k.revoked_at, k.last_used_at, k.rolled_at,
   (SELECT max(p.expires_at) FROM api_key_previous_values p WHERE p.key_id = k.id AND p.expires_at > ${now}) AS previous_expires_at`;

/** The contract shape of a key: never the value, never the hash. */
export function toApiKey(row: ApiKeyRow): identity.ApiKey {
  return {
    id: row.id,
    name: row.name,
    permissions: row.permissions,
    environment: row.environment,
    prefix: row.prefix,
    createdAt: row.created_at,
    ...(row.expires_at !== null ? { expiresAt: row.expires_at } : {}),
    ...(row.revoked_at !== null ? { revokedAt: row.revoked_at } : {}),
    ...(row.last_used_at !== null ? { lastUsedAt: row.last_used_at } : {}),
    ...(row.rolled_at !== null ? { rolledAt: row.rolled_at } : {}),
    ...(row.previous_expires_at !== null && row.revoked_at === null ? { previousValueExpiresAt: row.previous_expires_at } : {}),
    ...(row.created_by !== null ? { createdBy: row.created_by } : {}),
  };
}
