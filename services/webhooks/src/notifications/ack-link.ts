import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

/**
 * The acknowledge link of a mail: `<mail id>.<expiry, unix seconds>.<HMAC-SHA256>`, base64url. The
 * key is derived from each key of the master-key ring (MP_SECRETS_KEY): links are made with the
 * newest and checked against all, so a key rotation leaves the links of recent mails working.
 * A changed character fails the MAC before anything is looked up; single use and the expiry are
 * also kept on the mail's row (the row decides).
 */
export class AckLinkSigner {
  private readonly keys: Buffer[];

  constructor(secretsKeyRing: string) {
    this.keys = secretsKeyRing.split(',').map((k) => Buffer.from(hkdfSync('sha256', Buffer.from(k.trim(), 'base64'), 'mp-ack-link', 'v1', 32)));
  }

  sign(mailId: string, expiresAt: Date): string {
    const body = `${mailId}.${Math.floor(expiresAt.getTime() / 1000)}`;
    return `${body}.${this.mac(this.keys[0]!, body)}`;
  }

  /** The mail id and expiry of a well-made link; null for anything else (changed, cut, made with another key). */
  verify(token: string): { mailId: string; expiresAt: Date } | null {
    if (token.length > 200) return null;
    const m = /^(ntf_[0-9a-z]{20})\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(token);
    if (!m) return null;
    const body = `${m[1]}.${m[2]}`;
    const given = Buffer.from(m[3]!, 'base64url');
    // 43 characters carry 258 bits for the MAC's 256: the last character's two low bits are not
    // decoded, so four spellings give the same bytes. Only the one we write is the link; without
    // this a changed last character would still verify.
    if (given.toString('base64url') !== m[3]) return null;
    const ok = this.keys.some((k) => {
      const expected = Buffer.from(this.mac(k, body), 'base64url');
      return expected.length === given.length && timingSafeEqual(expected, given);
    });
    return ok ? { mailId: m[1]!, expiresAt: new Date(Number(m[2]) * 1000) } : null;
  }

  private mac(key: Buffer, body: string): string {
    return createHmac('sha256', key).update(body).digest('base64url');
  }
}
