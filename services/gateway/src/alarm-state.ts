import type { monitoringData, projects } from '@mp/contracts';
import type { CallerContext } from '@mp/grpc';
import type { ServiceClients } from './clients.js';
import { presentProjects } from './presenters-projects.js';

/**
 * The alarm state that project and point lists carry (docs/adr/0088): one batched call to
 * monitoring-data per page, which checks the caller's access itself. Alarms and readings need
 * data:read; a caller without it gets the lists with these fields null, not a refusal, since
 * the projects and points themselves are what it asked for.
 */
const readsData = (caller: CallerContext) => caller.permissions.includes('data:read');

const openAlarms = (s: monitoringData.ProjectAlarmSummary | undefined) =>
  s
    ? {
        count: s.count,
        unacknowledged: s.unacknowledged,
        by_level: Object.fromEntries(s.byLevel.map((l) => [l.level, l.count])),
        highest_level: s.highestLevel ?? null,
      }
    : null;

export async function projectsWithAlarms(clients: ServiceClients, caller: CallerContext, items: projects.Project[]) {
  const summaries =
    readsData(caller) && items.length
      ? new Map((await clients.monitoringData.summarizeProjectAlarms({ projectIds: items.map((p) => p.id) }, caller)).items.map((s) => [s.projectId, s]))
      : new Map<string, monitoringData.ProjectAlarmSummary>();
  return items.map((p) => ({ ...presentProjects.project(p), open_alarms: openAlarms(summaries.get(p.id)) }));
}

export async function pointsWithState(clients: ServiceClients, caller: CallerContext, projectId: string, items: projects.Point[]) {
  const reads = readsData(caller);
  const states =
    reads && items.length
      ? new Map((await clients.monitoringData.getPointStates({ projectId, pointIds: items.map((p) => p.id) }, caller)).items.map((s) => [s.pointId, s]))
      : new Map<string, monitoringData.PointState>();
  return items.map((p) => {
    const s = states.get(p.id);
    return {
      ...presentProjects.point(p),
      status: s?.status ?? null,
      last_measured_at: s?.lastMeasuredAt ?? null,
      stale: reads ? (s?.stale ?? false) : null,
    };
  });
}
