import { DomainError } from '@mp/errors';
import { constantTimeEqual, sha256Hex } from '@mp/kit';
import type { IdentityDeps } from '../deps.js';
import type { Environment } from '../environment.js';
import { findClient, type OAuthClientRow } from './clients.js';

const unauthorized = () =>
  new DomainError('401005', {
    field: 'client_id',
    detail: 'The OAuth client could not be authenticated.',
    suggestion: 'Send the client_id and client_secret of an application registered in this environment (public clients send no secret).',
  });

/**
 * Client authentication at the token endpoint (RFC 6749 §2.3): a confidential client proves its
 * secret, a public client (PKCE, no secret) must not present one. Every failure is the same 401005,
 * so the answer does not tell which client ids exist.
 */
export async function authenticateClient(deps: IdentityDeps, clientId: string, secret: string | undefined, environment: Environment): Promise<OAuthClientRow> {
  const client = await findClient(deps.db, clientId, environment);
  if (!client) throw unauthorized();
  if (client.client_type === 'public') {
    if (secret) throw unauthorized();
    return client;
  }
  if (!secret || !client.secret_hash || !constantTimeEqual(sha256Hex(secret), client.secret_hash)) throw unauthorized();
  return client;
}
