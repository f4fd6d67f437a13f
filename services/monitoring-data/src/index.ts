export { startMonitoringDataService, type MonitoringDataServiceOptions, type RunningService } from './service.js';
export { migrations as monitoringDataMigrations, SCHEMA as MONITORING_DATA_SCHEMA } from './migrations.js';
export { parseMonitoringDataConfig, type MonitoringDataConfig } from './config.js';
export { MAX_RECORDS_PER_WRITE } from './use-cases/write-records.js';
export { alarmSettingsOf } from './alarms/config.js';
export { rebuildRollups } from './rollups.js';
