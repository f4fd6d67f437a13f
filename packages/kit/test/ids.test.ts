import { isId, newId, randomToken } from '@mp/kit';

// Ids and tokens draw from a pooled CSPRNG buffer (ids.ts); these check the shape, that no value
// repeats across many pool refills, and that every character stays equally likely.
describe('ids and random tokens', () => {
  it('makes ids of the documented shape that isId accepts only for their own kind', () => {
    const id = newId('project');
    expect(id).toMatch(/^prj_[0-9a-z]{20}$/);
    expect(isId('project', id)).toBe(true);
    expect(isId('task', id)).toBe(false);
  });

  it('never repeats over 50,000 ids (hundreds of pool refills)', () => {
    const ids = new Set(Array.from({ length: 50_000 }, () => newId('event')));
    expect(ids.size).toBe(50_000);
  });

  it('keeps characters uniform (chi-square over 360,000 characters of base36)', () => {
    const text = randomToken(360_000);
    const counts = new Map<string, number>();
    for (const c of text) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect(counts.size).toBe(36);
    const expected = text.length / 36;
    let chi = 0;
    for (const n of counts.values()) chi += (n - expected) ** 2 / expected;
    // 35 degrees of freedom: the 99.99th percentile is about 74.
    expect(chi).toBeLessThan(74);
  });

  it('honours another alphabet', () => {
    expect(randomToken(64, 'ab')).toMatch(/^[ab]{64}$/);
  });
});
