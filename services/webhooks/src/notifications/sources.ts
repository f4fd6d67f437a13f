import { monitoringData, projects } from '@mp/contracts';
import { createClient, type ServiceAuth } from '@mp/grpc';
import type { NotificationSources } from './settings.js';

/** Addresses of projects and monitoring-data (MP_PROJECTS_ADDR, MP_MONITORING_DATA_ADDR). */
export interface SourceAddresses {
  projects: string;
  monitoringData: string;
}

/**
 * Clients of projects and monitoring-data, made on first use: in the one-process platform those
 * services start after this one (it must consume events before anyone publishes), so their ports
 * are known only later.
 */
export function lazySources(addresses: () => SourceAddresses, auth: ServiceAuth): { get: () => NotificationSources; close: () => void } {
  let made: NotificationSources | null = null;
  return {
    get: () => {
      if (made) return made;
      const a = addresses();
      const p = createClient<projects.ProjectsServer>(projects.ProjectsClient, projects.ProjectsService, a.projects, { auth, audience: 'projects' });
      const d = createClient<monitoringData.MonitoringDataServer>(monitoringData.MonitoringDataClient, monitoringData.MonitoringDataService, a.monitoringData, {
        auth,
        audience: 'monitoring-data',
      });
      made = {
        projects: p,
        data: d,
        close: () => {
          p.close();
          d.close();
        },
      };
      return made;
    },
    close: () => made?.close(),
  };
}
