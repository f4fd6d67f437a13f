import { createLocalJWKSet, errors as joseErrors, jwtVerify, type JSONWebKeySet, type JWTPayload } from 'jose';
import { DomainError } from '@mp/errors';
import { anonymousContext } from '@mp/grpc';
import type { ServiceClients, Environment } from './clients.js';

export interface AccessClaims extends JWTPayload {
  sub: string;
  tid: string;
  env: Environment;
  scope: string;
}

/**
 * Verifies access tokens locally with the identity service's public keys. The algorithm is
 * pinned (EdDSA), and issuer, audience and `typ` are checked. Keys are cached; a token signed
 * with an unknown `kid` refreshes the key set, at most once every 10 s, so a key rotation is
 * picked up without letting bad tokens hammer the identity service.
 */
export class JwtVerifier {
  private keys: ReturnType<typeof createLocalJWKSet> | null = null;
  private issuer = '';
  private audience = '';
  private lastFetch = 0;
  private fetching: Promise<void> | null = null;

  constructor(private readonly clients: Pick<ServiceClients, 'identity'>) {}

  private async refresh(requestId: string): Promise<void> {
    this.fetching ??= (async () => {
      try {
        const res = await this.clients.identity.getJwks({}, anonymousContext(requestId, 'live'));
        this.keys = createLocalJWKSet(JSON.parse(res.jwksJson) as JSONWebKeySet);
        this.issuer = res.issuer;
        this.audience = res.audience;
        this.lastFetch = Date.now();
      } finally {
        this.fetching = null;
      }
    })();
    return this.fetching;
  }

  async verify(token: string, environment: Environment, requestId: string): Promise<AccessClaims> {
    if (!this.keys) await this.refresh(requestId);
    try {
      return await this.check(token, environment);
    } catch (err) {
      if (err instanceof joseErrors.JWKSNoMatchingKey && Date.now() - this.lastFetch > 10_000) {
        await this.refresh(requestId);
        return this.check(token, environment);
      }
      throw err;
    }
  }

  private async check(token: string, environment: Environment): Promise<AccessClaims> {
    try {
      const { payload } = await jwtVerify(token, this.keys!, {
        algorithms: ['EdDSA'],
        issuer: this.issuer,
        audience: this.audience,
        typ: 'at+jwt',
        requiredClaims: ['sub', 'exp', 'iat'],
      });
      const claims = payload as AccessClaims;
      if (typeof claims.tid !== 'string' || typeof claims.scope !== 'string' || claims.env !== environment) {
        throw new DomainError('401003', { field: 'Authorization', detail: 'The token was not issued for this environment.', suggestion: 'Sign in at the base URL you are calling (live or sandbox).' });
      }
      return claims;
    } catch (err) {
      if (err instanceof DomainError) throw err;
      if (err instanceof joseErrors.JWTExpired) {
        throw new DomainError('401002', { field: 'Authorization', detail: 'The access token has expired.', suggestion: 'Call POST /auth/refresh with your refresh token, then repeat the request once.' });
      }
      if (err instanceof joseErrors.JWKSNoMatchingKey) throw err;
      throw new DomainError('401003', { field: 'Authorization', detail: 'The access token is malformed, tampered with, or not issued by this service.', suggestion: 'Sign in again with POST /auth/login to get a new token.' });
    }
  }
}
