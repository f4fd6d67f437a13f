import { sensorTypeSpec, type monitoringData, type projects } from '@mp/contracts';
import type { Queryable } from '@mp/db';
import type { CallerContext } from '@mp/grpc';
import { readLogo, type LogoImage } from './logo-row.js';
import type { ReportRow } from './report-row.js';
import type { ReportSources } from './sources.js';

/** Buckets of a point's plot: enough to draw a year at ~1 px per day on an A4 page. */
export const PLOT_BUCKETS = 400;
/** Records per call when reading a whole period (monitoring-data grants the reports party up to 2,000). */
const RECORDS_PAGE = 2000;
/** Reads in flight at once for one report (points fetched in parallel). */
const PARALLEL = 8;

export type Axis = 'dx' | 'dy' | 'dz';
export const AXES: Axis[] = ['dx', 'dy', 'dz'];

export interface AxisStats {
  min: number;
  max: number;
  mean: number;
  last: number | null;
  /** (last − first) / days between them, over the valid records of the period; null with fewer than two. */
  ratePerDay: number | null;
}

export interface PointInfo {
  id: string;
  number: string;
  name: string;
  warning: number;
  alarm: number;
  /** Reference coordinates (m): where the location plan places the point. */
  x: number;
  y: number;
  /**
   * The channel an instrument point's plot and tables show (its type's primary channel, with its
   * unit) and the trigger levels set on it; null for a geodetic point (dx, dy, dz in mm).
   */
  channel: { name: string; unit: string; levels: { level: string; above: number | null; below: number | null }[] } | null;
  /** The channels of an instrument point's type, in the type's order (the CSV/XLSX columns); empty for a geodetic one. */
  channels: { name: string; unit: string }[];
}

export interface PointData {
  point: PointInfo;
  buckets: monitoringData.Bucket[];
  /** Width of a bucket (ms). */
  intervalMs: number;
  /** Records of the series (valid and suspect) in the period. */
  count: number;
  stats: Record<Axis, AxisStats | null>;
  /** An instrument point's statistics of its channel (point.channel); null for a geodetic point. */
  channelStats: AxisStats | null;
  /** The newest valid record in the period, as the API reports it. */
  latest: monitoringData.DataRecord | null;
  /** Abnormal records in the period, and alarms opened in it, per level. */
  abnormal: { warning: number; alarm: number };
  alarms: { warning: number; alarm: number };
}

/** Everything a report's documents show, read from projects and monitoring-data. */
export interface ReportData {
  id: string;
  title: string;
  from: string;
  to: string;
  timeZone: string;
  /** When the report was asked for: the "generated at" of its documents (deterministic re-runs). */
  requestedAt: string;
  templateName: string;
  sections: string[];
  project: { id: string; name: string; number: string };
  points: PointData[];
  /** Template points that are not (or no longer) points of the project. */
  missingPointIds: string[];
  /** The newest record the documents include (measured_at), null for an empty period. */
  dataAsOf: string | null;
  /** Whose report it is: the tenant's name and logo head every page (null: not known, none uploaded). */
  tenant: { name: string | null; logo: LogoImage | null };
  /** Who approved the report and when, for a document made after its approval (none is yet: null). */
  approval: { by: string; at: string } | null;
}

async function allPages<T>(fetch: (cursor: string | undefined) => Promise<{ items: T[]; page?: { nextCursor?: string; hasMore: boolean } }>): Promise<T[]> {
  const out: T[] = [];
  let cursor: string | undefined;
  do {
    const res = await fetch(cursor);
    out.push(...res.items);
    cursor = res.page?.hasMore ? res.page.nextCursor : undefined;
  } while (cursor);
  return out;
}

async function inParallel<T, R>(items: T[], n: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const run = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, run));
  return out;
}

