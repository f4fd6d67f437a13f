import { createHmac } from 'node:crypto';

/**
 * Keyed digests (HMAC-SHA256 under a key derived from the master key) of secrets that must count
 * in an Idempotency-Key's request hash without being guessable from it. The stored hash of
 * POST /users would otherwise be a fast, unsalted SHA-256 over the password and fields an attacker
 * with the database can read: a way around scrypt. With the digest in its place, guessing needs
 * the master key (ADR 0012).
 */
export class SecretDigest {
  private readonly key: Buffer;

  constructor(masterKeyBase64: string) {
    // A key of its own (domain separation), so these digests never equal anything else keyed by the master key.
    this.key = createHmac('sha256', Buffer.from(masterKeyBase64, 'base64')).update('identity/idempotency-request-secret/v1').digest();
  }

  /** NFC first: passwords are hashed normalized, so equivalent spellings are the same password. */
  of(secret: string): string {
    return createHmac('sha256', this.key).update(secret.normalize('NFC')).digest('base64url');
  }
}
