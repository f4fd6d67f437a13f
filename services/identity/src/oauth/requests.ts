import type { identity } from '@mp/contracts';
import type { Queryable } from '@mp/db';
import { DomainError } from '@mp/errors';
import { constantTimeEqual, sha256Hex } from '@mp/kit';
import type { Environment } from '../environment.js';

/** How long the login and consent page stays usable, and how long a code lives (at most 10 minutes: docs/rules.md#oauth). */
export const REQUEST_SECONDS = 600;
export const CODE_SECONDS = 600;

export interface AuthorizationRequestRow {
  id: string;
  csrf_hash: string;
  client_id: string;
  client_name: string;
  tenant_id: string;
  environment: Environment;
  redirect_uri: string;
  scope: string[];
  state: string | null;
  code_challenge: string | null;
  expires_at: string;
  completed_at: string | null;
}

const formInvalid = (field: string, detail: string) =>
  new DomainError('400001', { field, detail, suggestion: 'Go back to the application and start signing in again.' });

/**
 * The pending authorization a consent-page form names, checked against the form's CSRF token
 * (which must also be the one in the page's cookie; the gateway checks that). Unknown, expired,
 * already answered or forged → 400001, shown as an error page: nothing is sent to the client.
 */
export async function loadAuthorizationRequest(
  q: Queryable,
  req: { requestId: string; csrfToken: string; environment: Environment },
  now: Date,
  opts: { lock?: boolean } = {},
): Promise<AuthorizationRequestRow> {
  const { rows } = await q.query<AuthorizationRequestRow>(
    `SELECT r.id, r.csrf_hash, r.client_id, c.name AS client_name, c.tenant_id, r.environment, r.redirect_uri, r.scope, r.state, r.code_challenge, r.expires_at, r.completed_at
       FROM oauth_requests r JOIN oauth_clients c ON c.id = r.client_id
      WHERE r.id = $1${opts.lock ? ' FOR UPDATE OF r' : ''}`,
    [req.requestId],
  );
  const row = rows[0];
  if (!row || row.environment !== req.environment) throw formInvalid('request_id', 'This sign-in form is unknown, or its application was removed.');
  if (!req.csrfToken || !constantTimeEqual(sha256Hex(req.csrfToken), row.csrf_hash))
    throw formInvalid('csrf_token', 'The form did not come from this sign-in page.');
  if (row.completed_at !== null) throw formInvalid('request_id', 'This sign-in form was already answered.');
  if (Date.parse(row.expires_at) <= now.getTime()) throw formInvalid('request_id', 'This sign-in form has expired.');
  return row;
}

export function promptOf(row: AuthorizationRequestRow, csrfToken: string): identity.AuthorizationPrompt {
  return {
    requestId: row.id,
    csrfToken,
    clientId: row.client_id,
    clientName: row.client_name,
    scope: row.scope,
    redirectUri: row.redirect_uri,
    expiresAt: row.expires_at,
  };
}
