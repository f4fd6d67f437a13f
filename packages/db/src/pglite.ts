import { AsyncLocalStorage } from 'node:async_hooks';
import { encodeArrayLiteral } from './array-param.js';
import { bufferOf, encodeParams, type ParamEncoders } from './params.js';
import { withoutValues } from './query-error.js';
import type { Database, Queryable } from './types.js';

export interface PgliteOptions {
  /** Folder that keeps the data; `memory://` keeps it in memory (a database of its own). */
  dataDir: string;
  schema: string;
}

type Row = Record<string, unknown>;

type PGliteInstance = import('@electric-sql/pglite').PGlite;
type PGliteTx = Parameters<Parameters<PGliteInstance['transaction']>[0]>[0];
type Session = Pick<PGliteTx, 'query' | 'exec'>;

/**
 * One PGlite (one WASM PostgreSQL, ~200 MiB) per data folder in this process, shared by every
 * schema opened on it: the embedded default runs all services on one database with a schema each,
 * as production does (ADR 0051). PGlite has a single session, so the databases on it take turns:
 * a statement or a transaction holds the session, with its schema first on the search path.
 */
interface SharedPglite {
  db: PGliteInstance;
  /** Schemas opened and not closed; the instance closes with the last. */
  users: number;
  /** The search path the session has now; null when unknown (after a transaction ended). */
  path: string | null;
  /** The tail of the queue of work that holds the session. */
  turn: Promise<void>;
}

const instances = new Map<string, Promise<SharedPglite>>();

/**
 * The transaction open in the current async context. A statement issued from within a transaction
 * (by its own code, or by code it waits for in this process, such as a call to another service's
 * in-process handler) runs inside that transaction: the single session could not serve it before
 * the transaction ends, and the transaction waits for it.
 */
interface OpenTx {
  shared: SharedPglite;
  tx: PGliteTx;
  open: boolean;
  /** Statements in one transaction run one at a time too (search path, then statement). */
  turn: Promise<void>;
  savepoints: number;
}
const openTx = new AsyncLocalStorage<OpenTx>();

/**
 * PostgreSQL's settings for the embedded database. shared_buffers is allocated and written in
 * full at start inside the WASM memory: PGlite's 128 MB default made up 140 MiB of the process's
 * resident memory, while the data's pages stay in the operating system's file cache anyway.
 */
const POSTGRESQL_CONF = ['shared_buffers=16MB'];

/**
 * Makes a fresh data folder (initdb) in a child process. In this process the WASM memory initdb
 * grows to stays reserved after it is done (~350 MiB more resident for as long as the platform
 * runs); a child gives it all back when it exits. Only the first start on a folder pays for it.
 */
async function initdbInChild(dataDir: string): Promise<void> {
  const { execFile } = await import('node:child_process');
  const script = `const { PGlite } = await import(process.argv[1]); const db = await PGlite.create(process.argv[2]); await db.close();`;
  await new Promise<void>((resolve, reject) => {
    execFile(process.execPath, ['--input-type=module', '-e', script, import.meta.resolve('@electric-sql/pglite'), dataDir], (err, _stdout, stderr) =>
      err ? reject(new Error(`could not create the embedded database in ${dataDir}: ${stderr.trim() || err.message}`)) : resolve(),
    );
  });
}

async function openShared(dataDir: string): Promise<SharedPglite> {
  const { PGlite } = await import('@electric-sql/pglite');
  if (!dataDir.includes('://')) {
    const { existsSync, mkdirSync } = await import('node:fs');
    const { join } = await import('node:path');
    mkdirSync(dataDir, { recursive: true });
    if (!existsSync(join(dataDir, 'PG_VERSION'))) await initdbInChild(dataDir);
  }
  return { db: await PGlite.create(dataDir, { postgresqlconf: POSTGRESQL_CONF }), users: 0, path: null, turn: Promise.resolve() };
}

/** Runs `fn` when the previous holder of `owner.turn` is done; the next waits for this one. */
function inTurn<T>(owner: { turn: Promise<void> }, fn: () => Promise<T>): Promise<T> {
  const result = owner.turn.then(fn);
  owner.turn = result.then(
    () => undefined,
    () => undefined,
  );
  return result;
}

/** Normalises values so PGlite rows look like `pg` rows (ISO timestamps, number counts). */
function normalise(rows: Row[]): Row[] {
  for (const row of rows) {
    for (const [k, v] of Object.entries(row)) {
      if (v instanceof Date) row[k] = v.toISOString();
      else if (typeof v === 'bigint') row[k] = Number(v);
    }
  }
  return rows;
}

/** Arrays as literals, text given as bytes as the string (PGlite takes parameters as text). */
const PGLITE_ENCODERS: ParamEncoders = { array: encodeArrayLiteral, utf8: (p) => bufferOf(p.bytes).toString('utf8') };

/**
 * The embedded default: a schema of the PGlite database in `dataDir` (shared with the other
 * schemas opened on that folder in this process), with the schema first on the search path.
 */
