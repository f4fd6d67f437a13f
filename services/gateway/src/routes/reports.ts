import { z } from 'zod';
import { REPORT_FORMATS, REPORT_SECTIONS, REPORT_STATUSES, REPORT_TRANSITIONS } from '@mp/contracts';
import * as api from '../api/resources.js';
import { route, type GatewayRouter } from '../api/route-spec.js';
import type { RateLimits } from '@mp/ratelimit';
import type { ServiceClients } from '../clients.js';
import { ok } from '../envelope.js';
import { countIfAccepted } from '../middleware/rate-limit.js';
import { readsTheData } from './report-access.js';
import { pacedBody } from '../paced-body.js';
import { presentReports as present } from '../presenters-reports.js';
import { enumText, idText, instantText, MAX_LENGTH, text, timeZoneText } from '../bounds.js';
import { reportScheduleRoutes } from './report-schedules.js';
import { tenantLogoRoutes } from './tenant-logo.js';
import { listData, pageOf, pageQuery, validate } from '../validate.js';
import { defined, expectedVersion, nulls, okVersioned, versionField } from './versioning.js';

/** Points a template names at most (the reports service's bound, 400003). */
const MAX_TEMPLATE_POINTS = 500;
/**
 * Bytes asked of the reports service per piece of a downloaded document: one stored part, which
 * is what a download holds in memory at most (paced-body.ts).
 */
const FILE_CHUNK = 1024 * 1024;

// Values (sections, formats, ids, the period) are checked by the reports service: 422103 for an
// unknown section or format, 400004 for a malformed id or time, 422204 for to not after from.
const templateBody = z.object({
  name: text(MAX_LENGTH.name),
  description: text(MAX_LENGTH.description).optional(),
  sections: z.array(enumText(REPORT_SECTIONS)).max(10),
  point_ids: z.array(idText()).max(MAX_TEMPLATE_POINTS).optional(),
  formats: z.array(enumText(REPORT_FORMATS)).max(10).optional(),
  time_zone: timeZoneText().optional(),
});
const templatePatch = z.object({
  name: text(MAX_LENGTH.name).optional(),
  description: text(MAX_LENGTH.description).nullable().optional(),
  sections: z.array(enumText(REPORT_SECTIONS)).max(10).optional(),
  point_ids: z.array(idText()).max(MAX_TEMPLATE_POINTS).nullable().optional(),
  formats: z.array(enumText(REPORT_FORMATS)).max(10).optional(),
  time_zone: timeZoneText().nullable().optional(),
  version: versionField,
});
const TEMPLATE_CLEARABLE = ['description', 'point_ids', 'time_zone'] as const;

const generateBody = z.object({
  template_id: idText(),
  from: instantText(),
  to: instantText(),
  title: text(200).optional(),
  time_zone: timeZoneText().optional(),
});
const listQuery = pageQuery.extend({ project_id: idText().optional(), status: enumText(REPORT_STATUSES).optional() });
const fileQuery = z.object({ format: z.enum(['pdf', 'csv', 'xlsx']) });
const approveBody = z.object({ comment: text(2000).optional() });
const rejectBody = z.object({ reason: text(2000) });

/**
 * Templates and reports: reading needs report:read, changing templates, generating and reviewing
 * need report:write; generating also needs the plan's `reports` feature (403004) and counts
 * against the tenant's report limit (429003, 10 per hour by default) only when the reports service
 * accepts it, so a refused generation neither stores anything nor uses up the limit.
 */
