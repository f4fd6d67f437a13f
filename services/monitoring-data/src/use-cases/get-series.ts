import type { monitoringData } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import { rawHorizon } from '../archive.js';
import type { DataDeps } from '../deps.js';
import { requireId } from '../project-id.js';
import { readBuckets, type BucketRow } from '../series-query.js';
import { gridForBuckets, plan, type Grid } from '../series-plan.js';
import { timeRange } from '../time-range.js';

const DEFAULT_SPAN_MS = 30 * 86_400_000;
const DEFAULT_BUCKETS = 200;
export const MAX_BUCKETS = 5000;

/**
 * A point's series for charts: the range [from, to) (default: the 30 days up to now) cut into
 * buckets of `interval_seconds` from `from` on (or into at most `buckets` buckets, 200 by default,
 * on whole UTC hours or days from an hour on: series-plan.ts), each with the count and
 * min/avg/max of dx, dy, dz over its valid and suspect records. Buckets without records are left
 * out. Read from the day and hour rollups, raw rows only where a bucket edge cuts an hour (ADR 0023);
 * in months whose raw rows were archived, whole hours instead (ADR 0081).
 */
export async function getSeries(deps: DataDeps, req: monitoringData.SeriesRequest, caller: CallerContext): Promise<monitoringData.Series> {
  requireId('point', req.pointId);
  const { projectId } = await deps.contexts.forPoint(caller, req.pointId);
  const range = timeRange(req.from, req.to);
  const to = range.to ?? (range.from !== null ? Math.max(deps.clock.now().getTime(), range.from + 1000) : deps.clock.now().getTime());
  const from = range.from ?? to - DEFAULT_SPAN_MS;
  let grid: Grid;
  if (req.intervalSeconds !== undefined) {
    if (req.intervalSeconds < 1) throw new DomainError('400003', { field: 'interval_seconds', detail: 'interval_seconds must be at least 1.' });
    grid = { origin: from, interval: req.intervalSeconds };
  } else {
    const buckets = req.buckets ?? DEFAULT_BUCKETS;
    if (buckets < 1 || buckets > MAX_BUCKETS) throw new DomainError('400003', { field: 'buckets', detail: `buckets must be 1 to ${MAX_BUCKETS}.` });
    grid = gridForBuckets(from, to, buckets);
  }
  const interval = grid.interval;
  if ((to - from) / 1000 / interval > MAX_BUCKETS) {
    throw new DomainError('400003', {
      field: 'interval_seconds',
      detail: `The range holds more than ${MAX_BUCKETS} buckets of ${interval} s.`,
      suggestion: 'Use a larger interval_seconds or a shorter range.',
    });
  }
  const fromIso = new Date(from).toISOString();
  const rawBefore = await rawHorizon(deps.db, caller.tenantId);
  const rows = await readBuckets(deps.db, req.pointId, grid, plan(grid, from, to, rawBefore));
  const stat = (r: BucketRow, k: string) =>
    r[`${k}_min`] === null ? undefined : { min: Number(r[`${k}_min`]), avg: Number(r[`${k}_avg`]), max: Number(r[`${k}_max`]) };
  return {
    pointId: req.pointId,
    projectId,
    from: fromIso,
    to: new Date(to).toISOString(),
    intervalSeconds: grid.interval,
    buckets: rows.map((r) => {
      const dx = stat(r, 'dx'),
        dy = stat(r, 'dy'),
        dz = stat(r, 'dz');
      return { start: new Date(r.start).toISOString(), count: r.count, ...(dx ? { dx } : {}), ...(dy ? { dy } : {}), ...(dz ? { dz } : {}) };
    }),
  };
}
