import { IMPORT_FORMATS, IMPORT_TIMESTAMP_FORMATS } from '@mp/contracts';
import { z } from 'zod';
import type { monitoringData } from '@mp/contracts';
import { DomainError, excerpt } from '@mp/errors';
import type { RateLimits } from '@mp/ratelimit';
import type { ServiceClients } from '../clients.js';
import { ok } from '../envelope.js';
import { idText, integer, MAX_LENGTH, text, timeZoneText } from '../bounds.js';
import { listData, pageOf, pageQuery, validate } from '../validate.js';
import { expectedVersion, versionField } from './versioning.js';
import { route, type GatewayRouter } from '../api/route-spec.js';
import { exemptFromRequestDeadline } from '../request-deadline.js';
import { uploadPieces } from '../upload-pieces.js';

// Logger file imports (docs/imports.md, docs/adr/0120-logger-file-imports.md): import profiles of
// a project and uploads of CSV or Campbell TOA5 files through them. The bounds here are the
// API's; monitoring-data checks the rest (a known time zone, the points and their channels).

/** docs/imports.md#limits */
const LIMITS = { columns: 500, column: 200, channel: 64 } as const;
/** The file goes to monitoring-data in pieces of this size: what the gateway holds of it at once. */
const CHUNK_BYTES = 1024 * 1024;

const column = z.object({
  column: text(LIMITS.column).meta({ description: 'The header of the file column.' }),
  point_id: idText(),
  channel: text(LIMITS.channel).meta({ description: 'A channel of the point’s sensor type (GET /v3/sensor-types).' }),
});
const profileFields = {
  name: text(MAX_LENGTH.name),
  format: z.enum(IMPORT_FORMATS),
  timestamp_column: text(LIMITS.column).meta({ description: 'Header of the time column; TIMESTAMP by default for toa5.' }),
  timestamp_format: z
    .enum(IMPORT_TIMESTAMP_FORMATS)
    .nullable()
    .meta({ description: 'How times are written; iso (ISO 8601, an offset optional, T or a space) by default.' }),
  time_zone: timeZoneText().meta({
    description: 'IANA time zone of times written without an offset (UTC by default); see docs/imports.md for daylight saving.',
  }),
  delimiter: text(1).nullable().meta({ description: 'Cell delimiter; `,` by default, `;` when decimal is `,`.' }),
  decimal: z.enum(['.', ',']).nullable(),
  columns: z.array(column).max(LIMITS.columns),
};
const createBody = z.object({
  ...profileFields,
  timestamp_column: profileFields.timestamp_column.optional(),
  timestamp_format: profileFields.timestamp_format.optional(),
  time_zone: profileFields.time_zone.optional(),
  delimiter: profileFields.delimiter.optional(),
  decimal: profileFields.decimal.optional(),
});
const patchBody = z.object({
  name: profileFields.name.optional(),
  format: profileFields.format.optional(),
  timestamp_column: profileFields.timestamp_column.optional(),
  timestamp_format: profileFields.timestamp_format.optional(),
  time_zone: profileFields.time_zone.optional(),
  delimiter: profileFields.delimiter.optional(),
  decimal: profileFields.decimal.optional(),
  columns: profileFields.columns.optional(),
  version: versionField,
});
const importQuery = z.object({ profile_id: idText().meta({ description: 'The import profile the file is read with.' }) });

export const importProfile = z
  .object({
    id: z.string(),
    project_id: z.string(),
    name: z.string(),
    format: z.string(),
    timestamp_column: z.string(),
    timestamp_format: z.string().nullable(),
    time_zone: z.string(),
    delimiter: z.string().nullable(),
    decimal: z.string().nullable(),
    columns: z.array(z.object({ column: z.string(), point_id: z.string(), channel: z.string() })),
    version: integer(1, 2_147_483_647),
    created_at: z.string().meta({ format: 'date-time' }),
    updated_at: z.string().meta({ format: 'date-time' }),
  })
  .meta({ id: 'ImportProfile' });

export const dataImport = z
  .object({
    import_id: z.string(),
    project_id: z.string(),
    profile_id: z.string(),
    status: z.string().meta({ description: 'processing, completed or failed.' }),
    bytes: z.number().int(),
    rows: z.number().int().meta({ description: 'Data rows read so far (header lines not counted).' }),
    stored: z.number().int(),
    duplicates: z.number().int().meta({ description: 'Readings already stored for their point and instant: not stored again.' }),
    rejected: z.number().int(),
    error_count: z.number().int(),
    errors: z
      .array(z.object({ row: z.number().int(), column: z.string().nullable(), code: z.number().int(), message: z.string() }))
      .meta({ description: 'The first 1,000 errors; row is the line number in the file, header lines included.' }),
    failure: z.object({ code: z.number().int(), detail: z.string() }).nullable(),
    created_at: z.string().meta({ format: 'date-time' }),
    started_at: z.string().nullable(),
    completed_at: z.string().nullable(),
  })
  .meta({ id: 'DataImport' });