export async function createPgliteDatabase(opts: PgliteOptions): Promise<Database> {
  const { schema } = opts;
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(schema)) throw new Error(`invalid schema name ${JSON.stringify(schema)}`);
  // memory:// is a fresh database each time; a folder is opened once per process
  const key = opts.dataDir.includes('://') ? null : opts.dataDir;
  let opening = key ? instances.get(key) : undefined;
  if (!opening) {
    opening = openShared(opts.dataDir);
    if (key) {
      instances.set(key, opening);
      opening.catch(() => instances.delete(key));
    }
  }
  const shared = await opening;
  shared.users++;
  const searchPath = `${schema}, public`;

  /** Puts this schema first on the session's search path, unless it already is. */
  const onPath = async (session: Session) => {
    if (shared.path === searchPath) return;
    await session.exec(`SET search_path TO ${searchPath}`);
    shared.path = searchPath;
  };
  const run = async <R>(session: Session, sql: string, params?: unknown[]) => {
    await onPath(session);
    const r = await session.query<Row>(sql, encodeParams(params, PGLITE_ENCODERS) as unknown[]).catch((e: unknown) => {
      throw withoutValues(e, sql);
    });
    return { rows: normalise(r.rows) as R[], rowCount: r.affectedRows ?? r.rows.length };
  };
  /** The open transaction of this context, if it is on this database's PGlite. */
  const current = () => {
    const t = openTx.getStore();
    return t && t.open && t.shared === shared ? t : null;
  };
  /** A statement: inside the context's transaction, or in its own turn of the session. */
  const statement = <T>(fn: (session: Session) => Promise<T>): Promise<T> => {
    const t = current();
    return t ? inTurn(t, () => fn(t.tx)) : inTurn(shared, () => fn(shared.db));
  };
  /** Runs `fn` as a transaction on `tx`, in a new context; closes the context when done. */
  const within = async <T>(tx: PGliteTx, fn: (q: Queryable) => Promise<T>): Promise<T> => {
    const t: OpenTx = { shared, tx, open: true, turn: Promise.resolve(), savepoints: 0 };
    try {
      return await openTx.run(t, () => fn(database));
    } finally {
      t.open = false;
    }
  };

  const database: Database = {
    kind: 'pglite',
    query: (sql, params) => statement((session) => run(session, sql, params)),
    exec: (sql) =>
      statement(async (session) => {
        await onPath(session);
        await session.exec(sql);
      }),
    async transaction(fn) {
      const outer = current();
      if (!outer) {
        return inTurn(shared, async () => {
          try {
            return await shared.db.transaction((tx) => within(tx, fn));
          } finally {
            // a rollback undoes a SET made inside the transaction
            shared.path = null;
          }
        });
      }
      // Nested: a savepoint of the open transaction, taken for the whole of `fn`.
      return inTurn(outer, async () => {
        const name = `sp_${++outer.savepoints}`;
        await outer.tx.exec(`SAVEPOINT ${name}`);
        try {
          const result = await within(outer.tx, fn);
          await outer.tx.exec(`RELEASE SAVEPOINT ${name}`);
          return result;
        } catch (err) {
          shared.path = null;
          await outer.tx.exec(`ROLLBACK TO SAVEPOINT ${name}; RELEASE SAVEPOINT ${name}`);
          throw err;
        }
      });
    },
    reserve: () => database,
    async close() {
      if (--shared.users > 0) return;
      if (key) instances.delete(key);
      await inTurn(shared, () => shared.db.close());
    },
  };
  await database.exec(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
  return database;
}

/**
 * A copy of the embedded database in `dataDir` as PGlite's tar of its folder, consistent while the
 * platform runs: taken in one turn of the session, so no statement or transaction of this process
 * runs meanwhile (writes in flight wait for it), after a CHECKPOINT, so the copy's files hold every
 * committed change and a start on it has no log to replay. The database open in this process is
 * used when there is one; otherwise the folder is opened for the copy and closed again, and the
 * caller must hold the data folder (no other process may have it open).
 */
export async function dumpEmbeddedDatabase(dataDir: string): Promise<Uint8Array> {
  const opening = instances.get(dataDir);
  const copy = async (db: PGliteInstance) => {
    await db.exec('CHECKPOINT');
    return new Uint8Array(await (await db.dumpDataDir('none')).arrayBuffer());
  };
  if (opening) {
    const shared = await opening;
    return inTurn(shared, async () => {
      try {
        return await copy(shared.db);
      } finally {
        shared.path = null;
      }
    });
  }
  const { existsSync } = await import('node:fs');
  const { join } = await import('node:path');
  if (!existsSync(join(dataDir, 'PG_VERSION'))) throw new Error(`${dataDir} holds no embedded database`);
  const { PGlite } = await import('@electric-sql/pglite');
  const db = await PGlite.create(dataDir, { postgresqlconf: POSTGRESQL_CONF });
  try {
    return await copy(db);
  } finally {
    await db.close();
  }
}

/**
 * Makes the embedded database in the empty folder `dataDir` from a copy dumpEmbeddedDatabase made,
 * and closes it cleanly (a start on it then opens a shut-down database).
 */
export async function loadEmbeddedDatabase(dataDir: string, tar: Uint8Array): Promise<void> {
  const { mkdirSync } = await import('node:fs');
  mkdirSync(dataDir, { recursive: true });
  const { PGlite } = await import('@electric-sql/pglite');
  const db = await PGlite.create(dataDir, { postgresqlconf: POSTGRESQL_CONF, loadDataDir: new Blob([tar.slice()]) });
  await db.exec('CHECKPOINT');
  await db.close();
}
