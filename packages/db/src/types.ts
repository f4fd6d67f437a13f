import type { ReserveOptions } from './keyed-plans.js';

/** The part of a database connection that runs statements; a transaction is one too. */
export interface Queryable {
  query<R = Record<string, unknown>>(sql: string, params?: unknown[], opts?: QueryOptions): Promise<{ rows: R[]; rowCount: number }>;
}

export interface QueryOptions {
  /**
   * Prepare the statement once per connection under this name and reuse its plan (PostgreSQL;
   * ignored by PGlite). For hot statements whose planning costs more than their execution, such
   * as probes and inserts on the partitioned data table. One name, one SQL text.
   */
  prepare?: string;
}

/**
 * A service's database: PostgreSQL through `pg` in distributed mode, PGlite in the embedded
 * default. The service code sees only this interface, so both run the same SQL.
 */
export interface Database extends Queryable {
  /** Runs `fn` in one transaction; commits when it resolves, rolls back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Runs several statements separated by semicolons (migrations). */
  exec(sql: string): Promise<void>;
  close(): Promise<void>;
  /**
   * The same database through connections of its own (at most `max`), for a background loop such
   * as the outbox relay: with API writes holding every pooled connection, a relay sharing the pool
   * would queue behind them and events would wait. Closed with this database. PGlite has a single
   * connection, shared by every service of the process, and returns itself (without `opts`).
   */
  reserve(max: number, opts?: ReserveOptions): Database;
  readonly kind: 'pg' | 'pglite';
}

export interface Migration {
  /** Sortable, unique within the service, e.g. "001_projects". */
  id: string;
  sql: string;
}
