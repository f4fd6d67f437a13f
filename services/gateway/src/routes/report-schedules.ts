import { z } from 'zod';
import * as api from '../api/resources.js';
import { route, type GatewayRouter } from '../api/route-spec.js';
import { idText, MAX_LENGTH, text, timeZoneText } from '../bounds.js';
import type { ServiceClients } from '../clients.js';
import { ok } from '../envelope.js';
import { presentReports as present } from '../presenters-reports.js';
import { listData, pageOf, pageQuery, validate } from '../validate.js';
import { readsTheData } from './report-access.js';
import { defined } from './versioning.js';

/** Addresses a schedule mails (the reports service's bound, 400003). */
const MAX_RECIPIENTS = 20;

const scheduleBody = z.object({
  template_id: idText(),
  frequency: text(MAX_LENGTH.enumerated).meta({ enum: ['weekly', 'monthly'] }),
  recipients: z
    .array(z.object({ email: text(254) }))
    .max(MAX_RECIPIENTS)
    .optional(),
  time_zone: timeZoneText().optional(),
});

/**
 * Scheduled reports (ADR 0109): a template's report of a project every week (Monday to Monday) or
 * month, asked for by the scheduler when the period ends in the schedule's time zone, and mailed
 * to its recipients once generated where the platform has mail configured. Creating one needs
 * what generating a report needs (report:write, the plan's reports feature, project:read and
 * data:read); its reports are made as the person who created it.
 */
export function reportScheduleRoutes(router: GatewayRouter, clients: ServiceClients): void {
  route(
    router,
    {
      method: 'post',
      path: '/projects/:project_id/report-schedules',
      summary: "Schedule a template's report of the project every week or month; the first covers the current week or month.",
      tag: 'Reports',
      auth: 'api_key_or_bearer',
      permission: 'report:write',
      feature: 'reports',
      rateLimit: 'tenant',
      body: scheduleBody,
      response: api.reportSchedule,
      errors: ['404006', '422103', '422105'],
      idempotent: true,
    },
    ...readsTheData,
    async (ctx) => {
      const state = ctx.state;
      const b = validate(scheduleBody, state.body ?? {}, 'body');
      const tenantName = (await clients.identity.getMe({}, state.caller!)).tenantName;
      const schedule = await clients.reports.createReportSchedule(
        {
          projectId: ctx.params.project_id!,
          templateId: b.template_id,
          frequency: b.frequency,
          recipients: (b.recipients ?? []).map((r) => r.email),
          tenantName,
          ...defined({ timeZone: b.time_zone }),
        },
        state.caller!,
      );
      ok(ctx, present.schedule(schedule));
    },
  );

  route(
    router,
    {
      method: 'get',
      path: '/projects/:project_id/report-schedules',
      summary: 'List the report schedules of a project, newest first.',
      tag: 'Reports',
      auth: 'api_key_or_bearer',
      permission: 'report:read',
      rateLimit: 'tenant',
      query: pageQuery,
      response: api.listOf(api.reportSchedule),
    },
    async (ctx) => {
      const state = ctx.state;
      const q = validate(pageQuery, ctx.query, 'query');
      const list = await clients.reports.listReportSchedules({ projectId: ctx.params.project_id!, page: pageOf(q) }, state.caller!);
      ok(ctx, listData(list.items, present.schedule, list.page));
    },
  );

  route(
    router,
    {
      method: 'get',
      path: '/report-schedules/:schedule_id',
      summary: 'One report schedule: when it next asks for a report, and its last report.',
      tag: 'Reports',
      auth: 'api_key_or_bearer',
      permission: 'report:read',
      rateLimit: 'tenant',
      response: api.reportSchedule,
      errors: ['404018'],
    },
    async (ctx) => {
      const state = ctx.state;
      ok(ctx, present.schedule(await clients.reports.getReportSchedule({ id: ctx.params.schedule_id! }, state.caller!)));
    },
  );

  route(
    router,
    {
      method: 'delete',
      path: '/report-schedules/:schedule_id',
      summary: 'Delete a report schedule; the reports it asked for stay.',
      tag: 'Reports',
      auth: 'api_key_or_bearer',
      permission: 'report:write',
      rateLimit: 'tenant',
      response: api.deleted(api.reportSchedule),
      errors: ['404018'],
    },
    async (ctx) => {
      const state = ctx.state;
      const deleted = await clients.reports.deleteReportSchedule({ id: ctx.params.schedule_id! }, state.caller!);
      ok(ctx, { ...present.schedule(deleted), deleted: true });
    },
  );
}
