import type { Database } from '@mp/db';
import type { OutboxRelay } from '@mp/events';
import type { Clock, Logger, SecretBox } from '@mp/kit';
import type { SigningKeys } from './signing-keys.js';

/** Token and sign-in policy, taken from configuration once at start. */
export interface IdentitySettings {
  issuer: string;
  audience: string;
  /** Failed logins within the window that lock the account (spec §5 rule 6). */
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
  /** The master key's box: seals the signing keys and the replayable response of a created API key. */
  secrets: SecretBox;
  settings: IdentitySettings;
}
