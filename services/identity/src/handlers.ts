import { identity } from '@mp/contracts';
import { bindService } from '@mp/grpc';
import type { IdentityDeps } from './deps.js';
import { authenticateApiKey } from './use-cases/authenticate-api-key.js';
import { createApiKey } from './use-cases/create-api-key.js';
import { getApiKey } from './use-cases/get-api-key.js';
import { getJwks } from './use-cases/get-jwks.js';
import { listApiKeys } from './use-cases/list-api-keys.js';
import { login } from './use-cases/login.js';
import { refresh } from './use-cases/refresh.js';
import { revokeApiKey } from './use-cases/revoke-api-key.js';

export function identityBinding(deps: IdentityDeps) {
  return bindService<identity.IdentityServer>('mp.identity.Identity', identity.IdentityService, {
    login: (req) => login(deps, req),
    refresh: (req) => refresh(deps, req),
    getJwks: () => getJwks(deps),
    authenticateApiKey: (req) => authenticateApiKey(deps, req),
    createApiKey: (req, ctx) => createApiKey(deps, req, ctx),
    listApiKeys: (req, ctx) => listApiKeys(deps, req, ctx),
    getApiKey: (req, ctx) => getApiKey(deps, req, ctx),
    revokeApiKey: (req, ctx) => revokeApiKey(deps, req, ctx),
  });
}
