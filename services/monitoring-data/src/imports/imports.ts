import type { monitoringData } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import { isId, newId } from '@mp/kit';
import type { DataDeps } from '../deps.js';
import { checkProjectAcceptsData } from '../record-rules.js';
import { loadProfile } from './profiles.js';
import { MAX_STORED_ERRORS } from './worker.js';
import type { ImportProfileSnapshot } from './readings.js';

/** What the import use cases need beyond the service's: the largest file and a way to wake the worker. */
export interface ImportSettings {
  /** MP_IMPORT_MAX_BYTES: the largest file accepted (200 MB by default). */
  maxBytes: number;
  wake: () => void;
}

interface ImportRow {
  id: string;
  tenant_id: string;
  environment: string;
  project_id: string;
  profile_id: string;
  status: string;
  bytes: string | number;
  chunk_count: number;
  rows_done: number;
  stored: number;
  duplicates: number;
  rejected: number;
  error_count: number;
  caller: CallerContext | string;
  failure_code: string | null;
  failure_detail: string | null;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
}

const COLUMNS =
  'id, tenant_id, environment, project_id, profile_id, status, bytes, chunk_count, rows_done, stored, duplicates, rejected, error_count, caller, failure_code, failure_detail, created_at, started_at, completed_at';

const iso = (v: string | null) => (v ? new Date(v).toISOString() : undefined);

function toImport(r: ImportRow, errors: monitoringData.ImportError[], maxBytes: number): monitoringData.Import {
  return {
    id: r.id,
    projectId: r.project_id,
    profileId: r.profile_id,
    status: r.status,
    bytes: Number(r.bytes),
    rows: r.rows_done,
    stored: r.stored,
    duplicates: r.duplicates,
    rejected: r.rejected,
    errorCount: r.error_count,
    errors,
    createdAt: iso(r.created_at)!,
    ...(r.started_at ? { startedAt: iso(r.started_at)! } : {}),
    ...(r.completed_at ? { completedAt: iso(r.completed_at)! } : {}),
    ...(r.failure_code ? { failureCode: r.failure_code, failureDetail: r.failure_detail ?? '' } : {}),
    maxBytes,
  };
}

function notFound(id: string): DomainError {
  return new DomainError('404031', {
    field: 'import_id',
    detail: `Import ${id} does not exist.`,
    suggestion: 'Use the id POST /v3/projects/{project_id}/data/imports answered.',
  });
}

const tooLarge = (bytes: number, max: number) =>
  new DomainError('400005', {
    field: 'body',
    detail: `The file is ${bytes} bytes or more; the limit is ${max} bytes.`,
    suggestion: 'Split the file into several imports (by date range), each under the limit.',
  });

/** An import of the caller's tenant and environment. */
async function loadImport(deps: DataDeps, caller: CallerContext, id: string): Promise<ImportRow> {
  if (!isId('import', id))
    throw new DomainError('400004', { field: 'import_id', detail: 'import_id is not an import id (imp_…).', suggestion: 'Use the id the API returned.' });
  const { rows } = await deps.db.query<ImportRow>(`SELECT ${COLUMNS} FROM imports WHERE id = $1`, [id]);
  const row = rows[0];
  if (!row || row.tenant_id !== caller.tenantId || row.environment !== caller.environment) throw notFound(id);
  return row;
}

/** The uploader itself, while its upload is under way: the chunks of an import come from the one who made it. */
function requireUploader(row: ImportRow, caller: CallerContext): void {
  const c: CallerContext = typeof row.caller === 'string' ? JSON.parse(row.caller) : row.caller;
  if (c.principalId !== caller.principalId || row.status !== 'receiving') {
    throw new DomainError('409004', { field: 'import_id', detail: `Import ${row.id} takes no more of the file.`, suggestion: 'Start a new import.' });
  }
}

/**
 * Opens an import of a file through a profile (write access to the project, a project that takes
 * data). The profile is copied into the import with each point's sensor type, so a later change of
 * the profile does not change an import under way.
 */
export async function createImport(
  deps: DataDeps,
  settings: ImportSettings,
  req: monitoringData.CreateImportRequest,
  caller: CallerContext,
): Promise<monitoringData.Import> {
  if (!isId('project', req.projectId))
    throw new DomainError('400004', { field: 'project_id', detail: 'project_id is not a project id (prj_…).', suggestion: 'Use the id the API returned.' });
  if (!isId('importProfile', req.profileId)) {
    throw new DomainError(req.profileId ? '400004' : '400001', {
      field: 'profile_id',
      detail: req.profileId ? 'profile_id is not an import profile id (ipf_…).' : 'profile_id is required in the query.',
      suggestion: 'Name the import profile: ?profile_id=ipf_….',
    });
  }
  const profile = await loadProfile(deps, caller, req.profileId, true);
  if (profile.project_id !== req.projectId) {
    throw new DomainError('422104', {
      field: 'profile_id',
      detail: `Import profile ${profile.id} belongs to another project.`,
      suggestion: 'Use a profile of this project: GET /v3/projects/{project_id}/import-profiles.',
    });
  }
  const ctx = await deps.contexts.get(
    caller,
    req.projectId,
    profile.columns.map((c) => c.point_id),
    true,
  );
  checkProjectAcceptsData(ctx);
  if (req.declaredBytes !== undefined && req.declaredBytes > settings.maxBytes) throw tooLarge(req.declaredBytes, settings.maxBytes);
  const snapshot: ImportProfileSnapshot = {
    format: profile.format,
    timestamp_column: profile.timestamp_column,
    timestamp_format: profile.timestamp_format,
    time_zone: profile.time_zone,
    delimiter: profile.delimiter,
    decimal: profile.decimal,
    columns: profile.columns.map((c) => ({ ...c, ...(ctx.points.get(c.point_id) ? { sensor_type: ctx.points.get(c.point_id)!.sensorType } : {}) })),
  };
  const { rows } = await deps.db.query<ImportRow>(
    `INSERT INTO imports (id, tenant_id, environment, project_id, profile_id, profile, status, caller, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, 'receiving', $7, $8) RETURNING ${COLUMNS}`,
    [
      newId('import'),
      caller.tenantId,
      caller.environment,
      req.projectId,
      profile.id,
      JSON.stringify(snapshot),
      JSON.stringify(caller),
      deps.clock.now().toISOString(),
    ],
  );
  return toImport(rows[0]!, [], settings.maxBytes);
}

