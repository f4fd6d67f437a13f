import { monitoringData } from '@mp/contracts';
import { bindService, type CallerPolicy } from '@mp/grpc';
import type { DataDeps } from './deps.js';
import { createBatch } from './use-cases/create-batch.js';
import { deleteRecord } from './use-cases/delete-record.js';
import { getBatch } from './use-cases/get-batch.js';
import { getLatest } from './use-cases/get-latest.js';
import { getRecord } from './use-cases/get-record.js';
import { getSeries } from './use-cases/get-series.js';
import { listRecords } from './use-cases/list-records.js';
import { updateRecord } from './use-cases/update-record.js';
import { writeRecords } from './use-cases/write-records.js';
import { changeAlarm } from './use-cases/change-alarm.js';
import { getAlarm } from './use-cases/get-alarm.js';
import { listAlarms } from './use-cases/list-alarms.js';
import { listTenantAlarms } from './use-cases/list-tenant-alarms.js';
import { summarizeProjectAlarms } from './use-cases/summarize-project-alarms.js';
import { getPointStates } from './use-cases/get-point-states.js';
import { acknowledgeAsRecipient } from './use-cases/acknowledge-as-recipient.js';
import { getRecomputeStates, listRecomputations } from './recompute-states.js';
import { createImportProfile, deleteImportProfile, getImportProfile, listImportProfiles, updateImportProfile } from './imports/profiles.js';
import { appendImportChunk, createImport, finishImport, getImport, type ImportSettings } from './imports/imports.js';

/**
 * The gateway calls every method; reports reads a report's period (records, series, alarms) as the
 * person who asked for the report, whose access is checked here as for the gateway; webhooks
 * redeems the acknowledge links of notification mails.
 */
const CALLERS: CallerPolicy = {
  gateway: '*',
  reports: ['listRecords', 'getSeries', 'listAlarms'],
  // the acknowledge links of notification mails (ADR 0090), and nothing else
  webhooks: ['acknowledgeAlarmAsRecipient'],
};

export function monitoringDataBinding(deps: DataDeps, imports: ImportSettings) {
  return bindService<monitoringData.MonitoringDataServer>(
    'mp.monitoring_data.MonitoringData',
    monitoringData.MonitoringDataService,
    {
      writeRecords: (req, ctx) => writeRecords(deps, req, ctx),
      createBatch: (req, ctx) => createBatch(deps, req, ctx),
      getBatch: (req, ctx) => getBatch(deps, req, ctx),
      getRecord: (req, ctx) => getRecord(deps, req, ctx),
      updateRecord: (req, ctx) => updateRecord(deps, req, ctx),
      deleteRecord: (req, ctx) => deleteRecord(deps, req, ctx),
      listRecords: (req, ctx) => listRecords(deps, req, ctx),
      getSeries: (req, ctx) => getSeries(deps, req, ctx),
      getLatest: (req, ctx) => getLatest(deps, req, ctx),
      listAlarms: (req, ctx) => listAlarms(deps, req, ctx),
      getAlarm: (req, ctx) => getAlarm(deps, req, ctx),
      acknowledgeAlarm: (req, ctx) => changeAlarm(deps, 'acknowledge', req, ctx),
      clearAlarm: (req, ctx) => changeAlarm(deps, 'clear', req, ctx),
      listTenantAlarms: (req, ctx) => listTenantAlarms(deps, req, ctx),
      summarizeProjectAlarms: (req, ctx) => summarizeProjectAlarms(deps, req, ctx),
      getPointStates: (req, ctx) => getPointStates(deps, req, ctx),
      acknowledgeAlarmAsRecipient: (req, ctx) => acknowledgeAsRecipient(deps, req, ctx),
      getRecomputeStates: (req, ctx) => getRecomputeStates(deps, req, ctx),
      listRecomputations: (req, ctx) => listRecomputations(deps, req, ctx),
      createImportProfile: (req, ctx) => createImportProfile(deps, req, ctx),
      listImportProfiles: (req, ctx) => listImportProfiles(deps, req, ctx),
      getImportProfile: (req, ctx) => getImportProfile(deps, req, ctx),
      updateImportProfile: (req, ctx) => updateImportProfile(deps, req, ctx),
      deleteImportProfile: (req, ctx) => deleteImportProfile(deps, req, ctx),
      createImport: (req, ctx) => createImport(deps, imports, req, ctx),
      appendImportChunk: (req, ctx) => appendImportChunk(deps, imports, req, ctx),
      finishImport: (req, ctx) => finishImport(deps, imports, req, ctx),
      getImport: (req, ctx) => getImport(deps, imports, req, ctx),
    },
    CALLERS,
  );
}
