import { ArrayParam, Utf8Param, type Database, type Queryable, type QueryOptions } from '@mp/db';

/** One run of a watched prepared statement, and what its plan at that moment reads whole. */
export interface ObservedPlan {
  statement: string;
  /** "Seq Scan on deliveries", "Bitmap Heap Scan on outbox", "Hash Join", "Merge Join": none in a keyed plan. */
  wholeTable: string[];
}

export interface PlanWatch {
  /** Prepared statement names (QueryOptions.prepare) to watch. */
  statements: string[];
  /** Tables a plan must not read whole (scanned or bitmap-scanned). */
  tables: string[];
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  Plans?: PlanNode[];
}

/** Scans and joins of an EXPLAIN (FORMAT JSON) that read a table whole instead of reaching rows by key. */
export function wholeTableReads(explained: unknown, tables: string[]): string[] {
  const found: string[] = [];
  const visit = (n: PlanNode) => {
    const relation = n['Relation Name'];
    if (relation && tables.includes(relation) && /^(Seq Scan|Bitmap Heap Scan)$/.test(n['Node Type'])) found.push(`${n['Node Type']} on ${relation}`);
    if (n['Node Type'] === 'Hash Join' || n['Node Type'] === 'Merge Join') found.push(n['Node Type']);
    n.Plans?.forEach(visit);
  };
  for (const { Plan } of explained as { Plan: PlanNode }[]) visit(Plan);
  return found;
}

/** A parameter as an SQL literal for EXECUTE, which takes no bind parameters (coerced to the statement's types). */
function literal(v: unknown): string {
  const text = (x: unknown) => (x instanceof Uint8Array ? Buffer.from(x).toString('utf8') : x instanceof Date ? x.toISOString() : String(x));
  const quote = (x: string) => `'${x.replace(/'/g, "''")}'`;
  if (v === null || v === undefined) return 'NULL';
  if (v instanceof ArrayParam) return literal([...v.values]);
  if (v instanceof Utf8Param) return literal(v.bytes);
  if (Array.isArray(v)) return quote(`{${v.map((e) => (e === null || e === undefined ? 'NULL' : `"${text(e).replace(/[\\"]/g, '\\$&')}"`)).join(',')}}`);
  return quote(text(v));
}

/**
 * A database (and its reserved connections) that, after each run of a watched prepared statement,
 * asks PostgreSQL for the plan that statement has on the same connection now: EXPLAIN EXECUTE,
 * which shows the cached generic plan once PostgreSQL settled on one (after five runs). A watched
 * statement run outside a transaction gets one of its own here, so that both go to one connection.
 */
export function watchingPlans(db: Database, watch: PlanWatch, observed: ObservedPlan[]): Database {
  const explainAfter = async <R>(tx: Queryable, sql: string, params: unknown[] | undefined, opts: QueryOptions) => {
    const result = await tx.query<R>(sql, params, opts);
    const args = (params ?? []).map(literal).join(', ');
    const { rows } = await tx.query<{ 'QUERY PLAN': unknown }>(`EXPLAIN (FORMAT JSON) EXECUTE ${opts.prepare}${args ? `(${args})` : ''}`);
    observed.push({ statement: opts.prepare!, wholeTable: wholeTableReads(rows[0]!['QUERY PLAN'], watch.tables) });
    return result;
  };
  const watched = (q: Queryable, inTransaction: boolean): Queryable => ({
    query<R>(sql: string, params?: unknown[], opts?: QueryOptions) {
      if (!opts?.prepare || !watch.statements.includes(opts.prepare)) return q.query<R>(sql, params, opts);
      return inTransaction ? explainAfter<R>(q, sql, params, opts) : db.transaction((tx) => explainAfter<R>(tx, sql, params, opts));
    },
  });
  return {
    ...db,
    query: watched(db, false).query,
    transaction: (fn) => db.transaction((tx) => fn(watched(tx, true))),
    reserve: (max, opts) => watchingPlans(db.reserve(max, opts), watch, observed),
  };
}

/** What each watched statement's plans read whole, by statement (each finding once). */
export function wholeTableReadsByStatement(observed: ObservedPlan[], statements: string[]): Record<string, string[]> {
  return Object.fromEntries(statements.map((s) => [s, [...new Set(observed.filter((o) => o.statement === s).flatMap((o) => o.wholeTable))]]));
}
