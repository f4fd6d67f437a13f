import { z } from 'zod';
import { ALARM_LEVELS, ALARM_STATUSES, alarmStepTransitions } from '@mp/contracts';
import type { ServiceClients } from '../clients.js';
import { idText, instantText, MAX_LENGTH, text } from '../bounds.js';
import { ok } from '../envelope.js';
import { presentAlarms } from '../presenters-alarms.js';
import { listData, pageOf, pageQuery, validate } from '../validate.js';
import * as api from '../api/resources.js';
import { route, type GatewayRouter } from '../api/route-spec.js';
import { defined } from './versioning.js';

const listQuery = pageQuery.extend({
  status: z.enum(ALARM_STATUSES).optional(),
  level: z.enum(ALARM_LEVELS).optional(),
  point_id: idText().optional(),
  from: instantText().optional(),
  to: instantText().optional(),
});
/**
 * The inbox (ADR 0087) takes the project list's filters and the project: a project the caller does
 * not read lists nothing, as GET /projects does, rather than saying it exists.
 */
const inboxQuery = listQuery.extend({ project_id: idText().optional() });
const changeBody = z.object({ comment: text(MAX_LENGTH.remark).optional() });

/**
 * Alarms (docs/rules.md#alarm-lifecycle, docs/adr/0024-alarms.md, 0087): reading them needs data:read,
 * acknowledging and clearing data:write; project membership (403001/403002) and the tenant are
 * checked by the monitoring-data service, as for data records; the tenant-wide inbox lists only
 * alarms of the projects the caller reads.
 */
export function alarmRoutes(router: GatewayRouter, clients: ServiceClients): void {
  route(
    router,
    {
      method: 'get',
      path: '/projects/:project_id/alarms',
      summary: "List a project's alarms.",
      tag: 'Alarms',
      auth: 'api_key_or_bearer',
      permission: 'data:read',
      rateLimit: 'tenant',
      query: listQuery,
      response: api.listOf(api.alarm),
    },
    async (ctx) => {
      const state = ctx.state;
      const q = validate(listQuery, ctx.query, 'query');
      const list = await clients.monitoringData.listAlarms(
        {
          projectId: ctx.params.project_id!,
          ...(q.status !== undefined ? { status: q.status } : {}),
          ...(q.level !== undefined ? { level: q.level } : {}),
          ...(q.point_id !== undefined ? { pointId: q.point_id } : {}),
          ...(q.from !== undefined ? { from: q.from } : {}),
          ...(q.to !== undefined ? { to: q.to } : {}),
          page: pageOf(q),
        },
        state.caller!,
      );
      ok(ctx, listData(list.items, presentAlarms.alarm, list.page));
    },
  );

  route(
    router,
    {
      method: 'get',
      path: '/alarms',
      summary: "The tenant's alarm inbox: alarms of every project the caller reads, newest opened first.",
      tag: 'Alarms',
      auth: 'api_key_or_bearer',
      permission: 'data:read',
      rateLimit: 'tenant',
      query: inboxQuery,
      response: api.listOf(api.alarm),
    },
    async (ctx) => {
      const state = ctx.state;
      const q = validate(inboxQuery, ctx.query, 'query');
      const list = await clients.monitoringData.listTenantAlarms(
        {
          ...defined({ status: q.status, level: q.level, projectId: q.project_id, pointId: q.point_id, from: q.from, to: q.to }),
          page: pageOf(q),
        },
        state.caller!,
      );
      ok(ctx, listData(list.items, presentAlarms.alarm, list.page));
    },
  );

  route(
    router,
    {
      method: 'get',
      path: '/alarms/:alarm_id',
      summary: 'One alarm with its history.',
      tag: 'Alarms',
      auth: 'api_key_or_bearer',
      permission: 'data:read',
      rateLimit: 'tenant',
      response: api.alarmWithHistory,
    },
    async (ctx) => {
      const state = ctx.state;
      ok(ctx, presentAlarms.withHistory(await clients.monitoringData.getAlarm({ id: ctx.params.alarm_id! }, state.caller!)));
    },
  );

  for (const step of ['acknowledge', 'clear'] as const) {
    route(
      router,
      {
        method: 'post',
        path: `/alarms/:alarm_id/${step}`,
        summary: step === 'acknowledge' ? 'Acknowledge an open alarm.' : 'Clear an alarm by hand.',
        tag: 'Alarms',
        auth: 'api_key_or_bearer',
        permission: 'data:write',
        rateLimit: 'tenant',
        body: changeBody,
        response: api.alarmWithHistory,
        errors: ['409004', '409010'],
        transitions: { field: 'status', table: alarmStepTransitions(step) },
      },
      async (ctx) => {
        const state = ctx.state;
        const b = validate(changeBody, state.body ?? {}, 'body');
        const req = { id: ctx.params.alarm_id!, ...(b.comment !== undefined ? { comment: b.comment } : {}) };
        const alarm =
          step === 'acknowledge'
            ? await clients.monitoringData.acknowledgeAlarm(req, state.caller!)
            : await clients.monitoringData.clearAlarm(req, state.caller!);
        ok(ctx, presentAlarms.withHistory(alarm));
      },
    );
  }
}
