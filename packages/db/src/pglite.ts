import type { Database, Queryable } from './types.js';

export interface PgliteOptions {
  /** Folder that keeps the data; `memory://` keeps it in memory. */
  dataDir: string;
  schema: string;
}

type Row = Record<string, unknown>;

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

/**
 * The embedded default: one PGlite database per service, with the service schema first on the
 * search path. PGlite runs one statement at a time, so transactions are serialised here.
 */
export async function createPgliteDatabase(opts: PgliteOptions): Promise<Database> {
  const { PGlite } = await import('@electric-sql/pglite');
  if (!opts.dataDir.includes('://')) (await import('node:fs')).mkdirSync(opts.dataDir, { recursive: true });
  const db = await PGlite.create(opts.dataDir);
  await db.exec(`CREATE SCHEMA IF NOT EXISTS ${opts.schema}; SET search_path TO ${opts.schema}, public;`);

  const toQueryable = (q: { query: typeof db.query }): Queryable => ({
    query: async <R>(sql: string, params?: unknown[]) => {
      const r = await q.query<Row>(sql, params as unknown[]);
      return { rows: normalise(r.rows) as R[], rowCount: r.affectedRows ?? r.rows.length };
    },
  });
  const direct = toQueryable(db);

  return {
    kind: 'pglite',
    query: direct.query,
    async exec(sql) {
      await db.exec(sql);
    },
    transaction: (fn) => db.transaction((tx) => fn(toQueryable(tx))),
    async close() {
      await db.close();
    },
  };
}