/** The points a report covers: the template's (in the project's order), or every point of the project. */
export async function reportPoints(sources: ReportSources, ctx: CallerContext, projectId: string, pointIds: string[]) {
  const all = await allPages<projects.Point>((cursor) => sources.projects.listPoints({ projectId, page: { limit: 100, cursor: cursor ?? '' } }, ctx));
  all.sort((a, b) => a.number.localeCompare(b.number, 'en') || a.id.localeCompare(b.id));
  const wanted = pointIds.length ? new Set(pointIds) : null;
  const points = (wanted ? all.filter((p) => wanted.has(p.id)) : all).map((p): PointInfo => ({
    id: p.id,
    number: p.number,
    name: p.name,
    warning: p.warningThreshold,
    alarm: p.alarmThreshold,
    x: p.reference?.x ?? 0,
    y: p.reference?.y ?? 0,
    ...channelsOf(p),
  }));
  const known = new Set(all.map((p) => p.id));
  return { points, missing: pointIds.filter((id) => !known.has(id)) };
}

/** The channel a report shows of a point (docs/instruments.md): none for the geodetic types. */
function channelsOf(p: projects.Point): Pick<PointInfo, 'channel' | 'channels'> {
  const type = sensorTypeSpec(p.sensorType);
  if (!type || type.geodetic) return { channel: null, channels: [] };
  const primary = type.channels.find((c) => c.name === type.primary);
  const levels = p.triggerLevels.filter((l) => l.channel === type.primary).map((l) => ({ level: l.level, above: l.above ?? null, below: l.below ?? null }));
  return {
    channel: { name: type.primary, unit: primary?.unit ?? '', levels },
    channels: type.channels.map((c) => ({ name: c.name, unit: c.unit })),
  };
}

/** The channels of the report's instrument points, each name once, in the points' order: the extra record columns. */
export function reportChannels(points: PointInfo[]): { name: string; unit: string }[] {
  const seen = new Map<string, { name: string; unit: string }>();
  for (const p of points) for (const c of p.channels) if (!seen.has(c.name)) seen.set(c.name, c);
  return [...seen.values()];
}

/** A record's value of `key`: an axis (dx, dy, dz) or an instrument channel by name. */
export function valueOf(r: monitoringData.DataRecord | null, key: string): number | null {
  const v = r?.values;
  if (!v) return null;
  if (key === 'dx' || key === 'dy' || key === 'dz' || key === 'x' || key === 'y' || key === 'z') return v[key] ?? null;
  return v.channels?.values[key] ?? null;
}

function statsOf(
  buckets: monitoringData.Bucket[],
  axis: Axis | 'value',
  key: string,
  first: monitoringData.DataRecord | null,
  last: monitoringData.DataRecord | null,
): AxisStats | null {
  let min = Infinity,
    max = -Infinity,
    sum = 0,
    n = 0;
  for (const b of buckets) {
    const s = b[axis];
    if (!s) continue;
    min = Math.min(min, s.min);
    max = Math.max(max, s.max);
    sum += s.avg * b.count;
    n += b.count;
  }
  if (n === 0) return null;
  const lastValue = valueOf(last, key);
  const firstValue = valueOf(first, key);
  const days = first && last ? (Date.parse(last.measuredAt) - Date.parse(first.measuredAt)) / 86_400_000 : 0;
  return {
    min,
    max,
    mean: sum / n,
    last: lastValue,
    ratePerDay: lastValue !== null && firstValue !== null && days > 0 ? (lastValue - firstValue) / days : null,
  };
}

