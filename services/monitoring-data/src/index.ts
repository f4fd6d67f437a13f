export { startMonitoringDataService, type MonitoringDataServiceOptions, type RunningService } from './service.js';
export { migrations as monitoringDataMigrations, SCHEMA as MONITORING_DATA_SCHEMA } from './migrations.js';
export { archiveOptionsOf, parseMonitoringDataConfig, type MonitoringDataConfig } from './config.js';
export { archiveOnce, type ArchiveResult } from './archive.js';
export { MAX_RECORDS_PER_WRITE } from './use-cases/write-records.js';
export { alarmSettingsOf } from './alarms/config.js';
export { rebuildRollups } from './rollups.js';
export { monitoringDataOptionsFrom, openMonitoringDataDatabase, type MonitoringDataInfra } from './compose.js';
