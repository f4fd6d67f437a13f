import { createHash } from 'node:crypto';
import type { Queryable } from '@mp/db';

/**
 * Takes a transaction-scoped advisory lock named `name`, so that replicas starting together do
 * one-time work (first administrator, first signing key) exactly once.
 */
export async function advisoryXactLock(tx: Queryable, name: string): Promise<void> {
  const key = createHash('sha256').update(`identity:${name}`).digest().readInt32BE(0);
  await tx.query('SELECT pg_advisory_xact_lock($1)', [key]);
}
