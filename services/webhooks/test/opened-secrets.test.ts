import { newMasterKey, SecretBox } from '@mp/kit';
import { withOpenedSecrets } from '../src/delivery/opened-secrets.js';

/** A real secret box that counts how often it decrypts. */
class CountingBox extends SecretBox {
  opens = 0;
  override open(sealed: string): string {
    this.opens++;
    return super.open(sealed);
  }
}

describe('webhook secrets opened once per sealed value', () => {
  it('opens a sealed secret once, whatever the number of attempts signing with it', () => {
    const box = new CountingBox(newMasterKey());
    const secrets = withOpenedSecrets(box);
    const a = secrets.seal('whsec_a');
    const b = secrets.seal('whsec_b');
    for (let i = 0; i < 5; i++) {
      expect(secrets.open(a)).toBe('whsec_a');
      expect(secrets.open(b)).toBe('whsec_b');
    }
    expect(box.opens).toBe(2);
  });

  it('opens a rotated secret anew (a new sealed value) and stays bounded', () => {
    const box = new CountingBox(newMasterKey());
    const secrets = withOpenedSecrets(box, 2);
    const sealed = ['whsec_1', 'whsec_2', 'whsec_3'].map((s) => secrets.seal(s));
    expect(sealed.map((s) => secrets.open(s))).toEqual(['whsec_1', 'whsec_2', 'whsec_3']);
    expect(box.opens).toBe(3);
    // The third value started the cache afresh: the first is opened again, the third is held.
    expect(secrets.open(sealed[0]!)).toBe('whsec_1');
    expect(secrets.open(sealed[2]!)).toBe('whsec_3');
    expect(box.opens).toBe(4);
  });

  it('refuses a sealed value no key opens, every time (nothing cached for it)', () => {
    const secrets = withOpenedSecrets(new SecretBox(newMasterKey()));
    const foreign = new SecretBox(newMasterKey()).seal('whsec_x');
    expect(() => secrets.open(foreign)).toThrow();
    expect(() => secrets.open(foreign)).toThrow();
  });
});
