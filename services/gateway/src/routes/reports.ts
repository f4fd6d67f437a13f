import { Readable } from 'node:stream';
import Router from '@koa/router';
import type { Middleware } from 'koa';
import { z } from 'zod';
import type { RateLimits } from '@mp/ratelimit';
import type { ServiceClients } from '../clients.js';
import { ok } from '../envelope.js';
import { consumeTenantLimit } from '../middleware/rate-limit.js';
import { requireFeature } from '../middleware/authenticate.js';
import { presentReports as present } from '../presenters-reports.js';
import { enumText, idText, instantText, MAX_LENGTH, text } from '../bounds.js';
import type { GatewayState } from '../state.js';
import { listData, pageOf, pageQuery, validate } from '../validate.js';
import { defined, expectedVersion, nulls, okVersioned, versionField } from './versioning.js';

/** Points a template names at most (the reports service's bound, 400003). */
const MAX_TEMPLATE_POINTS = 500;
/** Bytes asked of the reports service per piece of a downloaded document (its maximum). */
const FILE_CHUNK = 4 * 1024 * 1024;

// Values (sections, formats, ids, the period) are checked by the reports service: 422103 for an
// unknown section or format, 400004 for a malformed id or time, 422204 for to not after from.
const templateBody = z.object({
  name: text(MAX_LENGTH.name),
  description: text(MAX_LENGTH.description).optional(),
  sections: z.array(enumText()).max(10),
  point_ids: z.array(idText()).max(MAX_TEMPLATE_POINTS).optional(),
  formats: z.array(enumText()).max(10).optional(),
});
const templatePatch = z.object({
  name: text(MAX_LENGTH.name).optional(),
  description: text(MAX_LENGTH.description).nullable().optional(),
  sections: z.array(enumText()).max(10).optional(),
  point_ids: z.array(idText()).max(MAX_TEMPLATE_POINTS).nullable().optional(),
  formats: z.array(enumText()).max(10).optional(),
  version: versionField,
});
const TEMPLATE_CLEARABLE = ['description', 'point_ids'] as const;

const generateBody = z.object({
  template_id: idText(),
  from: instantText(),
  to: instantText(),
  title: text(200).optional(),
  time_zone: text(MAX_LENGTH.identifier).optional(),
});
const listQuery = pageQuery.extend({ project_id: idText().optional(), status: enumText().optional() });
const fileQuery = z.object({ format: z.enum(['pdf', 'csv', 'xlsx']) });
const approveBody = z.object({ comment: text(2000).optional() });
const rejectBody = z.object({ reason: text(2000) });

/**
 * Templates and reports (issue 15): reading needs report:read, changing templates, generating and
 * reviewing need report:write; generating also needs the plan's `reports` feature (403004) and
 * counts against the tenant's report limit (429003, 10 per hour by default) before it is
 * forwarded, so a refused generation stores nothing.
 */
