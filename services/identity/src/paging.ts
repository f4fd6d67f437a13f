import type { common } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import { decodeCursor, pageLimit, toPage } from '@mp/kit';

/**
 * Newest-first keyset paging on (created_at, id), shared by the lists of this service: adds the
 * cursor condition to `where`/`params` and returns the LIMIT parameter's placeholder.
 */
export function newestFirst(page: common.PageRequest | undefined, where: string[], params: unknown[], alias = ''): { limit: number; limitParam: string } {
  const limit = pageLimit(page?.limit);
  if (page?.cursor) {
    const [createdAt, id] = decodeCursor(page.cursor);
    if (typeof createdAt !== 'string' || typeof id !== 'string') {
      throw new DomainError('400004', {
        field: 'cursor',
        detail: 'cursor is not one this API returned.',
        suggestion: 'Send the next_cursor of the previous page unchanged.',
      });
    }
    params.push(createdAt, id);
    where.push(`(${alias}created_at, ${alias}id) < ($${params.length - 1}::timestamptz, $${params.length})`);
  }
  params.push(limit + 1);
  return { limit, limitParam: `$${params.length}` };
}

/** The page of rows fetched with newestFirst, in the contract's shape. */
export function pageOfRows<R extends { created_at: string; id: string }, T>(rows: R[], limit: number, map: (r: R) => T): { items: T[]; page: common.PageInfo } {
  const page = toPage(rows, limit, (r) => [r.created_at, r.id]);
  return { items: page.items.map(map), page: { hasMore: page.hasMore, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) } };
}
