import { z } from 'zod';
import { DomainError } from '@mp/errors';
import { queryInteger } from './bounds.js';
import { findControlCharacter } from './control-characters.js';

/** The value at a zod path of the input as it was received (before any coercion). */
function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  return path.reduce<unknown>((v, k) => (v && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[k] : undefined), input);
}

/** Turns a zod path into the field notation of the error envelope, e.g. `records[3].measured_at`. */
export function fieldOf(path: PropertyKey[]): string {
  return path.reduce<string>((acc, p) => (typeof p === 'number' ? `${acc}[${p}]` : acc ? `${acc}.${String(p)}` : String(p)), '');
}

/** "a string", "an integer", "an object" */
function article(expected: string): string {
  return /^[aeiou]/.test(expected) ? `an ${expected}` : `a ${expected}`;
}

function describeType(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
}

/** How a format is named to a user: never the validation library's own words ("regex", "datetime"). */
const FORMAT_WORDING: Record<string, { what: string; suggestion: string }> = {
  datetime: { what: 'an ISO 8601 date-time with a UTC offset', suggestion: 'Use ISO 8601 with a UTC offset, e.g. 2026-03-01T08:00:00Z.' },
  date: { what: 'an ISO 8601 date', suggestion: 'Use ISO 8601, e.g. 2026-03-01.' },
  url: { what: 'a URL', suggestion: 'Send an absolute URL, e.g. https://example.com/hook.' },
};

/**
 * The absent fields among the issues: a request missing several required fields hears of all of
 * them at once (not one per attempt).
 */
function missingFields(issues: readonly z.core.$ZodIssue[]): string[] {
  const names = issues.filter((i) => (i as { input?: unknown }).input === undefined && i.code !== 'custom' && i.path.length > 0).map((i) => fieldOf(i.path));
  return [...new Set(names)];
}

/**
 * Validates a request part and maps the problem to the error catalogue:
 * body: missing 422101 (naming every missing field), wrong type 422102, bad enumerated value 422103;
 * query and path: missing or wrong type 400001;
 * both: out of range 400003, bad format (dates, ids) 400004.
 */
export function validate<S extends z.ZodType>(schema: S, input: unknown, where: 'body' | 'query' | 'path'): z.infer<S> {
  refuseControlCharacters(input, where);
  const result = schema.safeParse(input, { reportInput: true });
  if (result.success) return result.data;
  const missing = missingFields(result.error.issues);
  if (missing.length > 0) {
    const list = missing.join(', ');
    throw new DomainError(where === 'body' ? '422101' : '400001', {
      field: missing[0]!,
      detail: missing.length === 1 ? `${list} is required.` : `${list} are required.`,
      suggestion: `Send ${list}.`,
    });
  }
  const issue = result.error.issues[0]!;
  const field = fieldOf(issue.path) || null;
  const name = field ?? 'the body';
  const given = (issue as { input?: unknown }).input;
  switch (issue.code) {
    case 'invalid_type':
      if (given === undefined) {
        throw new DomainError(where === 'body' ? '422101' : '400001', { field, detail: `${name} is required.`, suggestion: `Send ${name}.` });
      }
      // A number with a fraction where a whole one belongs is out of the field's range of values.
      if (issue.expected === 'int' && typeof given === 'number') {
        throw new DomainError('400003', {
          field,
          detail: `${name} must be a whole number.`,
          suggestion: `Send ${name} as a whole number within the allowed range.`,
        });
      }
      // Every number of a query or path is a whole one, and arrives as text: name the text given.
      if (where !== 'body' && issue.expected === 'number') {
        const raw = valueAt(input, issue.path);
        throw new DomainError('400001', {
          field,
          detail: `${name} must be a whole number; got ${typeof raw === 'string' ? JSON.stringify(raw.length > 40 ? `${raw.slice(0, 40)}…` : raw) : describeType(raw)}.`,
          suggestion: `Send ${name} as a whole number, e.g. ${name}=20.`,
        });
      }
      throw new DomainError(where === 'body' ? '422102' : '400001', {
        field,
        detail: `${name} must be ${article(issue.expected)}; got ${describeType(given)}.`,
        suggestion: `Send ${name} as ${article(issue.expected)}.`,
      });
    case 'too_small':
    case 'too_big':
      throw new DomainError('400003', { field, detail: rangeDetail(name, issue), suggestion: `Send ${name} within the allowed range.` });
    case 'invalid_format': {
      // A pattern names itself through the schema's message (record-columns.ts); the known formats by FORMAT_WORDING.
      const wording = FORMAT_WORDING[issue.format] ?? { what: issue.format === 'regex' ? issue.message : `a valid ${issue.format}`, suggestion: '' };
      throw new DomainError('400004', {
        field,
        detail: `${name} must be ${wording.what}.`,
        suggestion: wording.suggestion || `Send ${name} as ${wording.what}.`,
      });
    }
    case 'invalid_value':
      throw new DomainError(where === 'body' ? '422103' : '400001', {
        field,
        detail: `${name} must be one of ${issue.values.map(String).join(', ')}.`,
        suggestion: `Use one of: ${issue.values.map(String).join(', ')}.`,
      });
    case 'custom': {
      const code = (issue.params as { code?: string } | undefined)?.code ?? (where === 'body' ? '422103' : '400001');
      throw new DomainError(code, { field, detail: issue.message });
    }
    default:
      // Unions, keys and the like: the library's message would speak of its own types.
      throw new DomainError(where === 'body' ? '422103' : '400001', {
        field,
        detail: `${name} does not hold a value this field accepts.`,
        suggestion: `Check ${name} against the API reference (GET /v3/openapi.json).`,
      });
  }
}

