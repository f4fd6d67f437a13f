import { catalogue, errorCodes, DomainError } from '@mp/errors';
import type { ErrorCategory } from '@mp/errors';
import { assembleCatalogue, catalogueFamilies } from '../src/catalogue/index.js';

const range = (prefix: string, from: number, to: number): string[] =>
  Array.from({ length: to - from + 1 }, (_, i) => `${prefix}${String(from + i).padStart(3, '0')}`);

/** Every code of the original catalogue plus the extras of docs/adr/0004, 401008, 404009-404015, 404018, 404019, 409006-409011, 502001 and the notification codes 401020, 404020-404021, 409020, the logger-import codes 404030-404031 and the site plan's 404040. */
const expectedCodes: string[] = [
  ...range('400', 1, 5),
  ...range('401', 1, 8),
  ...range('403', 1, 4),
  ...range('404', 1, 15),
  '404018',
  '404019',
  ...range('409', 1, 11),
  // notifications (ADR 0090): numbered apart, so codes added beside them by other changes do not collide
  '401020',
  '404020',
  '404021',
  '409020',
  // logger file imports (ADR 0120) and the site plan (ADR 0121): numbered apart like the notification codes
  '404030',
  '404031',
  '404040',
  ...range('422', 101, 105),
  ...range('422', 201, 205),
  ...range('422', 301, 304),
  ...range('429', 1, 5),
  ...range('500', 1, 5),
  '502001',
  ...range('503', 1, 3),
];

const categoryByStatus: Record<string, ErrorCategory> = {
  '400': 'invalid_request',
  '401': 'authentication',
  '403': 'permission',
  '404': 'not_found',
  '409': 'conflict',
  '422': 'business_rule',
  '429': 'rate_limit',
  '500': 'internal',
  '502': 'gateway',
  '503': 'unavailable',
};
const allowedStatuses = Object.keys(categoryByStatus);

describe('error catalogue', () => {
  it('contains every original code and the documented extras', () => {
    expect(expectedCodes).toHaveLength(80);
    for (const code of expectedCodes) {
      expect(catalogue[code]).toBeDefined();
    }
    expect([...errorCodes].sort()).toEqual([...expectedCodes].sort());
  });

  it('lists exactly the catalogue keys in errorCodes, in ascending order', () => {
    expect(errorCodes).toEqual(Object.keys(catalogue));
    expect([...errorCodes].sort()).toEqual(errorCodes);
    expect(new Set(errorCodes).size).toBe(errorCodes.length);
  });

  it.each(Object.entries(catalogue))('entry %s is well formed', (key, entry) => {
    expect(entry.code).toBe(key);
    expect(key).toMatch(/^\d{6}$/);
    const status = key.slice(0, 3);
    expect(allowedStatuses).toContain(status);
    expect(entry.category).toBe(categoryByStatus[status]);

    expect(entry.message.trim()).not.toBe('');
    expect(entry.suggestion.trim()).not.toBe('');

    expect(entry.commonCauses.length).toBeGreaterThanOrEqual(1);
    expect(entry.solutions.length).toBeGreaterThanOrEqual(1);
    for (const text of [...entry.commonCauses, ...entry.solutions]) {
      expect(text.trim()).not.toBe('');
    }

    expect(typeof entry.example.request).toBe('object');
    expect(typeof entry.example.correct).toBe('object');
  });

  it('uses the documented meanings as messages', () => {
    expect(catalogue['400001']!.message).toBe('invalid request parameters');
    expect(catalogue['401001']!.message).toBe('API key invalid');
    expect(catalogue['404001']!.message).toBe('project does not exist');
    expect(catalogue['409006']!.message).toBe('idempotency key reused with a different request');
    expect(catalogue['502001']!.message).toBe('upstream service error');
  });
});

describe('error catalogue families', () => {
  it('keeps each code in the family file of its HTTP status, once', () => {
    const seen = new Set<string>();
    for (const family of catalogueFamilies) {
      for (const entry of family.entries) {
        expect(family.statuses).toContain(entry.code.slice(0, 3));
        expect(seen.has(entry.code)).toBe(false);
        seen.add(entry.code);
      }
    }
    expect([...seen].sort()).toEqual(errorCodes);
  });

  it('refuses a code that appears twice', () => {
    const twice = { file: 'twice', statuses: ['404'], entries: [catalogue['404001']!] };
    expect(() => assembleCatalogue([...catalogueFamilies, twice])).toThrow('error catalogue: code 404001 appears twice');
  });

  it('refuses a code filed under another family', () => {
    const misfiled = { file: '400-invalid-request', statuses: ['400'], entries: [catalogue['404001']!] };
    expect(() => assembleCatalogue([misfiled])).toThrow('error catalogue: code 404001 does not belong in family 400-invalid-request (400)');
  });
});

describe('DomainError with catalogue codes', () => {
  it('maps 404001 to HTTP 404 with the field and the catalogue suggestion', () => {
    const err = new DomainError('404001', { field: 'project_id' });
    expect(err.httpStatus).toBe(404);
    expect(err.field).toBe('project_id');
    expect(err.suggestion).toBe(catalogue['404001']!.suggestion);
    expect(err.message).toBe('project does not exist');
    expect(err.entry).toBe(catalogue['404001']);
  });

  it('refuses codes that are not in the catalogue', () => {
    expect(() => new DomainError('404999')).toThrow(/not in the catalogue/);
  });
});
