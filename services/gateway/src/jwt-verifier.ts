import { createLocalJWKSet, decodeProtectedHeader, errors as joseErrors, jwtVerify, type JSONWebKeySet, type JWTPayload } from 'jose';
import { DomainError } from '@mp/errors';
import { anonymousContext } from '@mp/grpc';
import type { ServiceClients, Environment } from './clients.js';

export interface AccessClaims extends JWTPayload {
  sub: string;
  tid: string;
  env: Environment;
  /** The session (identity asks whether it is still open on every request). */
  sid: string;
  scope: string;
  /** The OAuth client the token was issued to (RFC 9068), for tokens of the code flow. */
  client_id?: string;
}

/** Identity issues access tokens for exactly 7200 s (docs/rules.md#sign-in); a longer-lived one was not made by it. */
export const MAX_ACCESS_TOKEN_SECONDS = 7200;
/** How far a token's `iat` may lie ahead of this replica's clock (clocks of replicas drift a little). */
export const MAX_CLOCK_SKEW_SECONDS = 60;

/** A JWKS refetch for an unknown kid happens at most this often per gateway replica. */
const MIN_REFETCH_MS = 1000;

const invalid = (detail: string) =>
  new DomainError('401003', { field: 'Authorization', detail, suggestion: 'Sign in again with POST /auth/login to get a new token.' });

/**
 * Verifies access tokens locally with the identity service's public keys. The algorithm is
 * pinned (EdDSA: a token saying `alg: none` or HS256 is refused before any key is looked at), and
 * issuer, audience, `typ` (at+jwt, so a refresh token is no access token), expiry and the
 * environment are checked, and so are the times identity would never issue: an `iat` in the
 * future or a lifetime over 7200 s (a token minted with a leaked key to last for years). Keys are cached; a token whose `kid` is not among them makes the
 * verifier fetch the key set again — at most once a second, requests arriving meanwhile wait for
 * that fetch — so a signing-key rotation is picked up at once without letting made-up kids hammer
 * the identity service.
 */
export class JwtVerifier {
  private keys: ReturnType<typeof createLocalJWKSet> | null = null;
  private kids = new Set<string>();
  private issuer = '';
  private audience = '';
  private lastFetch = 0;
  private fetching: Promise<void> | null = null;

  constructor(private readonly clients: Pick<ServiceClients, 'identity'>) {}

  private refresh(requestId: string): Promise<void> {
    this.fetching ??= (async () => {
      try {
        const wait = this.lastFetch + MIN_REFETCH_MS - Date.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        const res = await this.clients.identity.getJwks({}, anonymousContext(requestId, 'live'));
        const set = JSON.parse(res.jwksJson) as JSONWebKeySet;
        this.keys = createLocalJWKSet(set);
        this.kids = new Set(set.keys.map((k) => k.kid ?? ''));
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
    let kid: string | undefined;
    try {
      kid = decodeProtectedHeader(token).kid;
    } catch {
      throw invalid('The access token is not a JWT.');
    }
    if (!this.keys || (typeof kid === 'string' && !this.kids.has(kid))) await this.refresh(requestId);
    return this.check(token, environment);
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
      checkLifetime(claims);
      if (typeof claims.tid !== 'string' || typeof claims.scope !== 'string' || typeof claims.sid !== 'string') {
        throw invalid('The access token lacks the claims this service issues.');
      }
      if (claims.env !== environment) {
        throw new DomainError('401003', {
          field: 'Authorization',
          detail: 'The token was not issued for this environment.',
          suggestion: 'Sign in at the base URL you are calling (live or sandbox).',
        });
      }
      return claims;
    } catch (err) {
      if (err instanceof DomainError) throw err;
      if (err instanceof joseErrors.JWTExpired) {
        throw new DomainError('401002', {
          field: 'Authorization',
          detail: 'The access token has expired.',
          suggestion: 'Call POST /auth/refresh with your refresh token, then repeat the request once.',
        });
      }
      if (err instanceof joseErrors.JWKSNoMatchingKey) throw invalid('The access token was signed with a key this service does not know.');
      throw invalid('The access token is malformed, tampered with, or not issued by this service.');
    }
  }
}

/** 401003 for an `iat` ahead of the clock (beyond the skew) or a lifetime identity never gives. */
function checkLifetime(claims: AccessClaims): void {
  const iat = claims.iat!;
  const exp = claims.exp!;
  if (iat > Date.now() / 1000 + MAX_CLOCK_SKEW_SECONDS) throw invalid('The access token says it was issued in the future.');
  if (exp - iat > MAX_ACCESS_TOKEN_SECONDS) throw invalid(`The access token lives longer than the ${MAX_ACCESS_TOKEN_SECONDS} s this service issues.`);
}
