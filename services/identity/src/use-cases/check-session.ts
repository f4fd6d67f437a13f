import type { identity } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import type { IdentityDeps } from '../deps.js';
import { parseEnvironment } from '../environment.js';
import { PLAN_COLUMNS, requireEnvironment, toPlan, type PlanRow } from '../plans.js';

interface SessionCheckRow extends PlanRow {
  user_id: string;
  tenant_id: string;
  environment: string;
  client_id: string | null;
  revoked_at: string | null;
  disabled: boolean;
  permissions: string[];
  user_name: string;
}

const ended = (detail: string) => new DomainError('401003', { field: 'Authorization', detail, suggestion: 'Sign in again with POST /auth/login.' });

/**
 * The gateway's question on every bearer request, after it verified the token's signature: is
 * the session still open, the user still there and enabled, the environment licensed? One
 * indexed query. This is what makes logout, a disabled account, a revoked OAuth grant and a
 * removed permission take effect at the next request on every replica (ADR 0010), instead of
 * when the 7200-second access token expires.
 */
export async function checkSession(deps: IdentityDeps, req: identity.CheckSessionRequest): Promise<identity.Principal> {
  const environment = parseEnvironment(req.environment);
  const { rows } = await deps.db.query<SessionCheckRow>(
    `SELECT s.user_id, s.tenant_id, s.environment, s.client_id, s.revoked_at, u.disabled, u.permissions, u.name AS user_name, ${PLAN_COLUMNS}
       FROM sessions s
       JOIN users u ON u.id = s.user_id
       JOIN tenants t ON t.id = u.tenant_id
       JOIN plans p ON p.name = t.plan
      WHERE s.id = $1`,
    [req.sessionId],
    // Asked on every bearer request: planning this join costs more than running it.
    { prepare: 'identity_check_session' },
  );
  const row = rows[0];
  if (
    !row ||
    row.user_id !== req.userId ||
    row.tenant_id !== req.tenantId ||
    row.environment !== environment ||
    (row.client_id ?? undefined) !== req.clientId
  ) {
    throw ended('The access token does not belong to a session of this service.');
  }
  // A disabled account is told so, whatever became of the session (disabling ends it too).
  if (row.disabled) {
    throw new DomainError('401006', {
      field: null,
      detail: 'This account has been disabled by an administrator.',
      suggestion: 'Ask a tenant administrator to re-enable the account.',
    });
  }
  if (row.revoked_at !== null) throw ended('The session of this access token has ended (signed out, or its tokens were revoked).');
  const plan = toPlan(row);
  requireEnvironment(plan, environment);
  return {
    tenantId: row.tenant_id,
    environment,
    principalId: row.user_id,
    principalType: 'user',
    // A permission taken from the user since the token was issued is gone at once.
    permissions: req.scope.filter((p) => row.permissions.includes(p)),
    name: row.user_name,
    plan,
    ...(row.client_id !== null ? { clientId: row.client_id } : {}),
    sessionId: req.sessionId,
    versionsStore: deps.authVersions.id,
  };
}
