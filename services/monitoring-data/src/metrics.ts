import { counter } from '@mp/kit';
import type { RecordFailure } from './record-rules.js';

/**
 * Ingestion counts (process registry, ADR 0036). `path` is `write` (POST …/data, all or nothing)
 * or `batch`; `reason` is the six-digit error code that refused the record: both bounded.
 */
const ingested = counter({
  name: 'mp_records_ingested_total',
  help: 'Monitoring records stored, by path (write, batch).',
  labelNames: ['path'],
});
const refused = counter({
  name: 'mp_records_refused_total',
  help: 'Monitoring records refused, by path and reason (the error code; a refused write counts all its records under the code that refused it).',
  labelNames: ['path', 'reason'],
});

export function countIngested(path: 'write' | 'batch', n: number): void {
  if (n > 0) ingested.inc({ path }, n);
}

export function countRefused(path: 'write' | 'batch', reason: string, n = 1): void {
  if (n > 0) refused.inc({ path, reason }, n);
}

export function countFailures(path: 'write' | 'batch', failures: readonly Pick<RecordFailure, 'code'>[]): void {
  const byCode = new Map<string, number>();
  for (const f of failures) byCode.set(f.code, (byCode.get(f.code) ?? 0) + 1);
  for (const [code, n] of byCode) countRefused(path, code, n);
}

const rejectedRollups = counter({
  name: 'mp_rollup_points_rejected_total',
  help: 'Points whose rollup deltas could not be folded and were set aside in data_rollup_rejects (each is logged; recount with npm run rollups:rebuild once the record is fixed).',
});

export function countRejectedRollups(n: number): void {
  if (n > 0) rejectedRollups.inc(n);
}
