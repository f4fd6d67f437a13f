import { reports } from '@mp/contracts';
import { bindService, type CallerPolicy } from '@mp/grpc';
import type { ReportsDeps } from './deps.js';
import { readReportFile } from './file-store.js';
import { generateReport } from './use-cases/generate-report.js';
import { getReport, listReports, reviewReport } from './use-cases/reports.js';
import { createSchedule, deleteSchedule, getSchedule, listSchedules } from './use-cases/schedules.js';
import { deleteTenantLogo, getTenantLogo, putTenantLogo } from './use-cases/tenant-logo.js';
import { createTemplate, deleteTemplate, getTemplate, listTemplates, updateTemplate } from './use-cases/templates.js';

/** Only the gateway calls reports. */
const CALLERS: CallerPolicy = { gateway: '*' };

export function reportsBinding(deps: ReportsDeps) {
  return bindService<reports.ReportsServer>(
    'mp.reports.Reports',
    reports.ReportsService,
    {
      createTemplate: (req, ctx) => createTemplate(deps, req, ctx),
      getTemplate: (req, ctx) => getTemplate(deps, req, ctx),
      listTemplates: (req, ctx) => listTemplates(deps, req, ctx),
      updateTemplate: (req, ctx) => updateTemplate(deps, req, ctx),
      deleteTemplate: (req, ctx) => deleteTemplate(deps, req, ctx),
      generateReport: (req, ctx) => generateReport(deps, req, ctx),
      getReport: (req, ctx) => getReport(deps, req, ctx),
      listReports: (req, ctx) => listReports(deps, req, ctx),
      readReportFile: (req, ctx) => readReportFile(deps, req, ctx),
      approveReport: (req, ctx) => reviewReport(deps, 'approved', req, ctx),
      rejectReport: (req, ctx) => reviewReport(deps, 'rejected', req, ctx),
      putTenantLogo: (req, ctx) => putTenantLogo(deps, req, ctx),
      getTenantLogo: (req, ctx) => getTenantLogo(deps, req, ctx),
      deleteTenantLogo: (req, ctx) => deleteTenantLogo(deps, req, ctx),
      createReportSchedule: (req, ctx) => createSchedule(deps, req, ctx),
      getReportSchedule: (req, ctx) => getSchedule(deps, req, ctx),
      listReportSchedules: (req, ctx) => listSchedules(deps, req, ctx),
      deleteReportSchedule: (req, ctx) => deleteSchedule(deps, req, ctx),
    },
    CALLERS,
  );
}
