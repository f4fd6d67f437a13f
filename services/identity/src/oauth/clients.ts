import type { identity } from '@mp/contracts';
import type { Queryable } from '@mp/db';
import { DomainError, excerpt } from '@mp/errors';
import { isId } from '@mp/kit';
import type { Environment } from '../environment.js';

export interface OAuthClientRow {
  id: string;
  tenant_id: string;
  environment: Environment;
  name: string;
  client_type: 'confidential' | 'public';
  secret_hash: string | null;
  redirect_uris: string[];
  created_by: string | null;
  /** The permissions of the principal that registered it (ADR 0063): who may delete it. */
  creator_permissions: string[];
  created_at: string;
}

export const CLIENT_COLUMNS = 'id, tenant_id, environment, name, client_type, secret_hash, redirect_uris, created_by, creator_permissions, created_at';

/** The contract shape of a client: never the secret or its hash. */
export function toOAuthClient(row: OAuthClientRow): identity.OAuthClient {
  return {
    id: row.id,
    name: row.name,
    clientType: row.client_type,
    redirectUris: row.redirect_uris,
    environment: row.environment,
    createdAt: row.created_at,
    ...(row.created_by !== null ? { createdBy: row.created_by } : {}),
  };
}

export const clientNotFound = (id: string) =>
  new DomainError('404012', {
    field: 'client_id',
    detail: `OAuth client ${excerpt(id)} does not exist in this environment.`,
    suggestion: 'Check the client_id, or register the application with POST /oauth/clients.',
  });

/**
 * A client of this environment by id, for the authorization and token endpoints (any tenant: the
 * client id is what the third-party application presents). Null when unknown or malformed.
 */
export async function findClient(q: Queryable, id: string, environment: Environment): Promise<OAuthClientRow | null> {
  if (!isId('client', id)) return null;
  const { rows } = await q.query<OAuthClientRow>(`SELECT ${CLIENT_COLUMNS} FROM oauth_clients WHERE id = $1 AND environment = $2`, [id, environment]);
  return rows[0] ?? null;
}