export function reportRoutes(router: Router, clients: ServiceClients, can: (p: string) => Middleware, limits: RateLimits): void {
  router.post('/templates', can('report:write'), async (ctx) => {
    const state = ctx.state as GatewayState;
    const b = validate(templateBody, state.body ?? {}, 'body');
    const template = await clients.reports.createTemplate(
      { name: b.name, sections: b.sections, pointIds: b.point_ids ?? [], formats: b.formats ?? [], ...defined({ description: b.description }) },
      state.caller!,
    );
    okVersioned(ctx, present.template(template));
  });

  router.get('/templates', can('report:read'), async (ctx) => {
    const state = ctx.state as GatewayState;
    const q = validate(pageQuery, ctx.query, 'query');
    const list = await clients.reports.listTemplates({ page: pageOf(q) }, state.caller!);
    ok(ctx, listData(list.items, present.template, list.page));
  });

  router.get('/templates/:template_id', can('report:read'), async (ctx) => {
    const state = ctx.state as GatewayState;
    okVersioned(ctx, present.template(await clients.reports.getTemplate({ id: ctx.params.template_id! }, state.caller!)));
  });

  router.patch('/templates/:template_id', can('report:write'), async (ctx) => {
    const state = ctx.state as GatewayState;
    const raw = (state.body ?? {}) as Record<string, unknown>;
    const b = validate(templatePatch, raw, 'body');
    const template = await clients.reports.updateTemplate(
      {
        id: ctx.params.template_id!,
        ...expectedVersion(ctx, b.version),
        ...defined({ name: b.name, description: b.description }),
        ...(b.sections ? { sections: { values: b.sections } } : {}),
        ...(b.point_ids ? { pointIds: { values: b.point_ids } } : {}),
        ...(b.formats ? { formats: { values: b.formats } } : {}),
        clear: nulls(raw, TEMPLATE_CLEARABLE),
      },
      state.caller!,
    );
    okVersioned(ctx, present.template(template));
  });

  router.delete('/templates/:template_id', can('report:write'), async (ctx) => {
    const state = ctx.state as GatewayState;
    const b = validate(z.object({ version: versionField }), state.body ?? {}, 'body');
    const deleted = await clients.reports.deleteTemplate({ id: ctx.params.template_id!, ...expectedVersion(ctx, b.version) }, state.caller!);
    ok(ctx, { ...present.template(deleted), deleted: true });
  });

  router.post('/projects/:project_id/reports', can('report:write'), requireFeature('reports'), async (ctx) => {
    const state = ctx.state as GatewayState;
    const b = validate(generateBody, state.body ?? {}, 'body');
    await consumeTenantLimit(ctx, limits, 'reports');
    const report = await clients.reports.generateReport(
      { projectId: ctx.params.project_id!, templateId: b.template_id, from: b.from, to: b.to, ...defined({ title: b.title, timeZone: b.time_zone }) },
      state.caller!,
    );
    ok(ctx, present.report(report));
  });

  router.get('/reports', can('report:read'), async (ctx) => {
    const state = ctx.state as GatewayState;
    const q = validate(listQuery, ctx.query, 'query');
    const list = await clients.reports.listReports({ page: pageOf(q), ...defined({ projectId: q.project_id, status: q.status }) }, state.caller!);
    ok(ctx, listData(list.items, present.report, list.page));
  });

  router.get('/reports/:report_id', can('report:read'), async (ctx) => {
    const state = ctx.state as GatewayState;
    ok(ctx, present.report(await clients.reports.getReport({ id: ctx.params.report_id! }, state.caller!)));
  });

  // The document itself, not an envelope. The first piece is read before anything is sent, so a
  // refusal (unknown report, no such format, not generated yet) is still an error envelope.
  router.get('/reports/:report_id/file', can('report:read'), async (ctx) => {
    const state = ctx.state as GatewayState;
    const q = validate(fileQuery, ctx.query, 'query');
    const reportId = ctx.params.report_id!;
    const read = (offset: number) => clients.reports.readReportFile({ reportId, format: q.format, offset, length: FILE_CHUNK }, state.caller!);
    const first = await read(0);
    const etag = `"${first.sha256}"`;
    ctx.set('ETag', etag);
    ctx.set('Content-Disposition', `attachment; filename="${first.fileName}"`);
    ctx.set('Cache-Control', 'private, no-cache');
    if (ctx.get('if-none-match') === etag) {
      ctx.status = 304;
      return;
    }
    ctx.status = 200;
    ctx.type = first.contentType;
    ctx.length = first.sizeBytes;
    ctx.body = Readable.from(
      (async function* () {
        let offset = first.data.length;
        yield Buffer.from(first.data);
        while (offset < first.sizeBytes) {
          const next = await read(offset);
          if (!next.data.length || next.sha256 !== first.sha256) throw new Error(`report ${reportId} ${q.format} changed or ended while it was sent`);
          offset += next.data.length;
          yield Buffer.from(next.data);
        }
      })(),
    );
  });

  router.post('/reports/:report_id/approve', can('report:write'), async (ctx) => {
    const state = ctx.state as GatewayState;
    const b = validate(approveBody, state.body ?? {}, 'body');
    ok(ctx, present.report(await clients.reports.approveReport({ id: ctx.params.report_id!, ...defined({ text: b.comment }) }, state.caller!)));
  });

  router.post('/reports/:report_id/reject', can('report:write'), async (ctx) => {
    const state = ctx.state as GatewayState;
    const b = validate(rejectBody, state.body ?? {}, 'body');
    ok(ctx, present.report(await clients.reports.rejectReport({ id: ctx.params.report_id!, text: b.reason }, state.caller!)));
  });
}
