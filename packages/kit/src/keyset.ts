import { DomainError } from '@mp/errors';
import { decodeCursor, pageLimit, toPage } from './pagination.js';

/** A list request's page (the contracts' PageRequest) and the page an answer carries (PageInfo). */
export interface PageRequest {
  limit?: number;
  cursor?: string;
}
export interface PageInfo {
  hasMore: boolean;
  nextCursor?: string;
}

/**
 * Keyset pagination shared by the services' lists: newest first by (created_at, <id column>). Callers add
 * their WHERE conditions; this adds the cursor condition, the order and the LIMIT.
 */
export class ListQuery {
  readonly where: string[] = [];
  readonly params: unknown[] = [];
  readonly limit: number;
  private readonly created: string;
  private readonly id: string;

  /** `alias` prefixes the key columns (e.g. `t` for `t.created_at`); `idColumn` breaks ties. */
  constructor(
    private readonly page: PageRequest | undefined,
    opts: { alias?: string; idColumn?: string } = {},
  ) {
    this.limit = pageLimit(page?.limit);
    const a = opts.alias ? `${opts.alias}.` : '';
    this.created = `${a}created_at`;
    this.id = `${a}${opts.idColumn ?? 'id'}`;
  }

  /** Adds a parameter and returns its placeholder ($n). */
  param(value: unknown): string {
    this.params.push(value);
    return `$${this.params.length}`;
  }

  and(condition: string): this {
    this.where.push(condition);
    return this;
  }

  /** The complete statement: `select` is everything before WHERE (columns, table, joins). */
  sql(select: string): string {
    if (this.page?.cursor) {
      const [createdAt, id] = decodeCursor(this.page.cursor);
      if (typeof createdAt !== 'string' || typeof id !== 'string')
        throw new DomainError('400004', { field: 'cursor', detail: 'cursor is not one this API returned' });
      this.and(`(${this.created}, ${this.id}) < (${this.param(createdAt)}::timestamptz, ${this.param(id)})`);
    }
    const where = this.where.length ? ` WHERE ${this.where.join(' AND ')}` : '';
    return `${select}${where} ORDER BY ${this.created} DESC, ${this.id} DESC LIMIT ${this.param(this.limit + 1)}`;
  }

  /** Given the rows of `sql()`, the page and its PageInfo; `idOf` reads the tie-breaking column. */
  result<R extends { created_at: string }, T>(
    rows: R[],
    map: (r: R) => T,
    idOf: (r: R) => string = (r) => (r as unknown as { id: string }).id,
  ): { items: T[]; page: PageInfo } {
    const page = toPage(rows, this.limit, (r) => [r.created_at, idOf(r)]);
    return { items: page.items.map(map), page: { hasMore: page.hasMore, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) } };
  }
}