export function reportRoutes(router: GatewayRouter, clients: ServiceClients, limits: RateLimits): void {
  route(
    router,
    {
      method: 'post',
      path: '/templates',
      summary: 'Create a report template: the sections, points and formats its reports have.',
      tag: 'Reports',
      auth: 'api_key_or_bearer',
      permission: 'report:write',
      rateLimit: 'tenant',
      body: templateBody,
      response: api.template,
      errors: ['422103'],
      idempotent: true,
    },
    async (ctx) => {
      const state = ctx.state;
      const b = validate(templateBody, state.body ?? {}, 'body');
      const template = await clients.reports.createTemplate(
        {
          name: b.name,
          sections: b.sections,
          pointIds: b.point_ids ?? [],
          formats: b.formats ?? [],
          ...defined({ description: b.description, timeZone: b.time_zone }),
        },
        state.caller!,
      );
      okVersioned(ctx, present.template(template));
    },
  );

  route(
    router,
    {
      method: 'get',
      path: '/templates',
      summary: 'List the report templates of this tenant and environment.',
      tag: 'Reports',
      auth: 'api_key_or_bearer',
      permission: 'report:read',
      rateLimit: 'tenant',
      query: pageQuery,
      response: api.listOf(api.template),
    },
    async (ctx) => {
      const state = ctx.state;
      const q = validate(pageQuery, ctx.query, 'query');
      const list = await clients.reports.listTemplates({ page: pageOf(q) }, state.caller!);
      ok(ctx, listData(list.items, present.template, list.page));
    },
  );

  route(
    router,
    {
      method: 'get',
      path: '/templates/:template_id',
      summary: 'One report template.',
      tag: 'Reports',
      auth: 'api_key_or_bearer',
      permission: 'report:read',
      rateLimit: 'tenant',
      response: api.template,
    },
    async (ctx) => {
      const state = ctx.state;
      okVersioned(ctx, present.template(await clients.reports.getTemplate({ id: ctx.params.template_id! }, state.caller!)));
    },
  );

  route(
    router,
    {
      method: 'patch',
      path: '/templates/:template_id',
      summary: 'Change a report template (`version` or If-Match guards against lost updates); null clears description or point_ids.',
      tag: 'Reports',
      auth: 'api_key_or_bearer',
      permission: 'report:write',
      rateLimit: 'tenant',
      body: templatePatch,
      response: api.template,
      errors: ['409004', '422103'],
    },
    async (ctx) => {
      const state = ctx.state;
      const raw = (state.body ?? {}) as Record<string, unknown>;
      const b = validate(templatePatch, raw, 'body');
      const template = await clients.reports.updateTemplate(
        {
          id: ctx.params.template_id!,
          ...expectedVersion(ctx, b.version),
          ...defined({ name: b.name, description: b.description, timeZone: b.time_zone }),
          ...(b.sections ? { sections: { values: b.sections } } : {}),
          ...(b.point_ids ? { pointIds: { values: b.point_ids } } : {}),
          ...(b.formats ? { formats: { values: b.formats } } : {}),
          clear: nulls(raw, TEMPLATE_CLEARABLE),
        },
        state.caller!,
      );
      okVersioned(ctx, present.template(template));
    },
  );

  route(
    router,
    {
      method: 'delete',
      path: '/templates/:template_id',
      summary: 'Delete a report template; reports made from it stay.',
      tag: 'Reports',
      auth: 'api_key_or_bearer',
      permission: 'report:write',
      rateLimit: 'tenant',
      body: z.object({ version: versionField }),
      response: api.deleted(api.template),
      errors: ['409004'],
    },
    async (ctx) => {
      const state = ctx.state;
      const b = validate(z.object({ version: versionField }), state.body ?? {}, 'body');
      const deleted = await clients.reports.deleteTemplate({ id: ctx.params.template_id!, ...expectedVersion(ctx, b.version) }, state.caller!);
      ok(ctx, { ...present.template(deleted), deleted: true });
    },
  );

  route(
    router,
    {
      method: 'post',
      path: '/projects/:project_id/reports',
      summary:
        'Generate a report of a project for a period: answered at once with status `generating`; the documents are made in the background and `report.generated` follows.',
      tag: 'Reports',
      auth: 'api_key_or_bearer',
      permission: 'report:write',
      feature: 'reports',
      rateLimit: 'tenant',
      body: generateBody,
      response: api.report,
      errors: ['403004', '404006', '422103', '422204', '429003'],
      idempotent: true,
    },
    ...readsTheData,
    async (ctx) => {
      const state = ctx.state;
      const b = validate(generateBody, state.body ?? {}, 'body');
      // The documents are headed with the tenant's name, which identity keeps.
      const tenantName = (await clients.identity.getMe({}, state.caller!)).tenantName;
      const report = await countIfAccepted(ctx, limits, 'reports', () =>
        clients.reports.generateReport(
          {
            projectId: ctx.params.project_id!,
            templateId: b.template_id,
            from: b.from,
            to: b.to,
            tenantName,
            ...defined({ title: b.title, timeZone: b.time_zone }),
          },
          state.caller!,
        ),
      );
      ok(ctx, present.report(report));
    },
  );

  route(
    router,
    {
      method: 'get',
      path: '/reports',
      summary: 'List reports, newest first (filters: project_id, status).',
      tag: 'Reports',
      auth: 'api_key_or_bearer',
      permission: 'report:read',
      rateLimit: 'tenant',
      query: listQuery,
      response: api.listOf(api.report),
    },
    async (ctx) => {
      const state = ctx.state;
      const q = validate(listQuery, ctx.query, 'query');
      const list = await clients.reports.listReports({ page: pageOf(q), ...defined({ projectId: q.project_id, status: q.status }) }, state.caller!);
      ok(ctx, listData(list.items, present.report, list.page));
    },
  );

  route(
    router,
    {
      method: 'get',
      path: '/reports/:report_id',
      summary: 'One report: status, files with size and sha256, data as of, review.',
      tag: 'Reports',
      auth: 'api_key_or_bearer',
      permission: 'report:read',
      rateLimit: 'tenant',
      response: api.report,
    },
    async (ctx) => {
      const state = ctx.state;
      ok(ctx, present.report(await clients.reports.getReport({ id: ctx.params.report_id! }, state.caller!)));
    },
  );

  // The document itself, not an envelope. The first piece is read before anything is sent, so a
  // refusal (unknown report, no such format, not generated yet) is still an error envelope.
  route(
    router,
    {
      method: 'get',
      path: '/reports/:report_id/file',
      summary: 'Download one document of a generated report (format pdf, csv or xlsx); ETag is its sha256.',
      tag: 'Reports',
      auth: 'api_key_or_bearer',
      permission: 'report:read',
      rateLimit: 'tenant',
      query: fileQuery,
      answer: 'file',
      errors: ['409011'],
    },
    ...readsTheData,
    async (ctx) => {
      const state = ctx.state;
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
      ctx.body = pacedBody(ctx.res, Buffer.from(first.data), async (offset) => {
        if (offset >= first.sizeBytes) return null;
        const next = await read(offset);
        if (!next.data.length || next.sha256 !== first.sha256) throw new Error(`report ${reportId} ${q.format} changed or ended while it was sent`);
        return Buffer.from(next.data);
      });
    },
  );

  route(
    router,
    {
      method: 'post',
      path: '/reports/:report_id/approve',
      summary: 'Approve a generated report, with an optional comment; raises `report.approved`.',
      tag: 'Reports',
      auth: 'api_key_or_bearer',
      permission: 'report:write',
      rateLimit: 'tenant',
      body: approveBody,
      response: api.report,
      errors: ['409011'],
      transitions: { field: 'status', table: REPORT_TRANSITIONS },
    },
    async (ctx) => {
      const state = ctx.state;
      const b = validate(approveBody, state.body ?? {}, 'body');
      ok(ctx, present.report(await clients.reports.approveReport({ id: ctx.params.report_id!, ...defined({ text: b.comment }) }, state.caller!)));
    },
  );

  route(
    router,
    {
      method: 'post',
      path: '/reports/:report_id/reject',
      summary: 'Reject a generated report, with a reason; raises `report.rejected`.',
      tag: 'Reports',
      auth: 'api_key_or_bearer',
      permission: 'report:write',
      rateLimit: 'tenant',
      body: rejectBody,
      response: api.report,
      errors: ['409011'],
      transitions: { field: 'status', table: REPORT_TRANSITIONS },
    },
    async (ctx) => {
      const state = ctx.state;
      const b = validate(rejectBody, state.body ?? {}, 'body');
      ok(ctx, present.report(await clients.reports.rejectReport({ id: ctx.params.report_id!, text: b.reason }, state.caller!)));
    },
  );

  reportScheduleRoutes(router, clients);
  tenantLogoRoutes(router, clients);
}
