import type { monitoringData } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import { isId } from '@mp/kit';
import type { DataDeps } from '../deps.js';
import { ALARM_LEVELS } from '../alarms/settings.js';
import { mostSevere } from '../alarms/severity.js';

/** A page of projects names at most this many (the gateway's list limit is 100). */
export const MAX_SUMMARY_PROJECTS = 100;

/**
 * The active alarms (open or acknowledged) of each named project the caller reads, counted by
 * level, for project lists (ADR 0088): one grouped query on the partial index of active alarms.
 * Every named project the caller reads is answered, with zero counts when it has no active alarm;
 * a project it does not read is left out, so its counts never reach it.
 */
export async function summarizeProjectAlarms(
  deps: DataDeps,
  req: monitoringData.ProjectAlarmsRequest,
  caller: CallerContext,
): Promise<monitoringData.ProjectAlarmSummaries> {
  if (req.projectIds.length > MAX_SUMMARY_PROJECTS)
    throw new DomainError('400003', { field: 'project_ids', detail: `At most ${MAX_SUMMARY_PROJECTS} projects per call.` });
  const named = [...new Set(req.projectIds.filter((id) => isId('project', id)))];
  if (!named.length) return { items: [] };
  const readable = await deps.access.readable(caller, named);
  const ids = readable === null ? named : named.filter((id) => readable.includes(id));
  if (!ids.length) return { items: [] };
  const { rows } = await deps.db.query<{ project_id: string; level: string; status: string; n: number }>(
    `SELECT project_id, level, status, count(*)::int AS n FROM alarms
      WHERE project_id = ANY($1::text[]) AND tenant_id = $2 AND environment = $3 AND status <> 'cleared'
      GROUP BY project_id, level, status`,
    [ids, caller.tenantId, caller.environment],
  );
  const items = new Map<string, monitoringData.ProjectAlarmSummary>(
    ids.map((id) => [id, { projectId: id, count: 0, unacknowledged: 0, byLevel: ALARM_LEVELS.map((level) => ({ level, count: 0 })) }]),
  );
  for (const r of rows) {
    const s = items.get(r.project_id)!;
    s.count += r.n;
    if (r.status === 'open') s.unacknowledged += r.n;
    let slot = s.byLevel.find((l) => l.level === r.level);
    if (!slot) s.byLevel.push((slot = { level: r.level, count: 0 }));
    slot.count += r.n;
    const highest = mostSevere(s.highestLevel, r.level);
    if (highest !== undefined) s.highestLevel = highest;
  }
  return { items: [...items.values()] };
}