/** Reads a report's data as its requester: points, per point its series, statistics, latest value, abnormal records and alarms. */
export async function gatherReport(sources: ReportSources, ctx: CallerContext, r: ReportRow, db: Queryable): Promise<ReportData> {
  const logo = await readLogo(db, r.tenant_id, r.environment);
  const project = await sources.projects.getProject({ id: r.project_id }, ctx);
  const { points, missing } = await reportPoints(sources, ctx, r.project_id, r.template.point_ids);
  const range = { from: r.period_from, to: r.period_to };
  const oneRecord = async (pointId: string, order: 'asc' | 'desc', validOnly = true) =>
    (await sources.data.listRecords({ pointId, ...range, order, ...(validOnly ? { qualityFlag: 'valid' } : {}), page: { limit: 1, cursor: '' } }, ctx))
      .items[0] ?? null;
  const counts = async (list: () => Promise<{ pointId: string; level: string }[]>) => {
    const byPoint = new Map<string, { warning: number; alarm: number }>();
    for (const item of await list()) {
      const c = byPoint.get(item.pointId) ?? { warning: 0, alarm: 0 };
      if (item.level === 'warning' || item.level === 'alarm') c[item.level]++;
      byPoint.set(item.pointId, c);
    }
    return byPoint;
  };
  const wantsAlarms = r.template.sections.includes('alarms');
  const abnormal = wantsAlarms
    ? await counts(async () =>
        (
          await Promise.all(
            (['warning', 'alarm'] as const).map((status) =>
              allPages((cursor) => sources.data.listRecords({ projectId: r.project_id, ...range, status, page: { limit: 100, cursor: cursor ?? '' } }, ctx)),
            ),
          )
        )
          .flat()
          .map((rec) => ({ pointId: rec.pointId, level: rec.status })),
      )
    : new Map();
  // An alarm belongs to the period when it was opened in it, or its readings reach into it (a
  // project's alarms are few: one per point and rule at a time, ADR 0024).
  const from = Date.parse(r.period_from),
    to = Date.parse(r.period_to);
  const inPeriod = (iso: string | undefined) => iso !== undefined && Date.parse(iso) >= from && Date.parse(iso) < to;
  const alarms = wantsAlarms
    ? await counts(async () =>
        (await allPages((cursor) => sources.data.listAlarms({ projectId: r.project_id, page: { limit: 100, cursor: cursor ?? '' } }, ctx)))
          .filter((a) => inPeriod(a.openedAt) || inPeriod(a.lastMeasuredAt))
          .map((a) => ({ pointId: a.pointId, level: a.level })),
      )
    : new Map();

  let dataAsOf: number | null = null;
  const perPoint = await inParallel(points, PARALLEL, async (point): Promise<PointData> => {
    const [series, first, latest, newest] = await Promise.all([
      sources.data.getSeries({ pointId: point.id, ...range, buckets: PLOT_BUCKETS, ...(point.channel ? { channel: point.channel.name } : {}) }, ctx),
      oneRecord(point.id, 'asc'),
      oneRecord(point.id, 'desc'),
      oneRecord(point.id, 'desc', false),
    ]);
    if (newest) dataAsOf = Math.max(dataAsOf ?? 0, Date.parse(newest.measuredAt));
    const stats = Object.fromEntries(AXES.map((a) => [a, point.channel ? null : statsOf(series.buckets, a, a, first, latest)])) as Record<
      Axis,
      AxisStats | null
    >;
    const channelStats = point.channel ? statsOf(series.buckets, 'value', point.channel.name, first, latest) : null;
    return {
      point,
      buckets: series.buckets,
      intervalMs: series.intervalSeconds * 1000,
      count: series.buckets.reduce((n, b) => n + b.count, 0),
      stats,
      channelStats,
      latest,
      abnormal: abnormal.get(point.id) ?? { warning: 0, alarm: 0 },
      alarms: alarms.get(point.id) ?? { warning: 0, alarm: 0 },
    };
  });
  return {
    id: r.id,
    title: r.title,
    from: r.period_from,
    to: r.period_to,
    timeZone: r.time_zone,
    requestedAt: r.created_at,
    templateName: r.template.name,
    sections: r.template.sections,
    project: { id: project.id, name: project.name, number: project.number },
    points: perPoint,
    missingPointIds: missing,
    dataAsOf: dataAsOf !== null ? new Date(dataAsOf).toISOString() : null,
    tenant: { name: r.tenant_name, logo },
    approval: null,
  };
}

/**
 * Every record of the period for the CSV and XLSX rows, oldest first, read with the service call
 * behind GET /projects/{id}/data (the same [from, to), the same rows) in large pages, kept to the
 * report's points.
 */
export async function* periodRecords(
  sources: ReportSources,
  ctx: CallerContext,
  r: ReportRow,
  pointIds: Set<string> | null,
): AsyncGenerator<monitoringData.DataRecord[]> {
  let cursor = '';
  do {
    const res = await sources.data.listRecords(
      { projectId: r.project_id, from: r.period_from, to: r.period_to, order: 'asc', page: { limit: RECORDS_PAGE, cursor } },
      ctx,
    );
    yield pointIds ? res.items.filter((x) => pointIds.has(x.pointId)) : res.items;
    cursor = res.page?.hasMore && res.page.nextCursor ? res.page.nextCursor : '';
  } while (cursor);
}
