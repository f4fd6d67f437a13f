import type { monitoringData } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import { rawHorizon } from '../archive.js';
import type { DataDeps } from '../deps.js';
import type { PointInfo } from '../ingest-context.js';
import { requireId } from '../project-id.js';
import { hasChannelRollups, readBuckets, readChannelBuckets, type BucketRow } from '../series-query.js';
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
  const { projectId, context } = await deps.contexts.forPoint(caller, req.pointId);
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
  const point = context.points.get(req.pointId);
  const channel = await seriesChannel(deps, req.pointId, point, req.channel);
  const rawBefore = await rawHorizon(deps.db, caller.tenantId);
  if (channel) {
    const pieces = plan(grid, from, to, rawBefore);
    // a geodetic point's displacement comes from the geodetic rollups (the axis' buckets)
    const rows = GEODETIC_SERIES.includes(channel.name)
      ? (await readBuckets(deps.db, req.pointId, grid, pieces))
          .filter((r) => r[`${channel.name}_min`] !== null)
          .map((r) => ({ start: r.start, count: r.count, min: r[`${channel.name}_min`], avg: r[`${channel.name}_avg`], max: r[`${channel.name}_max`] }))
      : await readChannelBuckets(deps.db, req.pointId, channel.name, grid, pieces);
    return {
      pointId: req.pointId,
      projectId,
      from: fromIso,
      to: new Date(to).toISOString(),
      intervalSeconds: grid.interval,
      channel: channel.name,
      unit: channel.unit,
      buckets: rows.map((r) => ({
        start: new Date(r.start).toISOString(),
        count: r.count,
        value: { min: Number(r.min), avg: Number(r.avg), max: Number(r.max) },
      })),
    };
  }
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

/** The displacements a geodetic point's rollups hold: the channels its series can name. */
const GEODETIC_SERIES = ['dx', 'dy', 'dz'];

/**
 * The channel a series is of (docs/instruments.md#series-per-channel): null for a geodetic point
 * without `channel` (dx, dy and dz together, as the specification describes); else the named
 * channel, or the type's primary one. A name is a channel of the point's type, or any other key its
 * records' `channels` hold (a derived channel); anything else is 400001 naming `channel`.
 */
async function seriesChannel(
  deps: DataDeps,
  pointId: string,
  point: PointInfo | undefined,
  name: string | undefined,
): Promise<{ name: string; unit: string } | null> {
  const type = point?.type;
  const geodetic = type?.geodetic ?? true;
  if (name === undefined) {
    if (geodetic || !type) return null;
    const primary = type.channels.find((c) => c.name === type.primary);
    return { name: type.primary, unit: primary?.unit ?? '' };
  }
  const names = geodetic ? GEODETIC_SERIES : (type?.channels.map((c) => c.name) ?? []);
  if (names.includes(name)) return { name, unit: type?.channels.find((c) => c.name === name)?.unit ?? 'mm' };
  // a derived channel of the point, in the unit the point gives it
  const derived = geodetic ? undefined : point?.derived.find((d) => d.name === name);
  if (derived) return { name, unit: derived.unit };
  // a channel the records still hold that the point no longer derives: its unit is not known any more
  if (!geodetic && name.length <= 64 && (await hasChannelRollups(deps.db, pointId, name))) return { name, unit: '' };
  throw new DomainError('400001', {
    field: 'channel',
    detail: `Point ${pointId} has no channel ${JSON.stringify(name.slice(0, 64))}${geodetic ? ' in its rollups' : ''}.`,
    suggestion: `Use one of: ${[...names, ...(point?.derived.map((d) => d.name) ?? [])].join(', ')}; or leave channel out for ${geodetic ? 'dx, dy and dz' : `the primary channel (${type?.primary})`}.`,
  });
}
