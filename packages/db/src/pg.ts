import pg from 'pg';
import { encodeBinaryArray } from './array-param.js';
import { bufferOf, encodeParams, type ParamEncoders } from './params.js';
import { withoutValues } from './query-error.js';
import type { Database, Queryable, QueryOptions } from './types.js';
import { KEYED_PLAN_SETTINGS } from './keyed-plans.js';

// Return timestamps as ISO strings and bigint counts as numbers, the same as PGlite's adapter.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => Number(v));
pg.types.setTypeParser(pg.types.builtins.TIMESTAMPTZ, (v) => new Date(v).toISOString());
pg.types.setTypeParser(pg.types.builtins.DATE, (v) => v);

export interface PgOptions {
  url: string;
  /** The service's own schema; set as search_path on every connection. */
  schema: string;
  max?: number;
  applicationName?: string;
  /** Settings of every connection (startup options), besides search_path. */
  settings?: Readonly<Record<string, string>>;
}

/** Arrays and text given as bytes go in binary format (pg sends a Buffer parameter so). */
const PG_ENCODERS: ParamEncoders = { array: encodeBinaryArray, utf8: (p) => bufferOf(p.bytes) };

export function createPgDatabase(opts: PgOptions): Database {
  const reserved: Database[] = [];
  const db = openPool(opts, (max, reserveOpts) => {
    const child = createPgDatabase({
      ...opts,
      max,
      applicationName: `${opts.applicationName ?? opts.schema}-reserved`,
      ...(reserveOpts?.keyedPlans ? { settings: { ...opts.settings, ...KEYED_PLAN_SETTINGS } } : {}),
    });
    reserved.push(child);
    return child;
  });
  return {
    ...db,
    async close() {
      await Promise.all(reserved.splice(0).map((r) => r.close()));
      await db.close();
    },
  };
}

const ignoreConnectionError = () => undefined;

/** `-c name=value` startup options; names and values are checked, so none can smuggle in another. */
function startupOptions(opts: PgOptions): string {
  const settings = { search_path: `${opts.schema},public`, ...opts.settings };
  return Object.entries(settings)
    .map(([name, value]) => {
      if (!/^[a-z_][a-z0-9_.]*$/.test(name) || !/^[A-Za-z0-9_.,-]+$/.test(value)) throw new Error(`invalid connection setting ${name}=${value}`);
      return `-c ${name}=${value}`;
    })
    .join(' ');
}

function openPool(opts: PgOptions, reserve: Database['reserve']): Database {
  if (!/^[a-z_][a-z0-9_]*$/.test(opts.schema)) throw new Error(`invalid schema name ${opts.schema}`);
  const pool = new pg.Pool({
    connectionString: opts.url,
    max: opts.max ?? 10,
    application_name: opts.applicationName ?? opts.schema,
    options: startupOptions(opts),
    idleTimeoutMillis: 30_000,
  });
  // An idle client losing its connection (database restart) must not crash the process;
  // the pool drops it and the next query reconnects.
  pool.on('error', () => undefined);

  const config = (sql: string, params: unknown[] | undefined, qo: QueryOptions | undefined) => {
    const values = encodeParams(params, PG_ENCODERS) as unknown[];
    return qo?.prepare ? { name: qo.prepare, text: sql, values } : { text: sql, values };
  };
  const run: Queryable['query'] = async (sql, params, qo) => {
    const r = await pool.query(config(sql, params, qo)).catch((e: unknown) => {
      throw withoutValues(e, sql, qo?.prepare);
    });
    return { rows: r.rows, rowCount: r.rowCount ?? 0 };
  };

  return {
    kind: 'pg',
    reserve,
    query: run,
    async exec(sql) {
      await pool.query(sql).catch((e: unknown) => {
        throw withoutValues(e, sql);
      });
    },
    async transaction(fn) {
      const client = await pool.connect();
      // A checked-out client whose connection is lost between two statements (database crash)
      // emits 'error' with nobody listening, which would end the process: its next statement
      // fails instead, the transaction is abandoned below and the client destroyed.
      client.on('error', ignoreConnectionError);
      try {
        await client.query('BEGIN');
        const tx: Queryable = {
          query: async (sql, params, qo) => {
            const r = await client.query(config(sql, params, qo)).catch((e: unknown) => {
              throw withoutValues(e, sql, qo?.prepare);
            });
            return { rows: r.rows, rowCount: r.rowCount ?? 0 };
          },
        };
        const result = await fn(tx);
        await client.query('COMMIT');
        client.off('error', ignoreConnectionError);
        client.release();
        return result;
      } catch (e) {
        // A connection lost mid-transaction (database restart) cannot roll back; such a client must
        // be destroyed, not returned to the pool, or later checkouts would get the dead connection.
        const rolledBack = await client.query('ROLLBACK').then(
          () => true,
          () => false,
        );
        client.off('error', ignoreConnectionError);
        client.release(rolledBack ? undefined : (e as Error));
        throw e;
      }
    },
    async close() {
      await pool.end();
    },
  };
}
