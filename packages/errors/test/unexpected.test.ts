import { DomainError, unexpectedError } from '@mp/errors';

describe('unexpectedError', () => {
  it.each(['53300', '53200', '53100', '57P03'])('answers PostgreSQL %s (no room right now) with 503002 and Retry-After', (code) => {
    const err = unexpectedError(Object.assign(new Error('sorry, too many clients already'), { code }), 'req_1');
    expect(err).toBeInstanceOf(DomainError);
    expect(err.code).toBe('503002');
    expect(err.httpStatus).toBe(503);
    expect(err.headers).toEqual({ 'Retry-After': '1' });
    expect(err.detail).not.toContain('too many clients');
  });

  it.each([
    ['a syntax error', '42601'],
    ['a unique violation', '23505'],
    ['no code', undefined],
    ['a code that is not a string', 53300],
  ])('answers anything else (%s) with 500001 quoting the request id, never the message', (_label, code) => {
    const err = unexpectedError(Object.assign(new Error('secret detail'), { code }), 'req_42');
    expect(err.code).toBe('500001');
    expect(err.detail).toContain('req_42');
    expect(err.detail).not.toContain('secret detail');
    expect(err.headers).toEqual({});
  });
});
