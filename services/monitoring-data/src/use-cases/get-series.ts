import type { monitoringData } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import type { DataDeps } from '../deps.js';
import { requireId } from '../project-id.js';
import { timeRange } from '../time-range.js';

const DEFAULT_SPAN_MS = 30 * 86_400_000;
const DEFAULT_BUCKETS = 200;
export const MAX_BUCKETS = 5000;

interface BucketRow {
  start: string;
  count: number;
  [k: string]: number | string | null;
}

/**
 * A point's series for charts: the range [from, to) (default: the 30 days up to now) cut into
 * buckets of `interval_seconds` (or into `buckets` equal buckets, 200 by default), each with the
 * count and min/avg/max of dx, dy, dz over its valid records. Buckets without records are left
 * out. One aggregate over the (point_id, measured_at) index, in the partitions of the range.
 */
export async function getSeries(deps: DataDeps, req: monitoringData.SeriesRequest, caller: CallerContext): Promise<monitoringData.Series> {
  requireId('point', req.pointId);
  const projectId = await deps.contexts.projectOf(caller, req.pointId);
  await deps.contexts.get(caller, projectId, [req.pointId], false);
  const range = timeRange(req.from, req.to);
  const to = range.to ?? (range.from !== null ? Math.max(deps.clock.now().getTime(), range.from + 1000) : deps.clock.now().getTime());
  const from = range.from ?? to - DEFAULT_SPAN_MS;
  let interval: number;
  if (req.intervalSeconds !== undefined) {
    if (req.intervalSeconds < 1) throw new DomainError('400003', { field: 'interval_seconds', detail: 'interval_seconds must be at least 1.' });
    interval = req.intervalSeconds;
  } else {
    const buckets = req.buckets ?? DEFAULT_BUCKETS;
    if (buckets < 1 || buckets > MAX_BUCKETS) throw new DomainError('400003', { field: 'buckets', detail: `buckets must be 1 to ${MAX_BUCKETS}.` });
    interval = Math.max(1, Math.ceil((to - from) / 1000 / buckets));
  }
  if ((to - from) / 1000 / interval > MAX_BUCKETS) {
    throw new DomainError('400003', { field: 'interval_seconds', detail: `The range holds more than ${MAX_BUCKETS} buckets of ${interval} s.`, suggestion: 'Use a larger interval_seconds or a shorter range.' });
  }
  const fromIso = new Date(from).toISOString();
  const { rows } = await deps.db.query<BucketRow>(
    `SELECT date_bin(make_interval(secs => $4), measured_at, $2::timestamptz) AS start, count(*)::int AS count,
            min(dx) AS dx_min, avg(dx) AS dx_avg, max(dx) AS dx_max,
            min(dy) AS dy_min, avg(dy) AS dy_avg, max(dy) AS dy_max,
            min(dz) AS dz_min, avg(dz) AS dz_avg, max(dz) AS dz_max
       FROM data_records
      WHERE point_id = $1 AND measured_at >= $2 AND measured_at < $3 AND quality_flag <> 'invalid'
      GROUP BY 1 ORDER BY 1`,
    [req.pointId, fromIso, new Date(to).toISOString(), interval],
  );
  // The mean is rounded to 1e-6 mm: a sum of doubles is noisy in the last digits (0.8500000000000001).
  const mean = (v: unknown) => Math.round(Number(v) * 1e6) / 1e6;
  const stat = (r: BucketRow, k: string) => (r[`${k}_min`] === null ? undefined : { min: Number(r[`${k}_min`]), avg: mean(r[`${k}_avg`]), max: Number(r[`${k}_max`]) });
  return {
    pointId: req.pointId,
    projectId,
    from: fromIso,
    to: new Date(to).toISOString(),
    intervalSeconds: interval,
    buckets: rows.map((r) => {
      const dx = stat(r, 'dx'), dy = stat(r, 'dy'), dz = stat(r, 'dz');
      return { start: new Date(r.start).toISOString(), count: r.count, ...(dx ? { dx } : {}), ...(dy ? { dy } : {}), ...(dz ? { dz } : {}) };
    }),
  };
}
