export { startPlatform, type PlatformOptions, type RunningPlatform } from './platform.js';
export { backupDataDir, restoreDataDir, BACKUP_FORMAT, MAINTENANCE_FILE, type BackupManifest } from './backup.js';
