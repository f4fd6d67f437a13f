import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createPgDatabase, createPgliteDatabase, migrate, type Database, type Migration } from '@mp/db';
import { MemoryTransport, NatsTransport, type EventTransport } from '@mp/events';
import { newMasterKey, SecretBox, SettingError, type Logger } from '@mp/kit';
import { lockDataDir, secureDataDir } from './data-dir.js';
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

/**
 * Opens the service's database (its own schema) and applies its migrations. The embedded one is
 * opened only under the data folder's lock (see lockDataDir), held until the database is closed:
 * a maintenance command refuses while the platform runs on the same folder, instead of writing the
 * database beside it.
 */
export async function openServiceDatabase(config: InfraConfig, schema: string, migrations: Migration[], opts: { poolSize?: number } = {}): Promise<Database> {
  if (config.MP_DATABASE_URL) {
    const db = createPgDatabase({ url: config.MP_DATABASE_URL, schema, max: opts.poolSize ?? 10, applicationName: `mp-${schema}` });
    try {
      await migrate(db, schema, migrations);
    } catch (err) {
      await db.close().catch(() => undefined);
      throw unreachable(err, 'MP_DATABASE_URL', 'the database');
    }
    return db;
  }
  const lock = lockDataDir(config.MP_DATA_DIR);
  const dir = embeddedDatabaseDir(config.MP_DATA_DIR, schema);
  let db: Database | null = null;
  try {
    db = await createPgliteDatabase({ dataDir: dir, schema });
    // A new database's files come from PGlite's template with the template's modes (0666), not
    // the umask's: made the owner's like the rest of the folder.
    secureDataDir(dir);
    await migrate(db, schema, migrations);
  } catch (err) {
    await db?.close().catch(() => undefined);
    lock.release();
    throw damaged(err, dir) ?? unreachable(err, 'MP_DATA_DIR', 'the embedded database');
  }
  const close = db.close.bind(db);
  db.close = async () => {
    try {
      await close();
    } finally {
      lock.release();
    }
  };
  return db;
}

/**
 * PGlite's answer to pages it cannot make sense of is a WASM abort (`Aborted()`) or a failed
 * start, which tell an operator nothing; said instead as what happened and what to do.
 */
function damaged(err: unknown, dir: string): SettingError | null {
  const message = err instanceof Error ? err.message : String(err);
  // WebAssembly.RuntimeError: the WASM PostgreSQL stopped itself
  const wasmAbort = err instanceof Error && err.name === 'RuntimeError';
  if (!wasmAbort && !/Aborted\(\)|PGlite failed to initialize/.test(message)) return null;
  return new SettingError(
    'MP_DATA_DIR',
    `the embedded database in ${dir} is damaged and cannot be opened (${message.split('\n')[0]}); ` +
      'this happens when two processes wrote it at once or the disk lost writes. ' +
      `Restore the data folder from a backup, or move ${dir} aside to start with an empty database.`,
  );
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
