import { createCipheriv, createDecipheriv, createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { SettingError } from './startup.js';

/** SHA-256 hex digest; used to store high-entropy secrets (API keys, refresh tokens). */
export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** Constant-time equality of two strings (length differences do not leak timing). */
export function constantTimeEqual(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb) && a.length === b.length;
}

/**
 * Symmetric encryption (AES-256-GCM) for secrets the platform must read back, such as webhook
 * signing secrets, with a ring of master keys (ADR 0047). `MP_SECRETS_KEY` holds one key or a
 * comma-separated list, newest first: the first seals, every one opens. Each sealed value names
 * its key (`v2.<key id>.…`, the id a digest of the key, never the key); values sealed before the
 * ring (`v1.…`) are opened by trying each key. `isCurrent`/`reseal` let `secrets:reseal` move
 * every stored secret under the newest key, after which the old keys can leave the ring.
 */
export class SecretBox {
  private readonly keys: { id: string; key: Buffer }[];

  constructor(ring: string) {
    const parts = ring.split(',').map((k) => k.trim());
    this.keys = parts.map((base64, i) => {
      const key = Buffer.from(base64, 'base64');
      if (key.length !== 32)
        throw new SettingError(
          'MP_SECRETS_KEY',
          `${parts.length > 1 ? `key ${i + 1} of the ring` : 'the key'} must be 32 bytes, base64-encoded (openssl rand -base64 32).`,
        );
      return { id: keyId(key), key };
    });
    if (new Set(this.keys.map((k) => k.id)).size !== this.keys.length) throw new SettingError('MP_SECRETS_KEY', 'a key appears twice in the ring.');
  }

  /** The id of the key that seals (the ring's first). */
  get currentKeyId(): string {
    return this.keys[0]!.id;
  }

  seal(plaintext: string): string {
    const { id, key } = this.keys[0]!;
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return ['v2', id, iv.toString('base64'), cipher.getAuthTag().toString('base64'), body.toString('base64')].join('.');
  }

  open(sealed: string): string {
    const parts = sealed.split('.');
    if (parts[0] === 'v2' && parts.length === 5) {
      const entry = this.keys.find((k) => k.id === parts[1]);
      if (!entry) throw new Error(`sealed secret uses key ${parts[1]}, which is not in MP_SECRETS_KEY`);
      return decrypt(entry.key, parts[2]!, parts[3]!, parts[4]!);
    }
    if (parts[0] === 'v1' && parts.length === 4) {
      for (const { key } of this.keys) {
        try {
          return decrypt(key, parts[1]!, parts[2]!, parts[3]!);
        } catch {
          // Not this key: GCM's tag did not match.
        }
      }
      throw new Error('sealed secret opens with no key of MP_SECRETS_KEY');
    }
    throw new Error('sealed secret has an unknown format');
  }

  /** True when `sealed` is already under the newest key. */
  isCurrent(sealed: string): boolean {
    return sealed.startsWith(`v2.${this.keys[0]!.id}.`);
  }

  /** `sealed` opened with whichever key of the ring sealed it, and sealed again under the newest. */
  reseal(sealed: string): string {
    return this.seal(this.open(sealed));
  }
}

/** A key's public name: 8 characters of its SHA-256 digest (base64url), enough to tell ring keys apart. */
function keyId(key: Buffer): string {
  return createHash('sha256').update(key).digest('base64url').slice(0, 8);
}

function decrypt(key: Buffer, iv: string, tag: string, body: string): string {
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'));
  decipher.setAuthTag(Buffer.from(tag, 'base64'));
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64')), decipher.final()]).toString('utf8');
}

export function newMasterKey(): string {
  return randomBytes(32).toString('base64');
}
