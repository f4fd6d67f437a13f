import { DomainError } from '@mp/errors';
import { checkEnum } from '../src/validation.js';

describe('checkEnum', () => {
  it('quotes at most a short excerpt of a refused value', () => {
    const value = 'x'.repeat(1_000_000);
    let err: DomainError | undefined;
    try {
      checkEnum(value, ['planning', 'in_progress'] as const, 'status');
    } catch (e) {
      err = e as DomainError;
    }
    expect({ code: err?.code, field: err?.field }).toEqual({ code: '422103', field: 'status' });
    expect(err!.detail).toBe(`status must be one of planning, in_progress; got "${'x'.repeat(40)}…" (1000000 characters).`);
  });
});
