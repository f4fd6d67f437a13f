import { DomainError } from '@mp/errors';

/** Opaque cursors: base64url of the sort key of the last item returned. */
export function encodeCursor(parts: (string | number)[]): string {
  return Buffer.from(JSON.stringify(parts)).toString('base64url');
}

export function decodeCursor(cursor: string, field = 'cursor'): (string | number)[] {
  try {
    const parts = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(parts) && parts.every((p) => typeof p === 'string' || typeof p === 'number')) return parts;
  } catch {
    // fall through to the domain error
  }
  throw new DomainError('400004', {
    field,
    detail: 'cursor is not one this API returned',
    suggestion: 'Pass the next_cursor value from the previous page unchanged.',
  });
}

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;

export function pageLimit(limit: number | undefined): number {
  if (!limit) return DEFAULT_LIMIT;
  return Math.min(Math.max(1, limit), MAX_LIMIT);
}

/** Given `limit + 1` rows, returns the page and the cursor of the next one. */
export function toPage<T>(rows: T[], limit: number, keyOf: (row: T) => (string | number)[]) {
  const hasMore = rows.length > limit;
  const items = hasMore ? rows.slice(0, limit) : rows;
  const last = items[items.length - 1];
  return { items, hasMore, nextCursor: hasMore && last ? encodeCursor(keyOf(last)) : undefined };
}
