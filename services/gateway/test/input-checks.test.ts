import { z } from 'zod';
import { DomainError } from '@mp/errors';
import { findControlCharacter } from '../src/control-characters.js';
import { validate } from '../src/validate.js';
import { MAX_LENGTH, text } from '../src/bounds.js';

const refusal = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    const e = err as DomainError;
    return { code: e.code, field: e.field, detail: e.detail };
  }
  throw new Error('accepted');
};

describe('control characters in request input', () => {
  it('finds the first string holding NUL or a control character, keys included, and names its path', () => {
    expect(findControlCharacter({ a: 'fine', b: [{ c: 'x' }, { c: 'y\u0000' }] }, 'body')).toEqual(['b', 1, 'c']);
    expect(findControlCharacter({ 'bad\u0001key': 1 }, 'body')).toEqual(['bad\u0001key']);
    expect(findControlCharacter({ q: ['a', 'b\u007f'] }, 'query')).toEqual(['q', 1]);
    expect(findControlCharacter({ a: 1, b: true, c: null }, 'body')).toBeNull();
  });

  it('lets free text in a body keep tab, line feed and carriage return, but not in a query', () => {
    expect(findControlCharacter({ remark: 'one\ntwo\r\n\tthree' }, 'body')).toBeNull();
    expect(findControlCharacter({ q: 'one\ntwo' }, 'query')).toEqual(['q']);
  });

  it('walks a body nested far deeper than the call stack would allow', () => {
    let deep: unknown = 'leaf\u0000';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(findControlCharacter(deep, 'body')).toHaveLength(100_000);
  });
});

describe('validate', () => {
  const body = z.object({ name: text(MAX_LENGTH.name), tags: z.array(text(10)).max(2).optional() });

  it('refuses a NUL anywhere with 400004 naming the field, before the schema', () => {
    expect(refusal(() => validate(body, { name: 'a\u0000b' }, 'body'))).toMatchObject({ code: '400004', field: 'name' });
    expect(refusal(() => validate(body, { name: 'ok', tags: ['x', '\u0000'] }, 'body'))).toMatchObject({ code: '400004', field: 'tags[1]' });
    expect(refusal(() => validate(z.object({ q: text(100).optional() }), { q: ['a', '\u0000'] }, 'query'))).toMatchObject({ code: '400004', field: 'q' });
  });

  it('refuses a value over its bound with 400003 and a detail that states the bound without quoting the value', () => {
    const long = 'n'.repeat(1_000_000);
    expect(refusal(() => validate(body, { name: long }, 'body'))).toEqual({ code: '400003', field: 'name', detail: 'name is at most 100 characters long.' });
    expect(refusal(() => validate(body, { name: 'ok', tags: ['a', 'b', 'c'] }, 'body'))).toEqual({
      code: '400003',
      field: 'tags',
      detail: 'tags holds at most 2 entries.',
    });
    expect(refusal(() => validate(z.object({ n: z.number().max(5) }), { n: 6 }, 'body'))).toEqual({
      code: '400003',
      field: 'n',
      detail: 'n must be at most 5.',
    });
  });
});
