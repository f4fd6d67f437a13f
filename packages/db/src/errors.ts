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
