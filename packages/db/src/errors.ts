/**
 * True when `err` is PostgreSQL's unique violation (23505), on the named constraint when one is
 * given (pg reports it in `constraint`, PGlite only in the message). On a partitioned table the
 * violated index is the partition's own, so callers there leave the name out.
 */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  const e = err as { code?: string; constraint?: string; message?: string } | null;
  if (e?.code !== '23505') return false;
  return constraint === undefined || e.constraint === constraint || (e.message ?? '').includes(constraint);
}

/**
 * True for the failures PostgreSQL asks a client to retry: a serialization failure (40001) or a
 * deadlock it broke by aborting this transaction (40P01). The transaction was rolled back whole,
 * so running it again from the start is safe.
 */
export function isRetryableConflict(err: unknown): boolean {
  const code = (err as { code?: string } | null)?.code;
  return code === '40001' || code === '40P01';
}

/**
 * Runs `attempt` (one whole transaction) and runs it again, at most `tries` times in all, while it
 * fails with a retryable conflict, after a short random pause that grows with each try so the
 * transactions that collided do not collide again. Any other error, or the last conflict, is thrown.
 */
export async function retryOnConflict<T>(attempt: () => Promise<T>, tries = 5): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await attempt();
    } catch (err) {
      if (i >= tries || !isRetryableConflict(err)) throw err;
      await new Promise((r) => setTimeout(r, Math.random() * 10 * 2 ** i));
    }
  }
}
