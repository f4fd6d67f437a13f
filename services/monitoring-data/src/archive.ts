import { mkdir, open, rename, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createWriteStream } from 'node:fs';
import { createGzip } from 'node:zlib';
import type { identity } from '@mp/contracts';
import type { Database, Queryable } from '@mp/db';
import type { CallerContext, PromiseClient } from '@mp/grpc';
import { counter, gauge, newId, type Clock, type Logger } from '@mp/kit';

/** Each tenant's raw retention in whole months; tenants absent keep their readings forever. */
export type RawRetention = () => Promise<Map<string, number>>;

/** Retention as the identity service states it from each tenant's plan. */
export function retentionFromIdentity(client: Pick<PromiseClient<identity.IdentityServer>, 'listRawRetention'>): RawRetention {
  const ctx: CallerContext = {
    requestId: newId('request'),
    tenantId: '',
    environment: 'live',
    principalId: 'monitoring-data',
    principalType: 'system',
    permissions: [],
  };
  return async () => {
    const { tenants } = await client.listRawRetention({}, ctx);
    return new Map(tenants.map((t) => [t.tenantId, t.rawRetentionMonths]));
  };
}

/** The columns of an archive file, in order: those of data_records, so COPY … FROM reads it back. */
export const ARCHIVE_COLUMNS = [
  'id',
  'tenant_id',
  'environment',
  'project_id',
  'point_id',
  'measured_at',
  'utc_offset',
  'x',
  'y',
  'z',
  'dx',
  'dy',
  'dz',
  'status',
  'quality_flag',
  'remark',
  'batch_id',
  'created_at',
  'updated_at',
  'version',
] as const;

const TIMESTAMPS = new Set(['measured_at', 'created_at', 'updated_at']);
// Text as PostgreSQL writes it (floats exact: shortest round-trip digits); instants in UTC ISO 8601.
const SELECT_LIST = ARCHIVE_COLUMNS.map((c) =>
  TIMESTAMPS.has(c) ? `to_char(${c} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS ${c}` : `${c}::text AS ${c}`,
).join(', ');

/** Rows read per query while a file is written: the most a run holds in memory. */
const PAGE = 2000;
/** Held by the replica that archives; the others skip their run (named like the rollup fold's). */
const ARCHIVE_LOCK = `hashtext('monitoring_data.raw_archives')`;

const partitionsArchived = counter({ name: 'mp_archive_partitions_total', help: 'Monthly partitions of raw readings archived and dropped.' });
const tenantMonthsArchived = counter({
  name: 'mp_archive_tenant_months_total',
  help: 'Months of one tenant archived and removed (from a dropped partition, or deleted from one that other tenants still keep).',
});
const rowsArchived = counter({ name: 'mp_archive_rows_total', help: 'Raw readings written to archive files and removed from the database.' });
const bytesWritten = counter({ name: 'mp_archive_bytes_total', help: 'Bytes of compressed archive files written (kept ones).' });
const runFailures = counter({ name: 'mp_archive_failures_total', help: 'Archive runs that stopped on an error (nothing of the failed month was removed).' });
const lastRun = gauge({ name: 'mp_archive_last_run_timestamp_seconds', help: 'When this replica last finished an archive run (Unix time), failed or not.' });
const lastSuccess = gauge({
  name: 'mp_archive_last_success_timestamp_seconds',
  help: 'When this replica last finished an archive run without error (Unix time).',
});

export interface ArchiveOptions {
  db: Database;
  logger: Logger;
  clock: Clock;
  /** MP_ARCHIVE_DIR: files go to <dir>/data_records/<YYYY-MM>/<tenant>.<run>.csv.gz. */
  dir: string;
  retention: RawRetention;
}

export interface ArchiveResult {
  /** false: another replica was archiving, this run did nothing. */
  ran: boolean;
  partitions: number;
  tenantMonths: number;
  rows: number;
  bytes: number;
  files: string[];
}

interface Partition {
  name: string;
  /** YYYY-MM */
  month: string;
  start: number;
  end: number;
}

interface Written {
  tenant: string;
  path: string;
  rows: number;
  bytes: number;
  /** The newest updated_at written, to tell that no row changed before the rows are removed. */
  lastUpdated: string | null;
}

