/**
 * A CTE named `async_commit` that sets synchronous_commit off for the statement's own (implicit)
 * transaction: the commit then does not wait for the WAL to reach the disk. A statement that uses
 * it must read from `async_commit` (a CTE nobody reads is not evaluated).
 *
 * Only for writes a database crash may forget without losing anything, because forgetting them
 * makes work be done again, never lost: webhook claim leases and attempt outcomes (ADR 0009) and
 * the outbox relay's "dispatched" marks (a forgotten mark republishes the event; JetStream and the
 * consumers de-duplicate it by event_id).
 */
export const ASYNC_COMMIT_SQL = `async_commit AS MATERIALIZED (SELECT set_config('synchronous_commit', 'off', true) AS setting)`;
