import { IMPORT_FORMATS, type ImportFormat } from '@mp/contracts';
import type { monitoringData } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import { decodeCursor, isId, newId, pageLimit, toPage } from '@mp/kit';
import type { DataDeps } from '../deps.js';
import { isTimeZone, TIMESTAMP_FORMATS } from './timestamps.js';

/** docs/imports.md#limits: what one profile may hold. */
export const PROFILE_LIMITS = { columns: 500, name: 100, column: 200, channel: 64, timeZone: 64 } as const;

export interface ProfileColumn {
  column: string;
  point_id: string;
  channel: string;
}

export interface ProfileRow {
  id: string;
  tenant_id: string;
  environment: string;
  project_id: string;
  name: string;
  format: ImportFormat;
  timestamp_column: string;
  timestamp_format: string | null;
  time_zone: string;
  delimiter: string | null;
  decimal: string | null;
  columns: ProfileColumn[];
  version: number;
  created_at: string;
  updated_at: string;
}

const COLUMNS =
  'id, tenant_id, environment, project_id, name, format, timestamp_column, timestamp_format, time_zone, delimiter, decimal, columns, version, created_at, updated_at';

export function toProfile(r: ProfileRow): monitoringData.ImportProfile {
  return {
    id: r.id,
    projectId: r.project_id,
    name: r.name,
    format: r.format,
    timestampColumn: r.timestamp_column,
    ...(r.timestamp_format !== null ? { timestampFormat: r.timestamp_format } : {}),
    timeZone: r.time_zone,
    ...(r.delimiter !== null ? { delimiter: r.delimiter } : {}),
    ...(r.decimal !== null ? { decimal: r.decimal } : {}),
    columns: r.columns.map((c) => ({ column: c.column, pointId: c.point_id, channel: c.channel })),
    version: r.version,
    createdAt: new Date(r.created_at).toISOString(),
    updatedAt: new Date(r.updated_at).toISOString(),
  };
}

const refuse = (code: string, field: string, detail: string, suggestion: string) => new DomainError(code, { field, detail, suggestion });

/** The delimiter a profile reads with: its own, else `;` when decimals are commas, else `,`. */
export const delimiterOf = (p: Pick<ProfileRow, 'delimiter' | 'decimal'>): string => p.delimiter ?? (p.decimal === ',' ? ';' : ',');

/**
 * The rules of a profile that need no other service: formats, sizes, a known time zone, a
 * delimiter that is not the decimal mark, each file column mapped once. The first broken rule is
 * refused naming its field.
 */