/** The partitions of data_records, oldest first. */
async function partitionsOf(db: Queryable): Promise<Partition[]> {
  const { rows } = await db.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = to_regclass('data_records') ORDER BY c.relname`,
  );
  const out: Partition[] = [];
  for (const { name } of rows) {
    const m = /^data_records_p(\d{4})(\d{2})$/.exec(name);
    if (!m) continue;
    const y = Number(m[1]);
    const mo = Number(m[2]);
    out.push({ name, month: `${m[1]}-${m[2]}`, start: Date.UTC(y, mo - 1, 1), end: Date.UTC(y, mo, 1) });
  }
  return out;
}

/**
 * Months at or before which a tenant keeping `months` months has no raw readings left: the
 * current month and the `months` whole months before it are kept.
 */
export function retentionCutoff(nowMs: number, months: number): number {
  const d = new Date(nowMs);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - months, 1);
}

const SAFE_TENANT = /^[A-Za-z0-9_-]{1,100}$/;

function csvCell(v: string | null): string {
  if (v === null) return '';
  if (v === '' || /[",\r\n]/.test(v) || v === '\\.') return `"${v.replace(/"/g, '""')}"`;
  return v;
}

/**
 * Writes one tenant's rows of one partition to a gzip CSV file: read a page at a time along the
 * (point_id, measured_at) unique index, compressed as it goes, written under a temporary name,
 * fsynced, then renamed (and the folder fsynced), so a file under its final name is complete.
 */
async function writeTenantMonth(db: Queryable, dir: string, p: Partition, tenant: string, runStamp: string): Promise<Written> {
  const folder = join(dir, 'data_records', p.month);
  await mkdir(folder, { recursive: true, mode: 0o700 });
  const path = join(folder, `${tenant}.${runStamp}.csv.gz`);
  const tmp = join(folder, `.${tenant}.${runStamp}.csv.gz.partial`);
  let rows = 0;
  let lastUpdated: string | null = null;
  async function* lines(): AsyncGenerator<string> {
    yield ARCHIVE_COLUMNS.join(',') + '\n';
    let after: [string, string] | null = null;
    for (;;) {
      type Row = Record<string, string | null>;
      const result: { rows: Row[] } = await db.query<Row>(
        `SELECT ${SELECT_LIST} FROM ${p.name}
          WHERE tenant_id = $1 ${after ? 'AND (point_id, measured_at) > ($2, $3::timestamptz)' : ''}
          ORDER BY ${p.name}.point_id, ${p.name}.measured_at LIMIT ${PAGE}`,
        after ? [tenant, after[0], after[1]] : [tenant],
      );
      const page: Row[] = result.rows;
      if (page.length === 0) return;
      let chunk = '';
      for (const r of page) {
        chunk += ARCHIVE_COLUMNS.map((c) => csvCell(r[c] ?? null)).join(',') + '\n';
        if (lastUpdated === null || r.updated_at! > lastUpdated) lastUpdated = r.updated_at!;
      }
      rows += page.length;
      yield chunk;
      const last: Row = page[page.length - 1]!;
      after = [last.point_id!, last.measured_at!];
      if (page.length < PAGE) return;
    }
  }
  // 'wx': never write into a file of another run; only a file this run created is removed on failure
  const out = createWriteStream(tmp, { flags: 'wx', mode: 0o600 });
  let created = false;
  out.once('open', () => (created = true));
  try {
    await pipeline(Readable.from(lines()), createGzip(), out);
    const fh = await open(tmp, 'r+');
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, path);
    await syncFolder(folder);
  } catch (err) {
    if (created) await unlink(tmp).catch(() => undefined);
    throw err;
  }
  return { tenant, path, rows, bytes: (await stat(path)).size, lastUpdated };
}

