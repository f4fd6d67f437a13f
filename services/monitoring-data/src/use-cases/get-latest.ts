import type { monitoringData } from '@mp/contracts';
import { DomainError, excerpt } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import { decodeCursor, isId, pageLimit, toPage } from '@mp/kit';
import type { DataDeps } from '../deps.js';
import { requireId } from '../project-id.js';
import { toRecord, type RecordRow } from '../record-row.js';

/** Most points one latest-values request may name (the gateway's bound too). */
export const MAX_LATEST_POINT_IDS = 500;

/**
 * The latest valid record of each point of a project that has data, ordered by point id and
 * paged by it (optionally only the given points). Each point costs one backward probe of the
 * (point_id, measured_at) index, so the answer does not slow down as data grows.
 */
export async function getLatest(deps: DataDeps, req: monitoringData.LatestRequest, caller: CallerContext): Promise<monitoringData.RecordList> {
  const projectId = requireId('project', req.projectId);
  if (req.pointIds.length > MAX_LATEST_POINT_IDS) {
    throw new DomainError('400003', {
      field: 'point_id',
      detail: `point_id names at most ${MAX_LATEST_POINT_IDS} points.`,
      suggestion: 'Ask for the points in several requests, or leave point_id out for every point (paged).',
    });
  }
  const bad = req.pointIds.find((p) => !isId('point', p));
  if (bad !== undefined) throw new DomainError('400004', { field: 'point_id', detail: `${excerpt(bad)} is not a monitoring point id (pt_…).` });
  await deps.contexts.get(caller, projectId, [], false);
  const limit = pageLimit(req.page?.limit);
  const params: unknown[] = [projectId, caller.tenantId, caller.environment];
  const where = ['project_id = $1', 'tenant_id = $2', 'environment = $3'];
  if (req.pointIds.length) {
    params.push(req.pointIds);
    where.push(`point_id = ANY($${params.length}::text[])`);
  }
  if (req.page?.cursor) {
    const [after] = decodeCursor(req.page.cursor);
    if (typeof after !== 'string') throw new DomainError('400004', { field: 'cursor', detail: 'cursor is not one this API returned' });
    params.push(after);
    where.push(`point_id > $${params.length}`);
  }
  params.push(limit + 1);
  const { rows } = await deps.db.query<RecordRow & { p: string }>(
    `SELECT p.point_id AS p, d.* FROM (SELECT point_id FROM data_points WHERE ${where.join(' AND ')} ORDER BY point_id LIMIT $${params.length}) p
       LEFT JOIN LATERAL (
         SELECT id, tenant_id, environment, project_id, point_id, measured_at, utc_offset, x, y, z, dx, dy, dz, channels, status, quality_flag, remark, created_at, updated_at, version
           FROM data_records r WHERE r.point_id = p.point_id AND r.quality_flag <> 'invalid' ORDER BY r.measured_at DESC LIMIT 1) d ON true
      ORDER BY p.point_id`,
    params,
  );
  const page = toPage(rows, limit, (r) => [r.p]);
  const items = page.items.filter((r) => r.id !== null).map(toRecord);
  // an instrument record's channels with their units: the point's type's, and its derived channels' own (docs/instruments.md)
  const instruments = items.filter((r) => r.values?.channels);
  if (instruments.length) {
    const ctx = await deps.contexts.get(
      caller,
      projectId,
      instruments.map((r) => r.pointId),
      false,
    );
    for (const r of instruments) {
      const point = ctx.points.get(r.pointId);
      const units: Record<string, string> = {};
      for (const name of Object.keys(r.values!.channels!.values)) {
        const unit = point?.type?.channels.find((c) => c.name === name)?.unit ?? point?.derived.find((d) => d.name === name)?.unit;
        if (unit !== undefined) units[name] = unit;
      }
      r.units = units;
    }
  }
  return {
    items,
    page: { hasMore: page.hasMore, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) },
  };
}
