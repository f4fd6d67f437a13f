import type { identity } from '@mp/contracts';
import { createOnce, type Queryable } from '@mp/db';
import { DomainError } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import { newId, randomToken, sha256Hex } from '@mp/kit';
import { requireCaller } from '../caller.js';
import type { IdentityDeps } from '../deps.js';
import { CLIENT_COLUMNS, toOAuthClient, type OAuthClientRow } from '../oauth/clients.js';
import { checkRedirectUri } from '../oauth/redirect-uri.js';
import { requireFeature, tenantPlan } from '../plans.js';

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const MAX_REDIRECT_URIS = 10;

/**
 * POST /oauth/clients: registers a third-party application in the caller's tenant and
 * environment. A confidential client gets a secret, shown here once and stored as its SHA-256
 * (~238 random bits, so a fast hash suffices); a public client (a browser or mobile app that
 * cannot keep a secret) gets none and must use PKCE. Needs the plan's `oauth` feature (403004).
 * With an Idempotency-Key the response is replayed for 24 h, secret included: the replay table
 * holds it sealed with the master key, never in plain text (ADR 0012).
 */
export async function createOAuthClient(deps: IdentityDeps, req: identity.CreateOAuthClientRequest, ctx: CallerContext): Promise<identity.OAuthClientCreated> {
  requireCaller(ctx);
  requireFeature(await tenantPlan(deps.db, ctx.tenantId), 'oauth');
  const name = req.name.trim();
  if (name.length < 1 || name.length > 100) {
    throw new DomainError(name.length === 0 ? '422101' : '400003', {
      field: 'name',
      detail: 'name must be 1 to 100 characters long.',
      suggestion: 'Send the application name users will see on the consent page.',
    });
  }
  const clientType = req.clientType || 'confidential';
  if (clientType !== 'confidential' && clientType !== 'public') {
    throw new DomainError('422103', {
      field: 'client_type',
      detail: 'client_type must be "confidential" or "public".',
      suggestion: 'Use "confidential" for server-side applications.',
    });
  }
  if (req.redirectUris.length === 0) {
    throw new DomainError('422101', {
      field: 'redirect_uris',
      detail: 'redirect_uris must list at least one callback URL.',
      suggestion: 'Send the exact HTTPS callback URL(s) of the application.',
    });
  }
  if (req.redirectUris.length > MAX_REDIRECT_URIS) {
    throw new DomainError('400003', {
      field: 'redirect_uris',
      detail: `At most ${MAX_REDIRECT_URIS} redirect URIs.`,
      suggestion: 'Register separate clients for separate applications.',
    });
  }
  const redirectUris = [...new Set(req.redirectUris.map((u, i) => checkRedirectUri(u, `redirect_uris[${i}]`)))];
  const secret = clientType === 'confidential' ? randomToken(40, ALPHANUMERIC) : null;
  const now = deps.clock.now();
  const insert = async (tx: Queryable): Promise<identity.OAuthClientCreated> => {
    const { rows } = await tx.query<OAuthClientRow>(
      `INSERT INTO oauth_clients (id, tenant_id, environment, name, client_type, secret_hash, redirect_uris, created_by, creator_permissions, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING ${CLIENT_COLUMNS}`,
      [
        newId('client'),
        ctx.tenantId,
        ctx.environment,
        name,
        clientType,
        secret ? sha256Hex(secret) : null,
        redirectUris,
        ctx.principalId,
        ctx.permissions,
        now.toISOString(),
      ],
    );
    deps.logger.info({ client_id: rows[0]!.id, tenant_id: ctx.tenantId, created_by: ctx.principalId, request_id: ctx.requestId }, 'oauth client registered');
    return { client: toOAuthClient(rows[0]!), ...(secret ? { clientSecret: secret } : {}) };
  };
  return createOnce(deps.db, now, ctx, 'CreateOAuthClient', req, insert, { sealer: deps.secrets });
}