async function syncFolder(folder: string): Promise<void> {
  const fh = await open(folder, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

class Changed extends Error {}

/**
 * The tenants whose retention has passed for the partition's month and who have rows in it,
 * sorted. Found through their projects (data_points) and the (project_id, measured_at) index: a
 * probe per tenant, not a scan of the partition, so old months kept for others cost little.
 */
async function expiredIn(db: Queryable, p: Partition, retention: Map<string, number>, nowMs: number): Promise<string[]> {
  const candidates = [...retention].filter(([, months]) => p.end <= retentionCutoff(nowMs, months)).map(([t]) => t);
  if (candidates.length === 0) return [];
  const { rows } = await db.query<{ tenant_id: string }>(
    `SELECT t.tenant_id FROM (SELECT tenant_id, array_agg(DISTINCT project_id) AS projects FROM data_points
                               WHERE tenant_id = ANY($1::text[]) GROUP BY tenant_id) t
      WHERE EXISTS (SELECT 1 FROM ${p.name} d WHERE d.project_id = ANY(t.projects) AND d.tenant_id = t.tenant_id)
      ORDER BY t.tenant_id`,
    [candidates],
  );
  return rows.map((r) => r.tenant_id);
}

/** Whether tenants other than `tenants` have rows in the partition (then it is not dropped). */
async function othersIn(db: Queryable, p: Partition, tenants: string[]): Promise<boolean> {
  const { rows } = await db.query(`SELECT 1 FROM ${p.name} WHERE tenant_id <> ALL($1::text[]) LIMIT 1`, [tenants]);
  return rows.length > 0;
}

/**
 * Under a lock that stops writes to the partition, checks that each tenant's rows are still the
 * ones written (count and newest updated_at): a reading stored or corrected after its file was
 * written is not removed unarchived; the month is tried again on the next run.
 */
async function verify(tx: Queryable, p: Partition, written: Written[]): Promise<void> {
  const { rows } = await tx.query<{ tenant_id: string; n: string; last: string | null }>(
    `SELECT tenant_id, count(*)::text AS n, to_char(max(updated_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS last
       FROM ${p.name} WHERE tenant_id = ANY($1::text[]) GROUP BY tenant_id`,
    [written.map((w) => w.tenant)],
  );
  const now = new Map(rows.map((r) => [r.tenant_id, r]));
  for (const w of written) {
    const r = now.get(w.tenant);
    if (Number(r?.n ?? 0) !== w.rows || (r?.last ?? null) !== w.lastUpdated) {
      throw new Changed(`readings of tenant ${w.tenant} in ${p.month} changed while they were archived`);
    }
  }
}

async function record(tx: Queryable, p: Partition, written: Written[], dropped: boolean, at: string): Promise<void> {
  for (const w of written) {
    await tx.query(
      `INSERT INTO raw_archives (month, tenant_id, file, rows, bytes, partition_dropped, archived_at)
       VALUES ($1::date, $2, $3, $4, $5, $6, $7)`,
      [`${p.month}-01`, w.tenant, w.path, w.rows, w.bytes, dropped, at],
    );
  }
}

/**
 * One archive run (docs/adr/0081): for each monthly partition, the tenants whose retention has
 * passed for that month get their rows written to one file each; then, when no other tenant has
 * rows in the partition, it is dropped, otherwise those tenants' rows are deleted from it. Rows
 * are removed only after their file is complete and on disk, and only if they did not change
 * meanwhile; a failure leaves the month's rows in place (and no file under a final name for
 * them). Rollups are not touched. One replica at a time (an advisory lock); a run that finds it
 * held does nothing.
 */
export async function archiveOnce(opts: ArchiveOptions): Promise<ArchiveResult> {
  const result: ArchiveResult = { ran: false, partitions: 0, tenantMonths: 0, rows: 0, bytes: 0, files: [] };
  const conn = lockConnection(opts.db);
  const { rows: got } = await conn.query<{ ok: boolean }>(`SELECT pg_try_advisory_lock(${ARCHIVE_LOCK}) AS ok`);
  if (!got[0]?.ok) return result;
  result.ran = true;
  try {
    await run(opts, conn, result);
    opts.logger.info(
      { partitions: result.partitions, tenant_months: result.tenantMonths, rows: result.rows, bytes: result.bytes },
      result.rows > 0 || result.partitions > 0 ? 'raw readings archived' : 'archive run: nothing to archive',
    );
    lastSuccess.set(opts.clock.now().getTime() / 1000);
  } catch (err) {
    runFailures.inc();
    opts.logger.error(
      { err, partitions: result.partitions, rows: result.rows, dir: opts.dir },
      'archive run failed; the month it was archiving keeps its raw readings and is tried again on the next run',
    );
    throw err;
  } finally {
    lastRun.set(opts.clock.now().getTime() / 1000);
    await conn.query(`SELECT pg_advisory_unlock(${ARCHIVE_LOCK})`).catch(() => undefined);
  }
  return result;
}

const lockConnections = new WeakMap<Database, Database>();

/**
 * The session lock is held by a connection, so a run on PostgreSQL goes through one connection of
 * its own, reserved once per database and closed with it (PGlite has a single connection).
 */
function lockConnection(db: Database): Database {
  if (db.kind !== 'pg') return db;
  let conn = lockConnections.get(db);
  if (!conn) {
    conn = db.reserve(1);
    lockConnections.set(db, conn);
  }
  return conn;
}

async function run(opts: ArchiveOptions, db: Database, result: ArchiveResult): Promise<void> {
  const retention = await opts.retention();
  if (retention.size === 0) return;
  const now = opts.clock.now();
  const shortest = Math.min(...retention.values());
  const runStamp = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  for (const p of await partitionsOf(db)) {
    if (p.end > retentionCutoff(now.getTime(), shortest)) break;
    const expired = await expiredIn(db, p, retention, now.getTime());
    // An empty partition (emptied by deletions, or just created by a late write whose rows are not
    // committed yet) is left alone: dropping it could fail that write.
    if (expired.length === 0) continue;
    const unsafe = expired.filter((t) => !SAFE_TENANT.test(t));
    if (unsafe.length > 0) throw new Error(`tenant ids not usable as file names in ${p.name}: ${unsafe.join(', ')}`);
    const written: Written[] = [];
    try {
      for (const t of expired) written.push(await writeTenantMonth(db, opts.dir, p, t, runStamp));
      const whole = !(await othersIn(db, p, expired));
      const at = now.toISOString();
      await db.transaction(async (tx) => {
        if (whole) {
          await tx.query(`LOCK TABLE ${p.name} IN ACCESS EXCLUSIVE MODE`);
          await verify(tx, p, written);
          if (await othersIn(tx, p, expired)) throw new Changed(`another tenant stored readings in ${p.month} while it was archived`);
          await tx.query(`DROP TABLE ${p.name}`);
        } else {
          await tx.query(`LOCK TABLE ${p.name} IN SHARE MODE`);
          await verify(tx, p, written);
          await tx.query(`DELETE FROM ${p.name} WHERE tenant_id = ANY($1::text[])`, [expired]);
        }
        await record(tx, p, written, whole, at);
      });
      const rows = written.reduce((s, w) => s + w.rows, 0);
      const bytes = written.reduce((s, w) => s + w.bytes, 0);
      if (whole) {
        result.partitions++;
        partitionsArchived.inc();
      }
      result.tenantMonths += written.length;
      result.rows += rows;
      result.bytes += bytes;
      result.files.push(...written.map((w) => w.path));
      tenantMonthsArchived.inc(written.length);
      rowsArchived.inc(rows);
      bytesWritten.inc(bytes);
      opts.logger.info(
        { month: p.month, partition: p.name, dropped: whole, tenants: expired, rows, bytes, files: written.map((w) => w.path) },
        whole ? 'partition archived and dropped' : "tenants' readings archived and deleted from the partition",
      );
    } catch (err) {
      // The rows stay; so that no file claims rows the database still holds, this run's files go.
      await Promise.all(written.map((w) => unlink(w.path).catch(() => undefined)));
      if (err instanceof Changed) {
        opts.logger.warn({ month: p.month, partition: p.name, reason: err.message }, 'month left for the next archive run');
        continue;
      }
      throw err;
    }
  }
}

/**
 * Where the raw readings of a tenant end: instants before it may be archived (the end of its
 * latest archived month), null when none were. Series read rollups there (series-plan.ts).
 */
export async function rawHorizon(db: Queryable, tenantId: string): Promise<number | null> {
  const { rows } = await db.query<{ until: string | null }>(
    `SELECT to_char((max(month) + interval '1 month')::date, 'YYYY-MM-DD') AS until FROM raw_archives WHERE tenant_id = $1`,
    [tenantId],
  );
  const until = rows[0]?.until;
  return until ? Date.parse(`${until}T00:00:00Z`) : null;
}

/**
 * The scheduled archive job of a replica: a run every `everyMs`; runs
 * never overlap within a replica, and across replicas the advisory lock lets one through.
 */
export class Archiver {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;

  constructor(
    private readonly opts: ArchiveOptions,
    private readonly everyMs: number,
  ) {}

  start(): void {
    if (this.everyMs <= 0) return;
    const tick = () => {
      if (this.running) return;
      this.running = archiveOnce(this.opts)
        .catch(() => undefined) // logged by archiveOnce
        .finally(() => (this.running = null));
    };
    this.timer = setInterval(tick, this.everyMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}
