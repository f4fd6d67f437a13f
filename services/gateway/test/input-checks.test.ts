import { z } from 'zod';
import { DomainError } from '@mp/errors';
import { findControlCharacter } from '../src/control-characters.js';
import { validate } from '../src/validate.js';
import { MAX_LENGTH, queryInteger, text } from '../src/bounds.js';
import { recordBodies } from '../src/record-columns.js';

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

describe('validation messages', () => {
  const point = z.object({ number: z.string(), name: z.string(), sensor_type: z.string(), reference: z.object({ x: z.number(), y: z.number() }) });

  it('names every missing field at once, first of them as the field', () => {
    expect(refusal(() => validate(point, { name: 'P1', reference: {} }, 'body'))).toEqual({
      code: '422101',
      field: 'number',
      detail: 'number, sensor_type, reference.x, reference.y are required.',
    });
    expect(refusal(() => validate(point, { number: '1', name: 'P1', reference: { x: 1, y: 2 } }, 'body'))).toEqual({
      code: '422101',
      field: 'sensor_type',
      detail: 'sensor_type is required.',
    });
  });

  it('speaks of formats and types in plain words, never in the library’s', () => {
    const write = recordBodies.write;
    const bad = refusal(() => validate(write, { records: [{ point_id: 'P-1', measured_at: '2026-03-01T08:00:00Z', values: {} }] }, 'body'));
    expect(bad).toEqual({
      code: '400004',
      field: 'records[0].point_id',
      detail: 'records[0].point_id must be a point id (pt_ and 20 lowercase letters or digits).',
    });
    const when = refusal(() => validate(write, { records: [{ point_id: 'pt_00000000000000000000', measured_at: '2026-03-01 08:00', values: {} }] }, 'body'));
    expect(when.detail).toBe('records[0].measured_at must be an ISO 8601 date-time with a UTC offset, e.g. 2026-03-01T08:00:00Z.');
    const expires = refusal(() => validate(z.object({ expires_at: z.iso.datetime({ offset: true }) }), { expires_at: 'tomorrow' }, 'body'));
    expect(expires.detail).toBe('expires_at must be an ISO 8601 date-time with a UTC offset.');
    expect(refusal(() => validate(point, { number: 1, name: 'P', sensor_type: 's', reference: { x: 1, y: 2 } }, 'body')).detail).toBe(
      'number must be a string; got number.',
    );
    for (const r of [bad, when, expires]) expect(r.detail).not.toMatch(/regex|datetime|Invalid/);
  });
});

describe('validate: numbers in a query', () => {
  const query = z.object({ limit: queryInteger(1, 100).optional() });

  it('names the text given when a whole number was expected, not the type it was coerced to', () => {
    expect(refusal(() => validate(query, { limit: 'abc' }, 'query'))).toEqual({
      code: '400001',
      field: 'limit',
      detail: `limit must be a whole number; got "abc".`,
    });
    expect(refusal(() => validate(query, { limit: ['1', '2'] }, 'query')).detail).toBe('limit must be a whole number; got array.');
    expect(refusal(() => validate(query, { limit: '2.5' }, 'query'))).toMatchObject({ code: '400003', field: 'limit' });
    expect(validate(query, { limit: '20' }, 'query')).toEqual({ limit: 20 });
  });
});
