import { arrayParam, isUniqueViolation, type Queryable } from '@mp/db';
import type { CheckedRecord } from './record-rules.js';

export interface Scope {
  tenantId: string;
  environment: string;
  projectId: string;
}

/** The plain insert of a write (bench/ingest runs the same statement as its raw baseline). */
export const INSERT_SQL = `INSERT INTO data_records (id, tenant_id, environment, project_id, point_id, measured_at, utc_offset, x, y, z, dx, dy, dz, status, quality_flag, batch_id, created_at, updated_at)
  SELECT u.id, $1, $2, $3, u.point_id, u.measured_at, u.utc_offset, u.x, u.y, u.z, u.dx, u.dy, u.dz, u.status, 'valid', $4, $5, $5
    FROM unnest($6::text[], $7::text[], $8::timestamptz[], $9::smallint[], $10::float8[], $11::float8[], $12::float8[], $13::float8[], $14::float8[], $15::float8[], $16::text[])
      AS u(id, point_id, measured_at, utc_offset, x, y, z, dx, dy, dz, status)`;

/**
 * The same insert with the instrument channels (docs/adr/0082): a jsonb per record, NULL for the
 * geodetic ones. A write without any channel takes INSERT_SQL, so a total-station write sends and
 * plans exactly what it did before.
 */
export const INSERT_CHANNELS_SQL = `INSERT INTO data_records (id, tenant_id, environment, project_id, point_id, measured_at, utc_offset, x, y, z, dx, dy, dz, channels, status, quality_flag, batch_id, created_at, updated_at)
  SELECT u.id, $1, $2, $3, u.point_id, u.measured_at, u.utc_offset, u.x, u.y, u.z, u.dx, u.dy, u.dz, u.channels::jsonb, u.status, 'valid', $4, $5, $5
    FROM unnest($6::text[], $7::text[], $8::timestamptz[], $9::smallint[], $10::float8[], $11::float8[], $12::float8[], $13::float8[], $14::float8[], $15::float8[], $16::text[], $17::text[])
      AS u(id, point_id, measured_at, utc_offset, x, y, z, dx, dy, dz, status, channels)`;

/**
 * The parameters of INSERT_SQL for the records: the scope, then each column as one binary array
 * (`pg`) or array literal (PGlite). The id, point and instant arrays come back apart too, for the
 * look-up of duplicates.
 */
export function insertParams(scope: Scope, records: CheckedRecord[], ids: string[], opts: { batchId: string | null; now: string }) {
  const n = records.length;
  const pointIds = new Array<string>(n);
  const at = new Array<number>(n);
  const offsets = new Array<number>(n);
  const cols = {
    x: new Array<number | null>(n),
    y: new Array<number | null>(n),
    z: new Array<number | null>(n),
    dx: new Array<number | null>(n),
    dy: new Array<number | null>(n),
    dz: new Array<number | null>(n),
  };
  const statuses = new Array<string>(n);
  let channels: (string | null)[] | null = null;
  for (let i = 0; i < n; i++) {
    const r = records[i]!;
    pointIds[i] = r.point.id;
    at[i] = r.ms;
    offsets[i] = r.offset;
    cols.x[i] = r.x;
    cols.y[i] = r.y;
    cols.z[i] = r.z;
    cols.dx[i] = r.dx;
    cols.dy[i] = r.dy;
    cols.dz[i] = r.dz;
    statuses[i] = r.status;
    if (r.channels !== null) (channels ??= new Array<string | null>(n).fill(null))[i] = JSON.stringify(r.channels);
  }
  const idParam = arrayParam('text', ids);
  const pointParam = arrayParam('text', pointIds);
  const atParam = arrayParam('timestamptz', at);
  const params = [
    scope.tenantId,
    scope.environment,
    scope.projectId,
    opts.batchId,
    opts.now,
    idParam,
    pointParam,
    atParam,
    arrayParam('int2', offsets),
    ...[cols.x, cols.y, cols.z, cols.dx, cols.dy, cols.dz].map((c) => arrayParam('float8', c)),
    arrayParam('text', statuses),
    ...(channels ? [arrayParam('text', channels)] : []),
  ];
  return { params, idParam, pointParam, atParam, withChannels: channels !== null };
}

/**
 * A record of the write is already stored (the plain insert met the unique constraint) and no
 * savepoint was taken (`savepoint: false`): the transaction is aborted. The caller runs it again
 * with the savepoint, which finds which records they were.
 */
export class DuplicateRecordsError extends Error {
  constructor() {
    super('a record of the write is already stored');
  }
}

/**
 * Inserts the records with one multi-row statement (columns passed as arrays and expanded by
 * unnest on the server): one round trip however many records, and a single plan. A record whose
 * point already has data at that instant is skipped by the unique constraint; the indexes of
 * those records (into `records`) are returned so the caller can refuse or report them.
 */
export async function insertRecords(
  tx: Queryable,
  scope: Scope,
  records: CheckedRecord[],
  ids: string[],
  opts: { batchId: string | null; now: string; savepoint?: boolean },
): Promise<number[]> {
  const n = records.length;
  if (n === 0) return [];
  const { params, idParam, pointParam, atParam, withChannels } = insertParams(scope, records, ids, opts);
  const sql = withChannels ? INSERT_CHANNELS_SQL : INSERT_SQL;
  const prepare = withChannels ? 'md_insert_channel_records' : 'md_insert_records';
  // A write that is refused whole on any duplicate (a synchronous write) needs no savepoint: the
  // statement alone, and a duplicate aborts the transaction (DuplicateRecordsError). The
  // savepoint cost two round trips and a subtransaction in PostgreSQL per write (docs/adr/0126).
  if (opts.savepoint === false) {
    try {
      await tx.query(sql, params, { prepare });
      return [];
    } catch (err) {
      throw isUniqueViolation(err) ? new DuplicateRecordsError() : err;
    }
  }
  // A plain insert first: ON CONFLICT's speculative insertion costs PostgreSQL about a quarter
  // more per row, and duplicates are rare. One duplicate fails the plain insert, which the
  // savepoint undoes; the same rows then go in with ON CONFLICT DO NOTHING, which skips them.
  await tx.query('SAVEPOINT md_insert');
  try {
    await tx.query(sql, params, { prepare });
    await tx.query('RELEASE SAVEPOINT md_insert');
    return [];
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    await tx.query('ROLLBACK TO SAVEPOINT md_insert');
  }
  const { rowCount } = await tx.query(`${sql} ON CONFLICT (point_id, measured_at) DO NOTHING`, params, {
    prepare: withChannels ? 'md_insert_channel_records_skipping' : 'md_insert_records_skipping',
  });
  if (rowCount === n) return [];
  // Some were already there: find which, by the rows holding their (point, instant) under another id.
  const { rows } = await tx.query<{ i: number }>(
    `SELECT u.i::int AS i FROM unnest($1::text[], $2::timestamptz[], $3::text[]) WITH ORDINALITY AS u(point_id, measured_at, id, i)
       JOIN data_records d ON d.point_id = u.point_id AND d.measured_at = u.measured_at AND d.id <> u.id
      ORDER BY u.i`,
    [pointParam, atParam, idParam],
  );
  return rows.map((r) => r.i - 1);
}
