import { excerpt, EXCERPT_LENGTH } from '@mp/errors';

describe('excerpt of a caller value in an error detail', () => {
  it('quotes a short value whole, as JSON', () => {
    expect(excerpt('in_progress')).toBe('"in_progress"');
    expect(excerpt(42)).toBe('"42"');
  });

  it('cuts a long value to its first characters and says how long it was', () => {
    const quoted = excerpt('x'.repeat(1_000_000));
    expect(quoted).toBe(`"${'x'.repeat(EXCERPT_LENGTH)}…" (1000000 characters)`);
    expect(excerpt('abcdef', 3)).toBe('"abc…" (6 characters)');
  });

  it('escapes control characters and keeps characters outside the BMP whole', () => {
    expect(excerpt('a\u0000b\nc')).toBe('"a\\u0000b\\nc"');
    expect(excerpt('😀😀😀😀', 2)).toBe('"😀😀…" (8 characters)');
  });
});
