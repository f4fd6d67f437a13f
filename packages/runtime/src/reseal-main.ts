import type { Migration } from '@mp/db';
import { createLogger, requireSettings, SecretBox, startOrExit } from '@mp/kit';
import type { InfraConfig } from './infra-config.js';
import { openServiceDatabase } from './open.js';
import { resealColumns, type SealedColumn } from './reseal.js';

/**
 * The `secrets:reseal` script of one service (ADR 0047): its sealed columns rewritten under the
 * newest key of MP_SECRETS_KEY, on the database its settings name. Prints one JSON line per
 * column and exits 0, or 1 when a value opens with no key of the ring.
 */
export async function runReseal(service: string, config: InfraConfig, schema: string, migrations: Migration[], columns: SealedColumn[]): Promise<void> {
  const { box, db } = await startOrExit(`${service}-reseal`, async () => {
    requireSettings(`${service} reseal`, config, ['MP_DATABASE_URL', 'MP_SECRETS_KEY']);
    const box = new SecretBox(config.MP_SECRETS_KEY!);
    return { box, db: await openServiceDatabase(config, schema, migrations, { poolSize: 2 }) };
  });
  const logger = createLogger(`${service}-reseal`);
  try {
    for (const count of await resealColumns(db, box, columns)) logger.info({ ...count, key_id: box.currentKeyId }, 'secrets resealed');
  } catch (err) {
    logger.error({ err }, 're-seal stopped; values already rewritten stay rewritten, run it again once every key is in MP_SECRETS_KEY');
    process.exitCode = 1;
  } finally {
    await db.close();
  }
}