const presentProfile = (p: monitoringData.ImportProfile): z.infer<typeof importProfile> => ({
  id: p.id,
  project_id: p.projectId,
  name: p.name,
  format: p.format,
  timestamp_column: p.timestampColumn,
  timestamp_format: p.timestampFormat ?? null,
  time_zone: p.timeZone,
  delimiter: p.delimiter ?? null,
  decimal: p.decimal ?? null,
  columns: p.columns.map((c) => ({ column: c.column, point_id: c.pointId, channel: c.channel })),
  version: p.version,
  created_at: p.createdAt,
  updated_at: p.updatedAt,
});

const presentImport = (i: monitoringData.Import): z.infer<typeof dataImport> => ({
  import_id: i.id,
  project_id: i.projectId,
  profile_id: i.profileId,
  // receiving is the upload itself: nobody holds the id before it ended
  status: i.status === 'receiving' ? 'processing' : i.status,
  bytes: i.bytes,
  rows: i.rows,
  stored: i.stored,
  duplicates: i.duplicates,
  rejected: i.rejected,
  error_count: i.errorCount,
  errors: i.errors.map((e) => ({ row: e.row, column: e.column ?? null, code: Number(e.code), message: e.message })),
  failure: i.failureCode ? { code: Number(i.failureCode), detail: i.failureDetail ?? '' } : null,
  created_at: i.createdAt,
  started_at: i.startedAt ?? null,
  completed_at: i.completedAt ?? null,
});

type ProfileBody = Partial<z.infer<typeof createBody>>;
const toInput = (b: ProfileBody): Omit<monitoringData.ImportProfileInput, 'projectId' | 'id'> => {
  const clear: string[] = [];
  for (const k of ['timestamp_format', 'delimiter', 'decimal'] as const) if (b[k] === null) clear.push(k);
  return {
    ...(b.name !== undefined ? { name: b.name } : {}),
    ...(b.format !== undefined ? { format: b.format } : {}),
    ...(b.timestamp_column !== undefined ? { timestampColumn: b.timestamp_column } : {}),
    ...(b.timestamp_format ? { timestampFormat: b.timestamp_format } : {}),
    ...(b.time_zone !== undefined ? { timeZone: b.time_zone } : {}),
    ...(b.delimiter ? { delimiter: b.delimiter } : {}),
    ...(b.decimal ? { decimal: b.decimal } : {}),
    columns: (b.columns ?? []).map((c) => ({ column: c.column, pointId: c.point_id, channel: c.channel })),
    columnsSet: b.columns !== undefined,
    clear,
  };
};

/**
 * Import profiles: reading them needs data:read, changing them data:write (a profile decides what
 * is written as data), and project access as for the project's data (a read-only member reads
 * them, 403002 on a change). Uploads need data:write; their rows count against the tenant's
 * data-record limit as they are stored, at the plan's rate (docs/imports.md#rate).
 */
