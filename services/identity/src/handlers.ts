import { identity } from '@mp/contracts';
import { bindService, type CallerPolicy } from '@mp/grpc';
import type { IdentityDeps } from './deps.js';
import { authenticateApiKey } from './use-cases/authenticate-api-key.js';
import { beginAuthorization } from './use-cases/begin-authorization.js';
import { checkSession } from './use-cases/check-session.js';
import { completeAuthorization } from './use-cases/complete-authorization.js';
import { createApiKey } from './use-cases/create-api-key.js';
import { createOAuthClient } from './use-cases/create-oauth-client.js';
import { createTenant } from './use-cases/create-tenant.js';
import { createUser } from './use-cases/create-user.js';
import { deleteOAuthClient } from './use-cases/delete-oauth-client.js';
import { deleteUser } from './use-cases/delete-user.js';
import { exchangeToken } from './use-cases/exchange-token.js';
import { getApiKey } from './use-cases/get-api-key.js';
import { getJwks } from './use-cases/get-jwks.js';
import { getMe } from './use-cases/get-me.js';
import { getTenant } from './use-cases/get-tenant.js';
import { getUser } from './use-cases/get-user.js';
import { getUserProfiles } from './use-cases/get-user-profiles.js';
import { listApiKeys } from './use-cases/list-api-keys.js';
import { listOAuthClients } from './use-cases/list-oauth-clients.js';
import { listUsers } from './use-cases/list-users.js';
import { login } from './use-cases/login.js';
import { logout } from './use-cases/logout.js';
import { refresh } from './use-cases/refresh.js';
import { resetPassword } from './use-cases/reset-password.js';
import { revokeApiKey } from './use-cases/revoke-api-key.js';
import { rollApiKey } from './use-cases/roll-api-key.js';
import { rotateSigningKey } from './use-cases/rotate-signing-key.js';
import { setTenantPlan } from './use-cases/set-tenant-plan.js';
import { updateUser } from './use-cases/update-user.js';
import { upsertPlan } from './use-cases/upsert-plan.js';
import { listRawRetention } from './use-cases/list-raw-retention.js';

/** Tenants, plans, signing keys and password resets: for the operator's credential only (`mp-operator`). */
export const OPERATOR_METHODS = ['createTenant', 'getTenant', 'setTenantPlan', 'upsertPlan', 'rotateSigningKey', 'resetPassword'] as const;

/** Plans' raw retention, for the monitoring-data archive job only. */
const MONITORING_DATA_METHODS = ['listRawRetention'] as const;

/** The gateway calls every method but the operator's and monitoring-data's; those call only theirs. */
const CALLERS: CallerPolicy = {
  gateway: Object.keys(identity.IdentityService).filter(
    (m) => !(OPERATOR_METHODS as readonly string[]).includes(m) && !(MONITORING_DATA_METHODS as readonly string[]).includes(m),
  ),
  operator: OPERATOR_METHODS,
  'monitoring-data': MONITORING_DATA_METHODS,
};

export function identityBinding(deps: IdentityDeps) {
  return bindService<identity.IdentityServer>(
    'mp.identity.Identity',
    identity.IdentityService,
    {
      login: (req) => login(deps, req),
      refresh: (req) => refresh(deps, req),
      logout: (req) => logout(deps, req),
      getJwks: () => getJwks(deps),
      checkSession: (req) => checkSession(deps, req),
      rotateSigningKey: (_req, ctx) => rotateSigningKey(deps, ctx),
      authenticateApiKey: (req) => authenticateApiKey(deps, req),
      createApiKey: (req, ctx) => createApiKey(deps, req, ctx),
      listApiKeys: (req, ctx) => listApiKeys(deps, req, ctx),
      getApiKey: (req, ctx) => getApiKey(deps, req, ctx),
      revokeApiKey: (req, ctx) => revokeApiKey(deps, req, ctx),
      rollApiKey: (req, ctx) => rollApiKey(deps, req, ctx),
      createUser: (req, ctx) => createUser(deps, req, ctx),
      listUsers: (req, ctx) => listUsers(deps, req, ctx),
      getUser: (req, ctx) => getUser(deps, req, ctx),
      updateUser: (req, ctx) => updateUser(deps, req, ctx),
      deleteUser: (req, ctx) => deleteUser(deps, req, ctx),
      getMe: (_req, ctx) => getMe(deps, ctx),
      getUserProfiles: (req, ctx) => getUserProfiles(deps, req, ctx),
      createOAuthClient: (req, ctx) => createOAuthClient(deps, req, ctx),
      listOAuthClients: (req, ctx) => listOAuthClients(deps, req, ctx),
      deleteOAuthClient: (req, ctx) => deleteOAuthClient(deps, req, ctx),
      beginAuthorization: (req) => beginAuthorization(deps, req),
      completeAuthorization: (req) => completeAuthorization(deps, req),
      exchangeToken: (req) => exchangeToken(deps, req),
      createTenant: (req, ctx) => createTenant(deps, req, ctx),
      getTenant: (req, ctx) => getTenant(deps, req, ctx),
      setTenantPlan: (req, ctx) => setTenantPlan(deps, req, ctx),
      upsertPlan: (req, ctx) => upsertPlan(deps, req, ctx),
      resetPassword: (req, ctx) => resetPassword(deps, req, ctx),
      listRawRetention: () => listRawRetention(deps),
    },
    CALLERS,
  );
}
