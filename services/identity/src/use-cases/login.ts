import type { identity } from '@mp/contracts';
import { verifyCredentials } from '../credentials.js';
import type { IdentityDeps } from '../deps.js';
import { parseEnvironment } from '../environment.js';
import { requireEnvironment, tenantPlan } from '../plans.js';
import { openSession } from '../sessions.js';
import { issueTokens } from '../tokens.js';

/**
 * POST /auth/login (docs/rules.md#sign-in): checks the credentials (lockout included, per account and source: ADR 0019), then
 * opens a session in the environment of the base URL and issues its first token pair. A tenant
 * whose plan has no sandbox cannot sign in there (403004).
 */
export async function login(deps: IdentityDeps, req: identity.LoginRequest): Promise<identity.TokenResponse> {
  const environment = parseEnvironment(req.environment);
  const user = await verifyCredentials(deps, req.username, req.password, req.clientAddress);
  requireEnvironment(await tenantPlan(deps.db, user.tenant_id), environment);
  return deps.db.transaction(async (tx) => {
    const sessionId = await openSession(tx, { userId: user.id, tenantId: user.tenant_id, environment, now: deps.clock.now() });
    return issueTokens(deps, tx, { userId: user.id, tenantId: user.tenant_id, permissions: user.permissions, sessionId }, environment);
  });
}
