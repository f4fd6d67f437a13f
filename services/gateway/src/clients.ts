import { identity, monitoringData, projects, reports, webhooks } from '@mp/contracts';
import { createClient, type PromiseClient, type ServiceAuth } from '@mp/grpc';

export type Environment = 'live' | 'sandbox';

export interface ServiceClients {
  identity: PromiseClient<identity.IdentityServer>;
  projects: PromiseClient<projects.ProjectsServer>;
  webhooks: PromiseClient<webhooks.WebhooksServer>;
  monitoringData: PromiseClient<monitoringData.MonitoringDataServer>;
  reports: PromiseClient<reports.ReportsServer>;
  close(): void;
}

/**
 * The gateway's clients of every service, each call carrying a context made with the gateway's key;
 * `inProcess`: calls to a service of this same process skip the network (ADR 0125).
 */
export function createServiceClients(
  addr: { identity: string; projects: string; webhooks: string; monitoringData: string; reports: string },
  auth: ServiceAuth,
  inProcess = true,
): ServiceClients {
  const c = {
    identity: createClient<identity.IdentityServer>(identity.IdentityClient, identity.IdentityService, addr.identity, {
      auth,
      audience: 'identity',
      inProcess,
    }),
    projects: createClient<projects.ProjectsServer>(projects.ProjectsClient, projects.ProjectsService, addr.projects, {
      auth,
      audience: 'projects',
      inProcess,
    }),
    // Test deliveries may wait the full 30 s attempt timeout.
    webhooks: createClient<webhooks.WebhooksServer>(webhooks.WebhooksClient, webhooks.WebhooksService, addr.webhooks, {
      auth,
      audience: 'webhooks',
      deadlineMs: 45_000,
      inProcess,
    }),
    monitoringData: createClient<monitoringData.MonitoringDataServer>(
      monitoringData.MonitoringDataClient,
      monitoringData.MonitoringDataService,
      addr.monitoringData,
      {
        auth,
        audience: 'monitoring-data',
        inProcess,
      },
    ),
    reports: createClient<reports.ReportsServer>(reports.ReportsClient, reports.ReportsService, addr.reports, { auth, audience: 'reports', inProcess }),
  };
  return { ...c, close: () => Object.values(c).forEach((x) => x.close()) };
}
