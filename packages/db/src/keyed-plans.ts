/**
 * Planner settings for connections that run only hot statements reaching a bounded number of rows
 * by key: a queue's claims and outcomes, an outbox relay (ADR 0058).
 *
 * Such a statement is prepared once per connection, and after five executions PostgreSQL keeps a
 * generic plan built on the statistics of that moment. A service that starts on empty tables
 * plans its claims for empty tables: sequential scans and hash joins, cheapest when there is
 * nothing to read. The plan stays cached when a burst of work fills the tables (only an ANALYZE
 * replaces it, and autovacuum's comes a minute or more later), and every claim then read the whole
 * table: 100,000 pending webhook deliveries went out at 676/s, with 1.3 ms of PostgreSQL CPU
 * per delivery (bench/webhooks). Statistics taken before a burst mislead a fresh plan the same way.
 *
 * For these statements the right plan never depends on the table's size: index look-ups driven by
 * the few rows at hand. With sequential and bitmap scans and hash and merge joins off, the planner
 * takes those paths whatever the statistics say; it falls back on a disabled one only where no
 * other exists. JIT is off too: it pays off for queries that run for seconds, and these run for
 * milliseconds while their estimates grow with the table (ADR 0021).
 */
export const KEYED_PLAN_SETTINGS: Readonly<Record<string, string>> = {
  enable_seqscan: 'off',
  enable_bitmapscan: 'off',
  enable_hashjoin: 'off',
  enable_mergejoin: 'off',
  jit: 'off',
};

export interface ReserveOptions {
  /**
   * Plan every statement on these connections with KEYED_PLAN_SETTINGS. Only for connections
   * whose statements all reach their rows by key; a report or a list on them would be forced off
   * the plan its size needs.
   */
  keyedPlans?: boolean;
}
