import type { identity } from '@mp/contracts';
import type { Environment } from './environment.js';

export interface UserRow {
  id: string;
  tenant_id: string;
  username: string;
  name: string;
  password_hash: string;
  permissions: string[];
  disabled: boolean;
  failed_count: number;
  first_failed_at: string | null;
  locked_until: string | null;
}

export const USER_COLUMNS = 'id, tenant_id, username, name, password_hash, permissions, disabled, failed_count, first_failed_at, locked_until';

export interface ApiKeyRow {
  id: string;
  tenant_id: string;
  environment: Environment;
  name: string;
  prefix: string;
  key_hash: string;
  permissions: string[];
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
}

export const API_KEY_COLUMNS = 'id, tenant_id, environment, name, prefix, key_hash, permissions, created_at, expires_at, revoked_at, last_used_at';

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
  };
}
