/**
 * A CTE named `async_commit` that sets synchronous_commit off for the statement's own (implicit)
 * transaction: the commit then does not wait for the WAL to reach the disk. A statement that uses
 * it must read from `async_commit` (a CTE nobody reads is not evaluated).
 *
 * Only for writes a database crash may forget without losing an event (ADR 0009): claim leases and
 * attempt outcomes. Forgetting them makes a delivery due again, so it is repeated, never lost. The
 * deliveries themselves are committed synchronously before their event is acknowledged.
 */
export const ASYNC_COMMIT_SQL = `async_commit AS MATERIALIZED (SELECT set_config('synchronous_commit', 'off', true) AS setting)`;
