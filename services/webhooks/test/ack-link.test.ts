import { randomBytes } from 'node:crypto';
import { AckLinkSigner } from '../src/notifications/ack-link.js';

const ring = () => randomBytes(32).toString('base64');

describe('acknowledge links', () => {
  const key = ring();
  const signer = new AckLinkSigner(key);
  const expires = new Date('2026-12-01T00:00:00Z');
  const mailId = 'ntf_0123456789abcdefghij';

  it('verifies the link it made, with the mail and expiry it names', () => {
    expect(signer.verify(signer.sign(mailId, expires))).toEqual({ mailId, expiresAt: expires });
  });

  it('refuses every other spelling of the last character, although it decodes to the same bytes', () => {
    // 43 base64url characters hold 258 bits; the MAC has 256, so the last character has 2 spare
    // bits and three other characters decode to the same MAC.
    const link = signer.sign(mailId, expires);
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const others = [...alphabet].filter((c) => c !== link.at(-1)).map((c) => link.slice(0, -1) + c);
    const sameBytes = others.filter((t) => Buffer.from(t.split('.')[2]!, 'base64url').equals(Buffer.from(link.split('.')[2]!, 'base64url')));
    expect(sameBytes).toHaveLength(3);
    for (const t of others) expect(signer.verify(t)).toBeNull();
  });

  it('refuses a changed mail id or expiry, a cut link, and a link made with a key not in the ring', () => {
    const link = signer.sign(mailId, expires);
    const [id, exp, mac] = link.split('.') as [string, string, string];
    expect(signer.verify(`${id.slice(0, -1)}k.${exp}.${mac}`)).toBeNull();
    expect(signer.verify(`${id}.${Number(exp) + 1}.${mac}`)).toBeNull();
    expect(signer.verify(link.slice(0, -1))).toBeNull();
    expect(new AckLinkSigner(ring()).verify(link)).toBeNull();
  });

  it('keeps the links of the older key working after a rotation puts a new key first', () => {
    const old = signer.sign(mailId, expires);
    const rotated = new AckLinkSigner(`${ring()},${key}`);
    expect(rotated.verify(old)).toEqual({ mailId, expiresAt: expires });
  });
});