function checkShape(p: Omit<ProfileRow, 'id' | 'tenant_id' | 'environment' | 'project_id' | 'version' | 'created_at' | 'updated_at'>): void {
  const name = p.name.trim();
  if (name.length < 1 || name.length > PROFILE_LIMITS.name) {
    throw refuse('400003', 'name', `name must be 1 to ${PROFILE_LIMITS.name} characters.`, 'Give the profile a short name, e.g. the logger and its table.');
  }
  if (!(IMPORT_FORMATS as readonly string[]).includes(p.format))
    throw refuse('422103', 'format', `format must be csv or toa5; got ${p.format}.`, 'Use csv or toa5.');
  if (!p.timestamp_column || p.timestamp_column.length > PROFILE_LIMITS.column) {
    throw refuse(
      '400003',
      'timestamp_column',
      `timestamp_column must be 1 to ${PROFILE_LIMITS.column} characters.`,
      'Name the header of the time column, e.g. TIMESTAMP.',
    );
  }
  if (p.timestamp_format !== null && !(TIMESTAMP_FORMATS as readonly string[]).includes(p.timestamp_format)) {
    throw refuse(
      '422103',
      'timestamp_format',
      `timestamp_format ${p.timestamp_format.slice(0, 40)} is not one this API reads.`,
      `Use one of: ${TIMESTAMP_FORMATS.join(', ')}.`,
    );
  }
  if (p.time_zone.length > PROFILE_LIMITS.timeZone || !isTimeZone(p.time_zone)) {
    throw refuse(
      '422103',
      'time_zone',
      `time_zone ${p.time_zone.slice(0, 64)} is not an IANA time zone.`,
      'Use an IANA name such as Europe/Zurich, or Etc/GMT-1 for a logger that keeps UTC+1 all year.',
    );
  }
  if (p.decimal !== null && p.decimal !== '.' && p.decimal !== ',') throw refuse('422103', 'decimal', 'decimal must be . or ,.', 'Use . or ,.');
  if (p.delimiter !== null && (p.delimiter.length !== 1 || /["\r\n]/.test(p.delimiter))) {
    throw refuse('422103', 'delimiter', 'delimiter must be one character other than a quote or a line break.', 'Use , ; or a tab.');
  }
  if (delimiterOf(p) === (p.decimal ?? '.')) {
    throw refuse('422204', 'delimiter', 'delimiter and decimal are the same character.', 'With decimal "," use delimiter ";" (the default then).');
  }
  if (p.columns.length < 1 || p.columns.length > PROFILE_LIMITS.columns) {
    throw refuse(
      '400003',
      'columns',
      `columns must hold 1 to ${PROFILE_LIMITS.columns} entries; got ${p.columns.length}.`,
      'Map each file column you want stored to a point and channel.',
    );
  }
  const seen = new Set<string>();
  p.columns.forEach((c, i) => {
    if (!c.column || c.column.length > PROFILE_LIMITS.column) {
      throw refuse(
        '400003',
        `columns[${i}].column`,
        `columns[${i}].column must be 1 to ${PROFILE_LIMITS.column} characters.`,
        'Name the column by its header.',
      );
    }
    if (c.column === p.timestamp_column) {
      throw refuse('422204', `columns[${i}].column`, `Column ${c.column.slice(0, 60)} is the timestamp column.`, 'Map the value columns only.');
    }
    if (seen.has(c.column)) {
      throw refuse('422204', `columns[${i}].column`, `Column ${c.column.slice(0, 60)} is mapped twice.`, 'Map each file column to one point and channel.');
    }
    seen.add(c.column);
    if (!isId('point', c.point_id))
      throw refuse('400004', `columns[${i}].point_id`, `columns[${i}].point_id is not a point id (pt_…).`, 'Use the id the API returned.');
    if (!c.channel || c.channel.length > PROFILE_LIMITS.channel) {
      throw refuse(
        '400003',
        `columns[${i}].channel`,
        `columns[${i}].channel must be 1 to ${PROFILE_LIMITS.channel} characters.`,
        'Name a channel of the point’s sensor type.',
      );
    }
  });
  const pairs = new Set<string>();
  p.columns.forEach((c, i) => {
    const key = `${c.point_id}\u0000${c.channel}`;
    if (pairs.has(key)) {
      throw refuse(
        '422204',
        `columns[${i}].channel`,
        `Channel ${c.channel} of point ${c.point_id} is mapped from two columns.`,
        'Map each channel of a point from one column.',
      );
    }
    pairs.add(key);
  });
}

/**
 * The rules that need the project (through the projects service, with the caller's write access):
 * every point is one of the project's, and every channel one its point's sensor type has.
 */
async function checkPoints(deps: DataDeps, caller: CallerContext, projectId: string, columns: ProfileColumn[]): Promise<void> {
  const ctx = await deps.contexts.get(
    caller,
    projectId,
    columns.map((c) => c.point_id),
    true,
  );
  columns.forEach((c, i) => {
    const point = ctx.points.get(c.point_id);
    if (!point) {
      throw refuse(
        '422104',
        `columns[${i}].point_id`,
        `Point ${c.point_id} is not a point of project ${projectId}.`,
        'List the project’s points with GET /v3/projects/{project_id}/points and use one of their ids.',
      );
    }
    const channels = point.type?.channels.map((ch) => ch.name) ?? [];
    if (!channels.includes(c.channel)) {
      throw refuse(
        '422103',
        `columns[${i}].channel`,
        `Point ${c.point_id} (${point.sensorType}) has no channel ${c.channel.slice(0, 64)}.`,
        channels.length ? `Use one of its channels: ${channels.join(', ')}.` : 'This sensor type has no channels to import.',
      );
    }
  });
}

function requireProfileId(id: string): void {
  if (!isId('importProfile', id)) throw refuse('400004', 'profile_id', 'profile_id is not an import profile id (ipf_…).', 'Use the id the API returned.');
}

function notFound(id: string): DomainError {
  return refuse(
    '404030',
    'profile_id',
    `Import profile ${id} does not exist.`,
    'List the project’s profiles with GET /v3/projects/{project_id}/import-profiles.',
  );
}

/** A profile of the caller's tenant and environment, with read (or write) access to its project checked. */
export async function loadProfile(deps: DataDeps, caller: CallerContext, id: string, forWrite: boolean): Promise<ProfileRow> {
  requireProfileId(id);
  const { rows } = await deps.db.query<ProfileRow>(`SELECT ${COLUMNS} FROM import_profiles WHERE id = $1`, [id]);
  const row = rows[0];
  if (!row || row.tenant_id !== caller.tenantId || row.environment !== caller.environment) throw notFound(id);
  const ctx = await deps.contexts.get(caller, row.project_id, [], forWrite);
  if (forWrite) checkProjectAcceptsChanges(ctx.project.status);
  return row;
}

function checkProjectAcceptsChanges(status: string): void {
  if (status === 'archived')
    throw refuse('422301', 'project_id', 'The project is archived; its import profiles cannot change.', 'Read them, or restore the project first.');
}

const fromInput = (req: monitoringData.ImportProfileInput, base?: ProfileRow) => {
  const cleared = new Set(req.clear);
  const format = (req.format ?? base?.format ?? '') as ProfileRow['format'];
  return {
    name: req.name ?? base?.name ?? '',
    format,
    timestamp_column: req.timestampColumn ?? base?.timestamp_column ?? (format === 'toa5' ? 'TIMESTAMP' : ''),
    timestamp_format: cleared.has('timestamp_format') ? null : (req.timestampFormat ?? base?.timestamp_format ?? null),
    time_zone: req.timeZone ?? base?.time_zone ?? 'UTC',
    delimiter: cleared.has('delimiter') ? null : (req.delimiter ?? base?.delimiter ?? null),
    decimal: cleared.has('decimal') ? null : (req.decimal ?? base?.decimal ?? null),
    columns: req.columnsSet || !base ? req.columns.map((c) => ({ column: c.column, point_id: c.pointId, channel: c.channel })) : base.columns,
  };
};

export async function createImportProfile(
  deps: DataDeps,
  req: monitoringData.ImportProfileInput,
  caller: CallerContext,
): Promise<monitoringData.ImportProfile> {
  const projectId = req.projectId ?? '';
  if (!isId('project', projectId)) throw refuse('400004', 'project_id', 'project_id is not a project id (prj_…).', 'Use the id the API returned.');
  const p = fromInput(req);
  if (!p.format) throw refuse('422101', 'format', 'format is required.', 'Use csv or toa5.');
  if (!p.name) throw refuse('422101', 'name', 'name is required.', 'Give the profile a name.');
  const ctx = await deps.contexts.get(caller, projectId, [], true);
  checkProjectAcceptsChanges(ctx.project.status);
  checkShape(p);
  await checkPoints(deps, caller, projectId, p.columns);
  const now = deps.clock.now().toISOString();
  const { rows } = await deps.db.query<ProfileRow>(
    `INSERT INTO import_profiles (id, tenant_id, environment, project_id, name, format, timestamp_column, timestamp_format, time_zone, delimiter, decimal, columns, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $13) RETURNING ${COLUMNS}`,
    [
      newId('importProfile'),
      caller.tenantId,
      caller.environment,
      projectId,
      p.name.trim(),
      p.format,
      p.timestamp_column,
      p.timestamp_format,
      p.time_zone,
      p.delimiter,
      p.decimal,
      JSON.stringify(p.columns),
      now,
    ],
  );
  return toProfile(rows[0]!);
}

export async function updateImportProfile(
  deps: DataDeps,
  req: monitoringData.ImportProfileInput,
  caller: CallerContext,
): Promise<monitoringData.ImportProfile> {
  const base = await loadProfile(deps, caller, req.id ?? '', true);
  if (req.expectedVersion !== undefined && req.expectedVersion !== base.version) {
    throw refuse(
      '409004',
      'version',
      `Import profile ${base.id} is at version ${base.version}, not ${req.expectedVersion}.`,
      'Read the profile again and apply your change to it.',
    );
  }
  const p = fromInput(req, base);
  checkShape(p);
  await checkPoints(deps, caller, base.project_id, p.columns);
  const { rows } = await deps.db.query<ProfileRow>(
    `UPDATE import_profiles SET name = $3, format = $4, timestamp_column = $5, timestamp_format = $6, time_zone = $7, delimiter = $8, decimal = $9, columns = $10,
            version = version + 1, updated_at = $11
      WHERE id = $1 AND version = $2 RETURNING ${COLUMNS}`,
    [
      base.id,
      base.version,
      p.name.trim(),
      p.format,
      p.timestamp_column,
      p.timestamp_format,
      p.time_zone,
      p.delimiter,
      p.decimal,
      JSON.stringify(p.columns),
      deps.clock.now().toISOString(),
    ],
  );
  if (!rows[0]) throw refuse('409004', 'version', `Import profile ${base.id} changed meanwhile.`, 'Read the profile again and apply your change to it.');
  return toProfile(rows[0]);
}

export async function getImportProfile(deps: DataDeps, req: monitoringData.ImportProfileRef, caller: CallerContext): Promise<monitoringData.ImportProfile> {
  return toProfile(await loadProfile(deps, caller, req.id, false));
}

export async function deleteImportProfile(deps: DataDeps, req: monitoringData.ImportProfileRef, caller: CallerContext): Promise<monitoringData.ImportProfile> {
  const row = await loadProfile(deps, caller, req.id, true);
  await deps.db.query('DELETE FROM import_profiles WHERE id = $1', [row.id]);
  return toProfile(row);
}

export async function listImportProfiles(
  deps: DataDeps,
  req: monitoringData.ListImportProfilesRequest,
  caller: CallerContext,
): Promise<monitoringData.ImportProfileList> {
  if (!isId('project', req.projectId)) throw refuse('400004', 'project_id', 'project_id is not a project id (prj_…).', 'Use the id the API returned.');
  await deps.contexts.get(caller, req.projectId, [], false);
  const limit = pageLimit(req.page?.limit);
  const after = req.page?.cursor ? String(decodeCursor(req.page.cursor)[0]) : '';
  const { rows } = await deps.db.query<ProfileRow>(
    `SELECT ${COLUMNS} FROM import_profiles WHERE project_id = $1 AND tenant_id = $2 AND environment = $3 AND id > $4 ORDER BY id LIMIT $5`,
    [req.projectId, caller.tenantId, caller.environment, after, limit + 1],
  );
  const page = toPage(rows, limit, (r) => [r.id]);
  return { items: page.items.map(toProfile), page: { hasMore: page.hasMore, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) } };
}
