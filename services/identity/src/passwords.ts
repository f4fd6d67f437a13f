import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * Password hashing with scrypt at the OWASP Password Storage Cheat Sheet parameters
 * (N=2^17, r=8, p=1): about 128 MiB and a few hundred milliseconds per hash, run on libuv's
 * thread pool so the event loop stays free. Stored as `scrypt$N$r$p$salt$hash` (base64), so the
 * parameters can be raised later without invalidating existing hashes.
 */
export const SCRYPT_PARAMS = { N: 2 ** 17, r: 8, p: 1 } as const;
const SALT_BYTES = 32;
const KEY_BYTES = 64;
// scrypt needs 128 * N * r bytes (128 MiB here); Node's default ceiling is 32 MiB.
const MAXMEM = 256 * 1024 * 1024;

function derive(password: string, salt: Buffer, keyLength: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => scrypt(password.normalize('NFC'), salt, keyLength, options, (err, key) => (err ? reject(err) : resolve(key))));
}

export async function hashPassword(password: string): Promise<string> {
  const { N, r, p } = SCRYPT_PARAMS;
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, KEY_BYTES, { N, r, p, maxmem: MAXMEM });
  return ['scrypt', N, r, p, salt.toString('base64'), key.toString('base64')].join('$');
}

/** True when `password` matches `stored`; a malformed stored hash never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  if (![N, r, p].every((n) => Number.isSafeInteger(n) && n > 0)) return false;
  const salt = Buffer.from(parts[4]!, 'base64');
  const expected = Buffer.from(parts[5]!, 'base64');
  if (salt.length === 0 || expected.length === 0) return false;
  const actual = await derive(password, salt, expected.length, { N, r, p, maxmem: Math.max(MAXMEM, 256 * N * r) });
  return timingSafeEqual(actual, expected);
}

/**
 * A stored-hash stand-in with the current parameters and random salt and key: verifying against it
 * costs one derivation, exactly as a real check, and matches no password. Built without hashing, so
 * even the first sign-in with an unknown username takes no longer than a wrong password.
 */
const DUMMY_HASH = [
  'scrypt',
  SCRYPT_PARAMS.N,
  SCRYPT_PARAMS.r,
  SCRYPT_PARAMS.p,
  randomBytes(SALT_BYTES).toString('base64'),
  randomBytes(KEY_BYTES).toString('base64'),
].join('$');

/**
 * Spends the same time as a real verification, for sign-ins with an unknown username, so the
 * response time does not tell which usernames exist.
 */
export async function verifyAgainstDummy(password: string): Promise<false> {
  await verifyPassword(password, DUMMY_HASH);
  return false;
}
