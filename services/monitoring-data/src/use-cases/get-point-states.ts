import type { monitoringData } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import { isId } from '@mp/kit';
import type { DataDeps } from '../deps.js';
import { rulesFor } from '../alarms/settings.js';
import { mostSevere } from '../alarms/severity.js';
import { requireId } from '../project-id.js';

/** A page of points names at most this many (the gateway's list limit is 100). */
export const MAX_STATE_POINTS = 100;

interface StateRow {
  point_id: string;
  measured_at: Date | string | null;
  status: string | null;
  levels: string[] | null;
}

/**
 * The state of each named point of one project now (ADR 0088), for the point list: the latest
 * valid reading (one backward probe of the (point_id, measured_at) index per point), the levels
 * of its active alarms (the partial index of active alarms), and whether it is stale: no reading
 * for the point's expected interval × stale factor, the moment the stale-data rule calls it
 * overdue (alarms/stale-watch.ts). The rules are the point's own over the operator defaults, read
 * with the caller's access from the projects service; points of other projects are left out.
 */
export async function getPointStates(deps: DataDeps, req: monitoringData.PointStatesRequest, caller: CallerContext): Promise<monitoringData.PointStates> {
  const projectId = requireId('project', req.projectId);
  if (req.pointIds.length > MAX_STATE_POINTS) throw new DomainError('400003', { field: 'point_ids', detail: `At most ${MAX_STATE_POINTS} points per call.` });
  const named = [...new Set(req.pointIds.filter((id) => isId('point', id)))];
  const ctx = await deps.contexts.get(caller, projectId, named, false);
  const ids = named.filter((id) => ctx.points.has(id));
  if (!ids.length) return { items: [] };
  const { rows } = await deps.db.query<StateRow>(
    `SELECT p.id AS point_id, d.measured_at, d.status, a.levels
       FROM unnest($1::text[]) AS p(id)
       LEFT JOIN LATERAL (
         SELECT r.measured_at, r.status FROM data_records r
          WHERE r.point_id = p.id AND r.tenant_id = $2 AND r.environment = $3 AND r.quality_flag <> 'invalid'
          ORDER BY r.measured_at DESC LIMIT 1) d ON true
       LEFT JOIN LATERAL (
         SELECT array_agg(level) AS levels FROM alarms a
          WHERE a.point_id = p.id AND a.tenant_id = $2 AND a.environment = $3 AND a.status <> 'cleared') a ON true`,
    [ids, caller.tenantId, caller.environment],
  );
  const now = deps.clock.now().getTime();
  return {
    items: rows.map((r) => {
      const rules = rulesFor(deps.alarms, ctx.points.get(r.point_id)!.alarmRules);
      const last = r.measured_at === null ? null : new Date(r.measured_at);
      const alarmLevel = (r.levels ?? []).reduce<string | undefined>((a, b) => mostSevere(a, b), undefined);
      const status = mostSevere(r.status ?? undefined, alarmLevel);
      const stale = last !== null && rules.expectedIntervalSeconds !== null && now - last.getTime() >= rules.expectedIntervalSeconds * rules.staleFactor * 1000;
      return {
        pointId: r.point_id,
        ...(status !== undefined ? { status } : {}),
        ...(last ? { lastMeasuredAt: last.toISOString() } : {}),
        stale,
        ...(alarmLevel !== undefined ? { alarmLevel } : {}),
      };
    }),
  };
}
