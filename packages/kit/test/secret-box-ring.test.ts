import { createCipheriv, randomBytes } from 'node:crypto';
import { newMasterKey, SecretBox } from '@mp/kit';

// ADR 0047: MP_SECRETS_KEY is a ring, newest key first; the first seals, every one opens.
describe('SecretBox with a ring of master keys', () => {
  const older = newMasterKey();
  const newer = newMasterKey();

  /** A value as the platform sealed it before the ring (`v1.iv.tag.body`, no key id). */
  const sealV1 = (key: string, plaintext: string) => {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', Buffer.from(key, 'base64'), iv);
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return ['v1', iv.toString('base64'), cipher.getAuthTag().toString('base64'), body.toString('base64')].join('.');
  };

  it('seals under the first key, naming it, and opens what any key of the ring sealed', () => {
    const before = new SecretBox(older).seal('whsec_before');
    const ring = new SecretBox(`${newer}, ${older}`);
    const after = ring.seal('whsec_after');
    expect(after.split('.')[0]).toBe('v2');
    expect(after.split('.')[1]).toBe(new SecretBox(newer).currentKeyId);
    expect(after).not.toContain(newer);
    expect([ring.open(before), ring.open(after)]).toEqual(['whsec_before', 'whsec_after']);
    expect([ring.isCurrent(before), ring.isCurrent(after)]).toEqual([false, true]);
  });

  it('opens values sealed before the ring (v1) with whichever key sealed them', () => {
    const ring = new SecretBox(`${newer},${older}`);
    expect(ring.open(sealV1(older, 'legacy'))).toBe('legacy');
    expect(ring.isCurrent(sealV1(newer, 'legacy'))).toBe(false);
    expect(() => ring.open(sealV1(newMasterKey(), 'elsewhere'))).toThrow('sealed secret opens with no key of MP_SECRETS_KEY');
  });

  it('re-seals under the newest key; a box without the old key cannot read the old value, and can read the re-sealed one', () => {
    const old = new SecretBox(older).seal('signing key');
    const ring = new SecretBox(`${newer},${older}`);
    const resealed = ring.reseal(old);
    expect(ring.isCurrent(resealed)).toBe(true);
    const newOnly = new SecretBox(newer);
    expect(() => newOnly.open(old)).toThrow(`sealed secret uses key ${new SecretBox(older).currentKeyId}, which is not in MP_SECRETS_KEY`);
    expect(newOnly.open(resealed)).toBe('signing key');
  });

  it('refuses a ring with a malformed or repeated key, naming which', () => {
    expect(() => new SecretBox(`${newer},c2hvcnQ=`)).toThrow('MP_SECRETS_KEY: key 2 of the ring must be 32 bytes, base64-encoded');
    expect(() => new SecretBox('c2hvcnQ=')).toThrow('MP_SECRETS_KEY: the key must be 32 bytes, base64-encoded');
    expect(() => new SecretBox(`${newer},${newer}`)).toThrow('MP_SECRETS_KEY: a key appears twice in the ring');
  });

  it('detects a tampered value instead of returning garbage', () => {
    const ring = new SecretBox(newer);
    const sealed = ring.seal('secret');
    const parts = sealed.split('.');
    parts[4] = Buffer.from('tampered').toString('base64');
    expect(() => ring.open(parts.join('.'))).toThrow();
  });
});
