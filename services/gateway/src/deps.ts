import type { Logger } from '@mp/kit';
import type { RateLimits } from '@mp/ratelimit';
import type { TrustedProxies } from './client-address.js';
import type { Environment, ServiceClients } from './clients.js';
import type { CredentialCache } from './credential-cache.js';
import type { JwtVerifier } from './jwt-verifier.js';
import type { BodyLimits } from './middleware/read-body.js';

/**
 * What one gateway application is built from. It lives apart from app.ts because the routes take
 * it too, and app.ts imports the routes: kept there, each route module and app.ts imported each other.
 */
export interface AppDeps {
  environment: Environment;
  clients: ServiceClients;
  jwt: JwtVerifier;
  /** What identity answered per credential, per replica, versioned (ADR 0119); absent: identity is asked on every request. */
  credentials?: CredentialCache;
  /** True while this gateway process serves; false while it drains (its public /readyz then says 503). */
  ready: () => boolean;
  logger: Logger;
  /** `{docs_url}` of an error envelope (docs/rules.md#error-envelope); a function because the port may be known only after listening. */
  docsUrl: () => string;
  /** Bodies of authenticated routes (5 MB) and of the anonymous ones: sign-in, refresh, logout, OAuth (64 KB). */
  bodyLimits: BodyLimits;
  authBodyLimits: BodyLimits;
  limits: RateLimits;
  /** MP_WEBHOOK_SOURCE_ADDRESSES: where webhook deliveries come from, for receivers to permit. */
  webhookSourceAddresses?: readonly string[];
  /** MP_TRUSTED_PROXIES: the peers whose X-Forwarded-For names the client (none by default). */
  trustedProxies?: TrustedProxies;
  /** MP_SEND_STALL_TIMEOUT_MS: a streamed answer whose client takes nothing for this long is closed. */
  sendStallTimeoutMs?: number;
  /** A logger file upload (docs/imports.md#uploads): cut after idleMs without a byte, or totalMs in all. */
  uploadTimeouts?: { idleMs: number; totalMs: number };
}
