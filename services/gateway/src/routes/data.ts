import type { Context } from 'koa';
import { z } from 'zod';
import { RECORD_STATUSES, type monitoringData } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import { rateLimitError, rateLimitHeaders, type RateLimits } from '@mp/ratelimit';
import type { ServiceClients } from '../clients.js';
import { ok, okBytes } from '../envelope.js';
import { presentData } from '../presenters-data.js';
import { recordBodies, recordColumns, recordCount, values } from '../record-columns.js';
import { idText, instantText, MAX_ITEMS, MAX_LENGTH, queryInteger, text } from '../bounds.js';
import { expectedVersion, versionField } from './versioning.js';
import { listData, pageOf, pageQuery, validate } from '../validate.js';
import * as api from '../api/resources.js';
import { route, type GatewayRouter } from '../api/route-spec.js';

const listQuery = pageQuery.extend({
  point_id: idText().optional(),
  from: instantText().optional(),
  to: instantText().optional(),
  status: z.enum(RECORD_STATUSES).optional(),
  quality_flag: z.enum(['valid', 'suspect', 'invalid']).optional(),
  order: z.enum(['asc', 'desc']).optional(),
});
const seriesQuery = z.object({
  from: instantText().optional(),
  to: instantText().optional(),
  interval_seconds: queryInteger(1, 31_536_000).optional(),
  buckets: queryInteger(1, 5000).optional(),
  channel: text(MAX_LENGTH.name).optional(),
});
/** `point_id=a,b` or `point_id=a&point_id=b`: at most MAX_ITEMS.pointIds ids in all. */
const pointIdList = text(MAX_ITEMS.pointIds * (MAX_LENGTH.id + 1));
const latestQuery = pageQuery.extend({ point_id: z.union([pointIdList, z.array(pointIdList).max(MAX_ITEMS.pointIds)]).optional() });
const patchBody = z.object({
  values: values.optional(),
  quality_flag: z.enum(['valid', 'suspect', 'invalid']).optional(),
  remark: text(MAX_LENGTH.remark).nullable().optional(),
  version: versionField,
});

/**
 * docs/rules.md#limits: data writes are limited in records, not requests (500 per minute per tenant and
 * environment by default, 429002): a write of n records takes n points, batches included. The
 * X-RateLimit-* headers of the refusal describe this limit.
 */
async function limitRecords(limits: RateLimits, ctx: Context, records: number): Promise<void> {
  const state = ctx.state;
  const verdict = await limits.consume('data_records', `${state.caller!.tenantId}:${state.environment}`, records);
  if (!verdict.allowed) {
    const err = rateLimitError(verdict);
    throw new DomainError(err.code, {
      field: 'records',
      detail: `This write holds ${records} records; ${verdict.remaining} of the ${verdict.limit} data records per minute remain.`,
      suggestion: `Wait ${verdict.retryAfter} s (Retry-After) and send again, or split the records over several minutes.`,
      headers: rateLimitHeaders(verdict),
    });
  }
}

const GEODETIC_KEYS = new Set(['x', 'y', 'z', 'dx', 'dy', 'dz']);
const toValues = (v: z.infer<typeof values>): monitoringData.Values => {
  const out: monitoringData.Values = {};
  const channels: Record<string, number> = {};
  for (const [k, x] of Object.entries(v)) {
    if (x === undefined) continue;
    if (GEODETIC_KEYS.has(k)) out[k as 'x'] = x;
    else channels[k] = x;
  }
  return Object.keys(channels).length ? { ...out, channels: { values: channels } } : out;
};

/**
 * Monitoring data (docs/rules.md#data-writes): writes need data:write, reads data:read; project access
 * (membership) is checked by the services. Writes count their records against the tenant's
 * data-write limit (429002) before they are forwarded.
 */
