import type { identity } from '@mp/contracts';
import type { IdentityDeps } from '../deps.js';

/** The public keys that verify access tokens, with the issuer and audience to check. */
export async function getJwks(deps: IdentityDeps): Promise<identity.JwksResponse> {
  return { jwksJson: JSON.stringify(await deps.keys.jwks()), issuer: deps.settings.issuer, audience: deps.settings.audience };
}
