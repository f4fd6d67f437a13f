import { monitoringData, projects } from '@mp/contracts';
import { createClient, type CallerContext, type PromiseClient, type ServiceAuth } from '@mp/grpc';

/**
 * The services a report is made from, each called with the reports service's own key on behalf of
 * the report's requester: projects and monitoring-data check that person's access as they do for
 * the gateway (their caller policies let `reports` use only the reads named there).
 */
export interface ReportSources {
  projects: Pick<PromiseClient<projects.ProjectsServer>, 'getProject' | 'listPoints' | 'getProjectAccess'>;
  data: Pick<PromiseClient<monitoringData.MonitoringDataServer>, 'listRecords' | 'getSeries' | 'listAlarms'>;
  close(): void;
}

export function connectSources(addr: { projects: string; monitoringData: string }, auth: ServiceAuth): ReportSources {
  const p = createClient<projects.ProjectsServer>(projects.ProjectsClient, projects.ProjectsService, addr.projects, { auth, audience: 'projects' });
  const d = createClient<monitoringData.MonitoringDataServer>(monitoringData.MonitoringDataClient, monitoringData.MonitoringDataService, addr.monitoringData, {
    auth,
    audience: 'monitoring-data',
  });
  return {
    projects: p,
    data: d,
    close: () => {
      p.close();
      d.close();
    },
  };
}

/** The requester as stored with a report: the caller context of the request, without its request id. */
export type Requester = Pick<CallerContext, 'tenantId' | 'environment' | 'principalId' | 'principalType' | 'permissions'>;

export const requesterOf = (ctx: CallerContext): Requester => ({
  tenantId: ctx.tenantId,
  environment: ctx.environment,
  principalId: ctx.principalId,
  principalType: ctx.principalType,
  permissions: ctx.permissions,
});

/** A caller context for one background call made for `r` (the report id names the request in logs). */
export const contextFor = (r: Requester, reportId: string): CallerContext => ({ ...r, requestId: `req_${reportId.slice(4)}` });
