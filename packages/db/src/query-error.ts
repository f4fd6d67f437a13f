/**
 * A failed statement as the services see (and log) it: its name and PostgreSQL's error, never the
 * values it was run with. The drivers put tenant values in several places of their errors: PGlite
 * attaches the parameters and the statement; PostgreSQL's `detail` quotes the row or key
 * ("Key (name)=(…) already exists"), `where` quotes COPY lines and function arguments, and the
 * message of a data exception (class 22) quotes the value it could not take. Loggers serialise
 * every field of an error, so the error itself must not carry them (docs/security.md).
 */
export class QueryError extends Error {
  override readonly name = 'QueryError';
  /** SQLSTATE, as the driver's error had it (isUniqueViolation and retries read it). */
  readonly code: string;
  /** The prepared statement's name, or the start of its SQL text (which has no values: they are parameters). */
  readonly statement: string;
  readonly severity?: string;
  readonly constraint?: string;
  readonly table?: string;
  readonly column?: string;
  readonly schema?: string;

  constructor(code: string, err: DriverError, statement: string) {
    super(messageWithoutValues(code, err.message ?? ''));
    this.code = code;
    this.statement = statement;
    const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
    Object.assign(this, {
      severity: text(err.severity),
      constraint: text(err.constraint),
      table: text(err.table),
      column: text(err.column),
      schema: text(err.schema),
    });
  }
}

interface DriverError {
  code?: unknown;
  message?: string;
  severity?: unknown;
  constraint?: unknown;
  table?: unknown;
  column?: unknown;
  schema?: unknown;
}

const SQLSTATE = /^[0-9A-Z]{5}$/;
const STATEMENT_CHARS = 120;

/** Class 22 messages quote the offending value (`invalid input syntax for type uuid: "…"`). */
function messageWithoutValues(code: string, message: string): string {
  if (!code.startsWith('22')) return message;
  const head = message.split(': ')[0]!;
  return head.replace(/"[^"]*"/g, '"…"');
}

/** What a log may name a statement by. */
export function statementName(sql: string, prepared?: string): string {
  if (prepared) return prepared;
  const flat = sql.replace(/\s+/g, ' ').trim();
  return flat.length > STATEMENT_CHARS ? `${flat.slice(0, STATEMENT_CHARS)}…` : flat;
}

/**
 * The error a failed statement is rethrown as: a database's error (it has a SQLSTATE) becomes a
 * QueryError; anything else (a lost connection, a pool timeout) names no values and passes as it is.
 */
export function withoutValues(err: unknown, sql: string, prepared?: string): unknown {
  const e = err as DriverError | null;
  if (!e || typeof e !== 'object' || typeof e.code !== 'string' || !SQLSTATE.test(e.code)) return err;
  return new QueryError(e.code, e, statementName(sql, prepared));
}
