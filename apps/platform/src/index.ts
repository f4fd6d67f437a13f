export { startPlatform, type PlatformOptions, type RunningPlatform } from './platform.js';
// The start banner's administrator lines (scripts/start.mjs), from where the administrator is made.
export { describeFirstAdmin } from '@mp/identity';
export { backupDataDir, restoreDataDir, BACKUP_FORMAT, MAINTENANCE_FILE, type BackupManifest } from './backup.js';
