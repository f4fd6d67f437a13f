import { identity } from '@mp/contracts';
import { createClient, loadServiceAuth } from '@mp/grpc';
import { createLogger, SettingError, startOrExit, systemClock } from '@mp/kit';
import { openServiceDatabase } from '@mp/runtime';
import { archiveOnce, retentionFromIdentity, type RawRetention } from './archive.js';
import { archiveDirOf, parseMonitoringDataConfig } from './config.js';
import { migrations, SCHEMA } from './migrations.js';

// `npm run data:archive`: one archive run now (what the service's scheduled job does), on the
// database the service's settings name. The embedded database is opened under the data folder's
// lock, so this refuses in one line while `npm start` runs on the folder (the running platform
// archives on its own schedule). Retention comes from the plans: in the embedded default from the
// identity schema of the same database, otherwise from the identity service (MP_IDENTITY_ADDR,
// with the monitoring-data service key, as the service asks).
const config = parseMonitoringDataConfig();
const logger = createLogger('data-archive');
const dir = archiveDirOf(config);
const db = await startOrExit('data-archive', async () => {
  if (dir === null) throw new SettingError('MP_ARCHIVE_DIR', 'MP_ARCHIVE_DIR must be set to archive raw readings of a PostgreSQL deployment.');
  return openServiceDatabase(config, SCHEMA, migrations, { poolSize: 3 });
});
let close = () => {};
let retention: RawRetention;
if (config.MP_DATABASE_URL) {
  const client = createClient<identity.IdentityServer>(identity.IdentityClient, identity.IdentityService, config.MP_IDENTITY_ADDR, {
    auth: loadServiceAuth('monitoring-data', config),
    audience: 'identity',
    deadlineMs: 30_000,
  });
  close = () => (client as unknown as { close(): void }).close();
  retention = retentionFromIdentity(client);
} else {
  retention = async () => {
    const { rows } = await db.query<{ tenant_id: string; months: number }>(
      `SELECT t.id AS tenant_id, p.raw_retention_months AS months
         FROM identity.tenants t JOIN identity.plans p ON p.name = t.plan WHERE p.raw_retention_months IS NOT NULL`,
    );
    return new Map(rows.map((r) => [r.tenant_id, r.months]));
  };
}
try {
  const result = await archiveOnce({ db, logger, clock: systemClock, dir: dir!, retention });
  if (!result.ran) logger.warn('another replica is archiving now; nothing done');
} catch {
  process.exitCode = 1; // logged by archiveOnce
} finally {
  close();
  await db.close();
}
