import { createHash, timingSafeEqual } from 'node:crypto';

/** RFC 7636 §4.1/§4.2: a verifier is 43–128 unreserved characters; an S256 challenge is 43 base64url characters. */
export const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
export const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/** BASE64URL(SHA256(verifier)) equals the challenge (constant time). */
export function verifierMatches(verifier: string, challenge: string): boolean {
  if (!VERIFIER.test(verifier)) return false;
  const computed = Buffer.from(createHash('sha256').update(verifier, 'ascii').digest('base64url'));
  const expected = Buffer.from(challenge);
  return computed.length === expected.length && timingSafeEqual(computed, expected);
}
