import { createLogger, startOrExit } from '@mp/kit';
import { openServiceDatabase } from '@mp/runtime';
import { parseMonitoringDataConfig } from './config.js';
import { migrations, SCHEMA } from './migrations.js';
import { rebuildRollups } from './rollups.js';

// `npm run rollups:rebuild`: recomputes every rollup row from the stored records, on the database
// the service's settings name (MP_DATABASE_URL, or the embedded one in MP_DATA_DIR). For use after
// a change of what rollups hold; writes wait while it runs (ADR 0023). The embedded database is
// opened under the data folder's lock: while `npm start` runs on the folder, this refuses in one
// line instead of writing the database beside it.
const config = parseMonitoringDataConfig();
const logger = createLogger('rollups-rebuild');
const db = await startOrExit('rollups-rebuild', () => openServiceDatabase(config, SCHEMA, migrations, { poolSize: 2 }));
try {
  // Rollups are all that is left of archived months: recounting them from the raw rows would empty them.
  const { rows: archived } = await db.query<{ month: string }>(`SELECT to_char(min(month), 'YYYY-MM') AS month FROM raw_archives HAVING count(*) > 0`);
  if (archived[0]) {
    logger.error(
      { since: archived[0].month },
      'refused: raw readings of earlier months were archived (npm run data:archive), and rebuilding would empty their rollups; restore those months first (docs/operations.md)',
    );
    process.exitCode = 1;
  } else {
    const started = Date.now();
    const { rows } = await rebuildRollups(db);
    logger.info({ rows, ms: Date.now() - started }, 'rollups rebuilt');
  }
} finally {
  await db.close();
}
