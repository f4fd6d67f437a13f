import { encodeArrayLiteral } from './array-param.js';
import { bufferOf, encodeParams, type ParamEncoders } from './params.js';
import type { Database, Queryable } from './types.js';

export interface PgliteOptions {
  /** Folder that keeps the data; `memory://` keeps it in memory. */
  dataDir: string;
  schema: string;
}

type Row = Record<string, unknown>;

type PGliteInstance = import('@electric-sql/pglite').PGlite;

/**
 * A fresh data folder costs an initdb (seconds of WASM work); the embedded default creates one per
 * service on first start. The first fresh database is dumped right after initdb and the next ones
 * start from that copy instead, which takes a fraction of the time. The copy is dropped soon after.
 */
let template: { blob: Blob; timer: NodeJS.Timeout } | null = null;

async function openPglite(dataDir: string): Promise<PGliteInstance> {
  const { PGlite } = await import('@electric-sql/pglite');
  if (dataDir.includes('://')) return PGlite.create(dataDir);
  const { existsSync, mkdirSync } = await import('node:fs');
  const { join } = await import('node:path');
  const fresh = !existsSync(join(dataDir, 'PG_VERSION'));
  mkdirSync(dataDir, { recursive: true });
  if (fresh && template) return PGlite.create(dataDir, { loadDataDir: template.blob });
  const db = await PGlite.create(dataDir);
  if (fresh) {
    const blob = await db.dumpDataDir('none');
    if (template) clearTimeout(template.timer);
    template = { blob, timer: setTimeout(() => (template = null), 60_000).unref() };
  }
  return db;
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
 * The embedded default: one PGlite database per service, with the service schema first on the
 * search path. PGlite runs one statement at a time, so transactions are serialised here.
 */
export async function createPgliteDatabase(opts: PgliteOptions): Promise<Database> {
  const db = await openPglite(opts.dataDir);
  await db.exec(`CREATE SCHEMA IF NOT EXISTS ${opts.schema}; SET search_path TO ${opts.schema}, public;`);

  const toQueryable = (q: { query: typeof db.query }): Queryable => ({
    query: async <R>(sql: string, params?: unknown[]) => {
      const r = await q.query<Row>(sql, encodeParams(params, PGLITE_ENCODERS) as unknown[]);
      return { rows: normalise(r.rows) as R[], rowCount: r.affectedRows ?? r.rows.length };
    },
  });
  const direct = toQueryable(db);

  const database: Database = {
    kind: 'pglite',
    query: direct.query,
    async exec(sql) {
      await db.exec(sql);
    },
    transaction: (fn) => db.transaction((tx) => fn(toQueryable(tx))),
    reserve: () => database,
    async close() {
      await db.close();
    },
  };
  return database;
}
