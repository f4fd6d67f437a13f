import { randomToken } from '@mp/kit';
import type { Environment } from './environment.js';

/** Live and sandbox keys look different, so a key pasted into the wrong place is easy to spot. */
export const API_KEY_PREFIXES: Record<Environment, string> = { live: 'mp_live_', sandbox: 'mp_test_' };

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** A fixed prefix followed by 32 characters (~190 bits): docs/rules.md#api-keys. */
const BODY_LENGTH = 32;
/** How much of the value is kept for display (prefix plus four characters). */
export const DISPLAY_PREFIX_LENGTH = 12;

export const API_KEY_PATTERN = /^mp_(live|test)_[A-Za-z0-9]{32}$/;

export function newApiKeyValue(environment: Environment): string {
  return API_KEY_PREFIXES[environment] + randomToken(BODY_LENGTH, ALPHANUMERIC);
}