export function dataRoutes(router: GatewayRouter, clients: ServiceClients, limits: RateLimits): void {
  route(
    router,
    {
      method: 'post',
      path: '/projects/:project_id/data',
      summary: 'Write up to 1,000 monitoring records synchronously.',
      tag: 'Data',
      auth: 'api_key_or_bearer',
      permission: 'data:write',
      rateLimit: 'tenant',
      body: recordBodies.write,
      response: api.dataWritten,
      errors: ['404003', '409003', '422104', '422201', '422202', '422203', '422204', '422205', '422301', '422303', '429002'],
      idempotent: true,
    },
    async (ctx) => {
      const state = ctx.state;
      const columns = recordColumns('write', (state.body ?? {}) as Record<string, unknown>);
      await limitRecords(limits, ctx, recordCount(columns));
      const projectId = ctx.params.project_id!;
      const res = await clients.monitoringData.writeRecords({ projectId, records: columns }, state.caller!);
      // about 130 bytes per record
      okBytes(ctx, 256 + res.dataId.length * 160, (w) => presentData.written(w, projectId, columns, res));
    },
  );

  route(
    router,
    {
      method: 'post',
      path: '/projects/:project_id/data/batches',
      summary: 'Upload up to 100,000 records as a batch processed in the background.',
      tag: 'Data',
      auth: 'api_key_or_bearer',
      permission: 'data:write',
      feature: 'data_batches',
      rateLimit: 'tenant',
      body: recordBodies.batch,
      response: api.batch,
      errors: ['403004', '422301', '422303', '429002'],
      idempotent: true,
    },
    async (ctx) => {
      const state = ctx.state;
      const records = recordColumns('batch', (state.body ?? {}) as Record<string, unknown>);
      await limitRecords(limits, ctx, recordCount(records));
      ok(ctx, presentData.batch(await clients.monitoringData.createBatch({ projectId: ctx.params.project_id!, records }, state.caller!)));
    },
  );

  route(
    router,
    {
      method: 'get',
      path: '/data/batches/:batch_id',
      summary: "A batch's progress and its rejected records (paged).",
      tag: 'Data',
      auth: 'api_key_or_bearer',
      permission: 'data:read',
      rateLimit: 'tenant',
      query: pageQuery,
      response: api.batch,
    },
    async (ctx) => {
      const state = ctx.state;
      const q = validate(pageQuery, ctx.query, 'query');
      ok(ctx, presentData.batch(await clients.monitoringData.getBatch({ id: ctx.params.batch_id!, errorsPage: pageOf(q) }, state.caller!)));
    },
  );

  route(
    router,
    {
      method: 'get',
      path: '/projects/:project_id/data/latest',
      summary: 'The latest record of each point of a project.',
      tag: 'Data',
      auth: 'api_key_or_bearer',
      permission: 'data:read',
      rateLimit: 'tenant',
      query: latestQuery,
      response: api.listOf(api.dataRecord),
    },
    async (ctx) => {
      const state = ctx.state;
      const q = validate(latestQuery, ctx.query, 'query');
      const pointIds = (Array.isArray(q.point_id) ? q.point_id : q.point_id ? [q.point_id] : []).flatMap((p) => p.split(',')).filter(Boolean);
      if (pointIds.length > MAX_ITEMS.pointIds) {
        throw new DomainError('400003', {
          field: 'point_id',
          detail: `point_id names at most ${MAX_ITEMS.pointIds} points.`,
          suggestion: 'Ask for the points in several requests, or leave point_id out for every point (paged).',
        });
      }
      const list = await clients.monitoringData.getLatest({ projectId: ctx.params.project_id!, pointIds, page: pageOf(q) }, state.caller!);
      ok(ctx, listData(list.items, presentData.record, list.page));
    },
  );

  const list = (by: 'project' | 'point') => async (ctx: Context) => {
    const state = ctx.state;
    const q = validate(listQuery, ctx.query, 'query');
    const pointId = by === 'point' ? ctx.params.point_id! : q.point_id;
    const res = await clients.monitoringData.listRecords(
      {
        ...(by === 'project' ? { projectId: ctx.params.project_id! } : {}),
        ...(pointId !== undefined ? { pointId } : {}),
        ...(q.from !== undefined ? { from: q.from } : {}),
        ...(q.to !== undefined ? { to: q.to } : {}),
        ...(q.status !== undefined ? { status: q.status } : {}),
        ...(q.quality_flag !== undefined ? { qualityFlag: q.quality_flag } : {}),
        ...(q.order !== undefined ? { order: q.order } : {}),
        page: pageOf(q),
      },
      state.caller!,
    );
    ok(ctx, listData(res.items, presentData.record, res.page));
  };
  route(
    router,
    {
      method: 'get',
      path: '/projects/:project_id/data',
      summary: "List a project's records.",
      tag: 'Data',
      auth: 'api_key_or_bearer',
      permission: 'data:read',
      rateLimit: 'tenant',
      query: listQuery,
      response: api.listOf(api.dataRecord),
    },
    list('project'),
  );
  route(
    router,
    {
      method: 'get',
      path: '/points/:point_id/data',
      summary: "List a point's records.",
      tag: 'Data',
      auth: 'api_key_or_bearer',
      permission: 'data:read',
      rateLimit: 'tenant',
      query: listQuery,
      response: api.listOf(api.dataRecord),
    },
    list('point'),
  );

  route(
    router,
    {
      method: 'get',
      path: '/points/:point_id/series',
      summary:
        "A point's readings aggregated into time buckets (min, avg, max): dx, dy, dz of a geodetic point, or one channel with its unit (`channel`, the primary one of an instrument by default).",
      tag: 'Data',
      auth: 'api_key_or_bearer',
      permission: 'data:read',
      rateLimit: 'tenant',
      query: seriesQuery,
      response: api.series,
    },
    async (ctx) => {
      const state = ctx.state;
      const q = validate(seriesQuery, ctx.query, 'query');
      const series = await clients.monitoringData.getSeries(
        {
          pointId: ctx.params.point_id!,
          ...(q.from !== undefined ? { from: q.from } : {}),
          ...(q.to !== undefined ? { to: q.to } : {}),
          ...(q.interval_seconds !== undefined ? { intervalSeconds: q.interval_seconds } : {}),
          ...(q.buckets !== undefined ? { buckets: q.buckets } : {}),
          ...(q.channel !== undefined ? { channel: q.channel } : {}),
        },
        state.caller!,
      );
      ok(ctx, presentData.series(series));
    },
  );

  route(
    router,
    {
      method: 'get',
      path: '/data/:data_id',
      summary: 'One monitoring record.',
      tag: 'Data',
      auth: 'api_key_or_bearer',
      permission: 'data:read',
      rateLimit: 'tenant',
      response: api.dataRecord,
    },
    async (ctx) => {
      const state = ctx.state;
      ok(ctx, presentData.record(await clients.monitoringData.getRecord({ id: ctx.params.data_id! }, state.caller!)));
    },
  );

  route(
    router,
    {
      method: 'patch',
      path: '/data/:data_id',
      summary: "Correct a record's values, quality flag or remark.",
      tag: 'Data',
      auth: 'api_key_or_bearer',
      permission: 'data:write',
      rateLimit: 'tenant',
      body: patchBody,
      response: api.dataRecord,
      errors: ['409004', '422203', '422204', '422301'],
    },
    async (ctx) => {
      const state = ctx.state;
      const b = validate(patchBody, state.body ?? {}, 'body');
      const updated = await clients.monitoringData.updateRecord(
        {
          id: ctx.params.data_id!,
          ...expectedVersion(ctx, b.version),
          ...(b.values !== undefined ? { values: toValues(b.values) } : {}),
          ...(b.quality_flag !== undefined ? { qualityFlag: b.quality_flag } : {}),
          ...(typeof b.remark === 'string' ? { remark: b.remark } : {}),
          clear: b.remark === null ? ['remark'] : [],
        },
        state.caller!,
      );
      ok(ctx, presentData.record(updated));
    },
  );

  route(
    router,
    {
      method: 'delete',
      path: '/data/:data_id',
      summary: 'Delete a monitoring record.',
      tag: 'Data',
      auth: 'api_key_or_bearer',
      permission: 'data:write',
      rateLimit: 'tenant',
      response: api.deleted(api.dataRecord),
      errors: ['409004', '422301'],
      ifMatch: true,
    },
    async (ctx) => {
      const state = ctx.state;
      const deleted = await clients.monitoringData.deleteRecord({ id: ctx.params.data_id!, ...expectedVersion(ctx, undefined) }, state.caller!);
      ok(ctx, { ...presentData.record(deleted), deleted: true });
    },
  );
}