/** Stores the next chunk of the file (in order: chunk `seq` after chunk `seq - 1`); over MP_IMPORT_MAX_BYTES the import fails. */
export async function appendImportChunk(
  deps: DataDeps,
  settings: ImportSettings,
  req: monitoringData.ImportChunk,
  caller: CallerContext,
): Promise<monitoringData.Import> {
  const row = await loadImport(deps, caller, req.id);
  requireUploader(row, caller);
  if (Number(row.bytes) + req.data.length > settings.maxBytes) {
    await deps.db.query(
      "UPDATE imports SET status = 'failed', failure_code = '400005', failure_detail = $2, completed_at = now() WHERE id = $1 AND status = 'receiving'",
      [row.id, `The file is over the limit of ${settings.maxBytes} bytes.`],
    );
    await deps.db.query('DELETE FROM import_chunks WHERE import_id = $1', [row.id]);
    throw tooLarge(Number(row.bytes) + req.data.length, settings.maxBytes);
  }
  const updated = await deps.db.transaction(async (tx) => {
    const { rows } = await tx.query<ImportRow>(
      `UPDATE imports SET bytes = bytes + $3, chunk_count = chunk_count + 1 WHERE id = $1 AND chunk_count = $2 AND status = 'receiving' RETURNING ${COLUMNS}`,
      [row.id, req.seq, req.data.length],
    );
    if (!rows[0])
      throw new DomainError('409004', {
        field: 'seq',
        detail: `Chunk ${req.seq} is not the next chunk of import ${row.id}.`,
        suggestion: 'Send the chunks in order, once each.',
      });
    await tx.query('INSERT INTO import_chunks (import_id, seq, data) VALUES ($1, $2, $3)', [row.id, req.seq, Buffer.from(req.data)]);
    return rows[0];
  });
  return toImport(updated, [], settings.maxBytes);
}

/** The upload is complete (processing starts, at `records_per_minute`) or broke off (the import fails). */
export async function finishImport(
  deps: DataDeps,
  settings: ImportSettings,
  req: monitoringData.FinishImportRequest,
  caller: CallerContext,
): Promise<monitoringData.Import> {
  const row = await loadImport(deps, caller, req.id);
  requireUploader(row, caller);
  const { rows } = req.abandon
    ? await deps.db.query<ImportRow>(
        `UPDATE imports SET status = 'failed', failure_code = '400002', failure_detail = 'The upload broke off before the end of the file.', completed_at = now()
          WHERE id = $1 AND status = 'receiving' RETURNING ${COLUMNS}`,
        [row.id],
      )
    : await deps.db.query<ImportRow>(
        `UPDATE imports SET status = 'processing', records_per_minute = $2 WHERE id = $1 AND status = 'receiving' RETURNING ${COLUMNS}`,
        [row.id, Math.max(0, req.recordsPerMinute)],
      );
  if (req.abandon) await deps.db.query('DELETE FROM import_chunks WHERE import_id = $1', [row.id]);
  else settings.wake();
  return toImport(rows[0] ?? row, [], settings.maxBytes);
}

/** An import's progress and its first errors (read access to its project). */
export async function getImport(
  deps: DataDeps,
  settings: ImportSettings,
  req: monitoringData.GetImportRequest,
  caller: CallerContext,
): Promise<monitoringData.Import> {
  const row = await loadImport(deps, caller, req.id);
  await deps.contexts.get(caller, row.project_id, [], false);
  const { rows } = await deps.db.query<{ row: number; column_name: string | null; code: string; message: string }>(
    // by row: chunks are stored a few at a time, so their errors are numbered in the order they committed
    'SELECT row, column_name, code, message FROM import_errors WHERE import_id = $1 ORDER BY row, n LIMIT $2',
    [row.id, MAX_STORED_ERRORS],
  );
  return toImport(
    row,
    rows.map((e) => ({ row: e.row, ...(e.column_name !== null ? { column: e.column_name } : {}), code: e.code, message: e.message })),
    settings.maxBytes,
  );
}
