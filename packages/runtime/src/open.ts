import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createPgDatabase, createPgliteDatabase, migrate, type Database, type Migration } from '@mp/db';
import { MemoryTransport, NatsTransport, type EventTransport } from '@mp/events';
import { newMasterKey, SecretBox, SettingError, type Logger } from '@mp/kit';
import { streamRetention, type InfraConfig } from './infra-config.js';

/**
 * Where the embedded default keeps a service's schema: one PGlite database for the whole platform
 * in MP_DATA_DIR/postgres, a schema per service (ADR 0051). A data folder made by an earlier
 * version holds one PGlite database per service in MP_DATA_DIR/db/<schema>: a service whose
 * database is there keeps using it, so no data is left behind (see legacyEmbeddedSchemas).
 */
export function embeddedDatabaseDir(dataDir: string, schema: string): string {
  const legacy = join(resolve(dataDir), 'db', schema);
  return existsSync(join(legacy, 'PG_VERSION')) ? legacy : join(resolve(dataDir), 'postgres');
}

/** The services whose embedded database is still in a folder of its own (the earlier layout). */
export function legacyEmbeddedSchemas(dataDir: string, schemas: readonly string[]): string[] {
  return schemas.filter((schema) => embeddedDatabaseDir(dataDir, schema) !== join(resolve(dataDir), 'postgres'));
}

/** Opens the service's database (its own schema) and applies its migrations. */
export async function openServiceDatabase(config: InfraConfig, schema: string, migrations: Migration[], opts: { poolSize?: number } = {}): Promise<Database> {
  const db = config.MP_DATABASE_URL
    ? createPgDatabase({ url: config.MP_DATABASE_URL, schema, max: opts.poolSize ?? 10, applicationName: `mp-${schema}` })
    : await createPgliteDatabase({ dataDir: embeddedDatabaseDir(config.MP_DATA_DIR, schema), schema });
  try {
    await migrate(db, schema, migrations);
  } catch (err) {
    await db.close().catch(() => undefined);
    throw unreachable(err, config.MP_DATABASE_URL ? 'MP_DATABASE_URL' : 'MP_DATA_DIR', config.MP_DATABASE_URL ? 'the database' : 'the embedded database');
  }
  return db;
}

let sharedMemoryTransport: MemoryTransport | null = null;

/** NATS JetStream when MP_NATS_URL is set; otherwise the one in-process transport of this process. */
export async function openTransport(config: InfraConfig, logger: Logger): Promise<EventTransport> {
  if (config.MP_NATS_URL) {
    return NatsTransport.connect({
      url: config.MP_NATS_URL,
      stream: config.MP_NATS_STREAM,
      subjectPrefix: config.MP_NATS_SUBJECT_PREFIX,
      logger,
      retention: streamRetention(config),
    }).catch((err: unknown) => {
      throw unreachable(err, 'MP_NATS_URL', 'NATS JetStream');
    });
  }
  sharedMemoryTransport ??= new MemoryTransport();
  return sharedMemoryTransport;
}

/**
 * The master key that encrypts stored secrets (webhook signing secrets, signing keys). Taken from
 * MP_SECRETS_KEY; when unset, kept in MP_DATA_DIR/secrets.key, created on first use.
 */
export function loadSecretsKey(config: InfraConfig): string {
  if (config.MP_SECRETS_KEY) {
    new SecretBox(config.MP_SECRETS_KEY); // refuses a malformed key naming MP_SECRETS_KEY
    return config.MP_SECRETS_KEY;
  }
  const dir = resolve(config.MP_DATA_DIR);
  const file = join(dir, 'secrets.key');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dir, { recursive: true });
  const key = newMasterKey();
  writeFileSync(file, key + '\n', { mode: 0o600 });
  return key;
}

/**
 * A connection failure at start-up, naming the setting to check. Errors that are not about
 * reaching the server (a failed migration) pass unchanged.
 */
function unreachable(err: unknown, setting: string, what: string): Error {
  const e = err as NodeJS.ErrnoException & { code?: string };
  const reach = [
    'ECONNREFUSED',
    'ENOTFOUND',
    'EAI_AGAIN',
    'ETIMEDOUT',
    'EHOSTUNREACH',
    'ECONNRESET',
    'CONNECTION_REFUSED',
    '28P01',
    '28000',
    '3D000',
    'EACCES',
    'ENOENT',
  ];
  if (!e || !reach.includes(String(e.code))) return err instanceof Error ? err : new Error(String(err));
  return new SettingError(setting, `cannot reach ${what} (${e.code}: ${e.message}); check ${setting}.`);
}