/**
 * 400004 for the first string of the input holding NUL or another control character (see
 * control-characters.ts), before any schema sees it: one check for every body and query.
 */
function refuseControlCharacters(input: unknown, where: 'body' | 'query' | 'path'): void {
  const path = findControlCharacter(input, where === 'body' ? 'body' : 'query');
  if (path === null) return;
  // A repeated query parameter is named by its name alone.
  const field = (where === 'body' ? fieldOf(path) : String(path[0] ?? '')) || null;
  throw new DomainError('400004', {
    field,
    detail: `${field ?? 'The body'} holds a NUL or other control character.`,
    suggestion:
      where === 'body'
        ? 'Remove control characters from the text (tab and line breaks are fine in free text).'
        : 'Remove control characters (such as %00) from the parameter.',
  });
}

/** "name is at most 100 characters long", without quoting the value. */
function rangeDetail(name: string, issue: z.core.$ZodIssueTooBig | z.core.$ZodIssueTooSmall): string {
  const big = issue.code === 'too_big';
  const bound = big ? (issue as z.core.$ZodIssueTooBig).maximum : (issue as z.core.$ZodIssueTooSmall).minimum;
  const most = big ? 'at most' : 'at least';
  if (issue.origin === 'string') return `${name} is ${most} ${bound} characters long.`;
  if (issue.origin === 'array' || issue.origin === 'set') return `${name} holds ${most} ${bound} entries.`;
  return `${name} must be ${big ? (issue.inclusive ? 'at most' : 'below') : issue.inclusive ? 'at least' : 'above'} ${bound}.`;
}

/** Query-string limit and cursor shared by every list. */
export const pageQuery = z.object({
  limit: queryInteger(1, 100).optional(),
  cursor: z.string().max(500).optional(),
});

export function pageOf(q: { limit?: number | undefined; cursor?: string | undefined }) {
  return { limit: q.limit ?? 20, cursor: q.cursor ?? '' };
}

export function listData<T, U>(items: T[], present: (t: T) => U, page?: { nextCursor?: string | undefined; hasMore: boolean }) {
  return { items: items.map(present), next_cursor: page?.nextCursor ?? null, has_more: page?.hasMore ?? false };
}