export function importRoutes(router: GatewayRouter, clients: ServiceClients, limits: RateLimits, timeouts: { idleMs: number; totalMs: number }): void {
  const md = clients.monitoringData;
  route(
    router,
    {
      method: 'post',
      path: '/projects/:project_id/import-profiles',
      summary: 'Create an import profile: how the columns of a logger file map to points and channels.',
      tag: 'Data',
      auth: 'api_key_or_bearer',
      permission: 'data:write',
      rateLimit: 'tenant',
      body: createBody,
      response: importProfile,
      errors: ['400003', '422103', '422104', '422204', '422301'],
    },
    async (ctx) => {
      const b = validate(createBody, ctx.state.body ?? {}, 'body');
      ok(ctx, presentProfile(await md.createImportProfile({ ...toInput(b), projectId: ctx.params.project_id! }, ctx.state.caller!)));
    },
  );

  route(
    router,
    {
      method: 'get',
      path: '/projects/:project_id/import-profiles',
      summary: "List a project's import profiles.",
      tag: 'Data',
      auth: 'api_key_or_bearer',
      permission: 'data:read',
      rateLimit: 'tenant',
      query: pageQuery,
      response: z.object({ items: z.array(importProfile), next_cursor: z.string().nullable(), has_more: z.boolean() }),
    },
    async (ctx) => {
      const q = validate(pageQuery, ctx.query, 'query');
      const res = await md.listImportProfiles({ projectId: ctx.params.project_id!, page: pageOf(q) }, ctx.state.caller!);
      ok(ctx, listData(res.items, presentProfile, res.page));
    },
  );

  route(
    router,
    {
      method: 'get',
      path: '/import-profiles/:profile_id',
      summary: 'An import profile.',
      tag: 'Data',
      auth: 'api_key_or_bearer',
      permission: 'data:read',
      rateLimit: 'tenant',
      response: importProfile,
    },
    async (ctx) => {
      ok(ctx, presentProfile(await md.getImportProfile({ id: ctx.params.profile_id! }, ctx.state.caller!)));
    },
  );

  route(
    router,
    {
      method: 'patch',
      path: '/import-profiles/:profile_id',
      summary: 'Change an import profile (only the fields sent; columns replaces every column).',
      tag: 'Data',
      auth: 'api_key_or_bearer',
      permission: 'data:write',
      rateLimit: 'tenant',
      body: patchBody,
      response: importProfile,
      errors: ['400003', '409004', '422103', '422104', '422204', '422301'],
    },
    async (ctx) => {
      const b = validate(patchBody, ctx.state.body ?? {}, 'body');
      ok(
        ctx,
        presentProfile(await md.updateImportProfile({ ...toInput(b), id: ctx.params.profile_id!, ...expectedVersion(ctx, b.version) }, ctx.state.caller!)),
      );
    },
  );

  route(
    router,
    {
      method: 'delete',
      path: '/import-profiles/:profile_id',
      summary: 'Delete an import profile (imports made with it keep their copy of it).',
      tag: 'Data',
      auth: 'api_key_or_bearer',
      permission: 'data:write',
      rateLimit: 'tenant',
      response: importProfile.extend({ deleted: z.literal(true) }),
      errors: ['422301'],
    },
    async (ctx) => {
      ok(ctx, { ...presentProfile(await md.deleteImportProfile({ id: ctx.params.profile_id! }, ctx.state.caller!)), deleted: true as const });
    },
  );

  route(
    router,
    {
      method: 'post',
      path: '/projects/:project_id/data/imports',
      summary: 'Upload a logger file (CSV or TOA5) to be stored through an import profile; answers the import at once.',
      tag: 'Data',
      auth: 'api_key_or_bearer',
      permission: 'data:write',
      rateLimit: 'tenant',
      query: importQuery,
      rawBody: {
        contentTypes: ['text/csv', 'text/plain', 'application/octet-stream'],
        description: 'The file itself, streamed (at most MP_IMPORT_MAX_BYTES, 200 MB by default).',
      },
      response: dataImport,
      errors: ['400005', '404030', '422104', '422301', '422303'],
    },
    async (ctx) => {
      const state = ctx.state;
      const q = validate(importQuery, ctx.query, 'query');
      if (!ctx.is('text/csv', 'text/plain', 'application/octet-stream')) {
        throw new DomainError('400002', {
          field: 'Content-Type',
          detail: `Content-Type must be text/csv; got ${ctx.get('content-type') ? excerpt(ctx.get('content-type')) : 'none'}.`,
          suggestion: 'Send the file itself as the body: curl --data-binary @file.csv -H "Content-Type: text/csv".',
        });
      }
      const caller = state.caller!;
      const declared = ctx.request.length;
      const imp = await md.createImport(
        { projectId: ctx.params.project_id!, profileId: q.profile_id, ...(declared !== undefined ? { declaredBytes: declared } : {}) },
        caller,
      );
      let seq = 0;
      let parts: Buffer[] = [];
      let held = 0;
      const send = async (): Promise<void> => {
        if (!held) return;
        const data = Buffer.concat(parts, held);
        parts = [];
        held = 0;
        await md.appendImportChunk({ id: imp.id, seq: seq++, data }, caller);
      };
      // A large file over a slow link outlasts the request time of other routes: this upload has
      // its own (no byte for idleMs, or totalMs in all), docs/imports.md#uploads.
      exemptFromRequestDeadline(ctx.req);
      try {
        // Each piece is awaited before the next is read: at most a piece and a read are held.
        for await (const piece of uploadPieces(ctx.req, timeouts)) {
          parts.push(piece);
          held += piece.length;
          if (held >= CHUNK_BYTES) await send();
        }
        await send();
      } catch (err) {
        await md.finishImport({ id: imp.id, recordsPerMinute: 0, abandon: true }, caller).catch(() => undefined);
        // the rest of a body that stopped is not waited for: the answer closes the connection
        if (err instanceof DomainError && err.code === '400002') ctx.set('Connection', 'close');
        if (err instanceof DomainError) throw err;
        throw new DomainError('400002', { detail: 'The upload broke off before the end of the file.', suggestion: 'Send the file again.' });
      }
      const perMinute = limits.limitFor('data_records', `${caller.tenantId}:${state.environment}`);
      ok(ctx, presentImport(await md.finishImport({ id: imp.id, recordsPerMinute: perMinute, abandon: false }, caller)));
    },
  );

  route(
    router,
    {
      method: 'get',
      path: '/data/imports/:import_id',
      summary: "An import's progress (rows, stored, duplicates) and its first 1,000 errors by row and column.",
      tag: 'Data',
      auth: 'api_key_or_bearer',
      permission: 'data:read',
      rateLimit: 'tenant',
      response: dataImport,
    },
    async (ctx) => {
      ok(ctx, presentImport(await md.getImport({ id: ctx.params.import_id! }, ctx.state.caller!)));
    },
  );
}
