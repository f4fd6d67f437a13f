import type { Database } from '@mp/db';
import { openServiceDatabase, outboxRetentionMs } from '@mp/runtime';
import type { IdentityConfig } from './config.js';
import { migrations, SCHEMA } from './migrations.js';
import type { IdentityServiceOptions } from './service.js';

// The one place the identity service's settings become its start options. Both composition roots
// call these: the standalone process (process.ts) and the one-process platform (apps/platform),
// so a setting cannot be wired one way in a pod and another way under `npm start`.

/** What the composition root opened or made: the keyring, the database, the transport, the logger, the master key. */
export type IdentityInfra = Pick<IdentityServiceOptions, 'auth' | 'db' | 'transport' | 'logger' | 'secretsKey'>;

/** The service's database (its schema, migrated) with the default pool. */
export function openIdentityDatabase(config: IdentityConfig): Promise<Database> {
  return openServiceDatabase(config, SCHEMA, migrations);
}

export function identityOptionsFrom(config: IdentityConfig, infra: IdentityInfra): IdentityServiceOptions {
  return { ...infra, config, outboxRetentionMs: outboxRetentionMs(config) };
}
