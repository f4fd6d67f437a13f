import type { Database } from '@mp/db';
import type { OutboxRelay } from '@mp/events';
import type { Clock, Logger, SecretBox } from '@mp/kit';
import type { AuthVersions } from '@mp/ratelimit';
import type { SecretDigest } from './secret-digest.js';
import type { SigningKeys } from './signing-keys.js';

/** Token and sign-in policy, taken from configuration once at start. */
export interface IdentitySettings {
  issuer: string;
  audience: string;
  /** Failed logins within the window that lock the account (docs/rules.md#lockout). */
  maxFailures: number;
  failureWindowSeconds: number;
  lockSeconds: number;
}

/** What every use case of the identity service is given. */
export interface IdentityDeps {
  db: Database;
  relay: Pick<OutboxRelay, 'kick'>;
  logger: Logger;
  clock: Clock;
  keys: SigningKeys;
  /** The master key's box: seals the signing keys and the replayable responses of a created API key or OAuth client. */
  secrets: SecretBox;
  /** Stands in for a password in the Idempotency-Key request hash of POST /users. */
  secretDigest: SecretDigest;
  settings: IdentitySettings;
  /**
   * Bumped on every change of a principal, before its transaction commits and again after
   * (principal-change.ts), so that no gateway replica answers from a cached principal read before
   * the change (ADR 0119).
   */
  authVersions: Pick<AuthVersions, 'id' | 'bump'>;
}
