export { startReportsService, type ReportsServiceOptions, type RunningReportsService } from './service.js';
export { migrations as reportsMigrations, SCHEMA as REPORTS_SCHEMA } from './migrations.js';
export { parseReportsConfig, type ReportsConfig } from './config.js';
export { renderPdf } from './render/pdf.js';
export { renderPdfOffThread } from './render/pdf-thread.js';
export type { ReportData, PointData } from './gather.js';
export { ReportScheduler } from './scheduler.js';
export type { ReportMailer, ScheduledReportMail } from './mailer.js';
export { TableRenderer, TABLE_THREAD_LIMITS } from './render/table-thread.js';
