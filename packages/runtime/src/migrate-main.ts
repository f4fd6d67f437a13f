import { createPgDatabase, migrate, type Migration } from '@mp/db';
import { createLogger, requireSettings, startOrExit } from '@mp/kit';
import type { InfraConfig } from './infra-config.js';

/**
 * The migration step of one service (`services/<name>/dist/migrate.js`, the chart's migration Job
 * before an install or upgrade): its schema brought to this version on MP_DATABASE_URL, then
 * exit. Logs which migrations it applied (none when the schema is current); a failure exits 1
 * with the cause, and the migration that failed is rolled back whole.
 */
export async function runMigrations(service: string, config: InfraConfig, schema: string, migrations: Migration[]): Promise<void> {
  const logger = createLogger(`${service}-migrate`);
  const db = await startOrExit(`${service}-migrate`, async () => {
    requireSettings(`${service} migrate`, config, ['MP_DATABASE_URL']);
    return createPgDatabase({ url: config.MP_DATABASE_URL!, schema, max: 1, applicationName: `mp-${schema}-migrate` });
  });
  try {
    const applied = await migrate(db, schema, migrations);
    logger.info({ schema, applied, known: migrations.length }, applied.length ? 'migrations applied' : 'schema is current');
  } catch (err) {
    logger.error({ err, schema }, 'migration failed; nothing of it was applied');
    process.exitCode = 1;
  } finally {
    await db.close();
  }
}
