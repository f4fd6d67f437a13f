import Router from '@koa/router';
import type { Middleware } from 'koa';
import { z } from 'zod';
import type { ServiceClients } from '../clients.js';
import { ok } from '../envelope.js';
import { presentProjects as present } from '../presenters-projects.js';
import { enumText, idText, MAX_LENGTH, text } from '../bounds.js';
import { alarmRulesBody, toAlarmRules } from '../point-alarm-rules.js';
import type { GatewayState } from '../state.js';
import { listData, pageOf, pageQuery, validate } from '../validate.js';
import { defined, expectedVersion, nulls, okVersioned, queryBoolean, versionField } from './versioning.js';

const coordinates = z.object({ x: z.number(), y: z.number(), z: z.number() });

const createBody = z.object({
  number: text(MAX_LENGTH.number),
  name: text(MAX_LENGTH.name),
  sensor_type: enumText(),
  reference: coordinates,
  thresholds: z.object({ warning: z.number(), alarm: z.number() }),
  abrupt_change_limit: z.number().optional(),
  precision: z.number().optional(),
  device_id: idText().optional(),
  active: z.boolean().optional(),
  description: text(MAX_LENGTH.description).optional(),
  alarm_rules: alarmRulesBody.optional(),
});

const CLEARABLE = ['abrupt_change_limit', 'precision', 'device_id', 'description', 'alarm_rules'] as const;

const patchBody = z.object({
  number: text(MAX_LENGTH.number).optional(),
  name: text(MAX_LENGTH.name).optional(),
  sensor_type: enumText().optional(),
  reference: coordinates.optional(),
  thresholds: z.object({ warning: z.number().optional(), alarm: z.number().optional() }).optional(),
  abrupt_change_limit: z.number().nullable().optional(),
  precision: z.number().nullable().optional(),
  device_id: idText().nullable().optional(),
  active: z.boolean().optional(),
  description: text(MAX_LENGTH.description).nullable().optional(),
  alarm_rules: alarmRulesBody.nullable().optional(),
  version: versionField,
});

const listQuery = pageQuery.extend({
  sensor_type: enumText().optional(),
  active: queryBoolean,
  device_id: idText().optional(),
  q: text(MAX_LENGTH.search).optional(),
});

/** Monitoring points (project:read / project:write): coordinates in metres, thresholds in millimetres. */
export function pointRoutes(router: Router, clients: ServiceClients, can: (p: string) => Middleware): void {
  router.post('/projects/:project_id/points', can('project:write'), async (ctx) => {
    const state = ctx.state as GatewayState;
    const b = validate(createBody, state.body ?? {}, 'body');
    const point = await clients.projects.createPoint(
      {
        projectId: ctx.params.project_id!,
        number: b.number,
        name: b.name,
        sensorType: b.sensor_type,
        reference: b.reference,
        warningThreshold: b.thresholds.warning,
        alarmThreshold: b.thresholds.alarm,
        ...defined({ abruptChangeLimit: b.abrupt_change_limit, precision: b.precision, deviceId: b.device_id, active: b.active, description: b.description }),
        ...(b.alarm_rules ? { alarmRules: toAlarmRules(b.alarm_rules) } : {}),
      },
      state.caller!,
    );
    okVersioned(ctx, present.point(point));
  });

  router.get('/projects/:project_id/points', can('project:read'), async (ctx) => {
    const state = ctx.state as GatewayState;
    const q = validate(listQuery, ctx.query, 'query');
    const list = await clients.projects.listPoints(
      { projectId: ctx.params.project_id!, page: pageOf(q), ...defined({ sensorType: q.sensor_type, active: q.active, deviceId: q.device_id, q: q.q }) },
      state.caller!,
    );
    ok(ctx, listData(list.items, present.point, list.page));
  });

  router.get('/points/:point_id', can('project:read'), async (ctx) => {
    const state = ctx.state as GatewayState;
    okVersioned(ctx, present.point(await clients.projects.getPoint({ id: ctx.params.point_id! }, state.caller!)));
  });

  router.patch('/points/:point_id', can('project:write'), async (ctx) => {
    const state = ctx.state as GatewayState;
    const raw = (state.body ?? {}) as Record<string, unknown>;
    const b = validate(patchBody, raw, 'body');
    const point = await clients.projects.updatePoint(
      {
        id: ctx.params.point_id!,
        ...expectedVersion(ctx, b.version),
        ...defined({
          number: b.number,
          name: b.name,
          sensorType: b.sensor_type,
          reference: b.reference,
          warningThreshold: b.thresholds?.warning,
          alarmThreshold: b.thresholds?.alarm,
          abruptChangeLimit: b.abrupt_change_limit,
          precision: b.precision,
          deviceId: b.device_id,
          active: b.active,
          description: b.description,
        }),
        ...(b.alarm_rules ? { alarmRules: toAlarmRules(b.alarm_rules) } : {}),
        clear: nulls(raw, CLEARABLE),
      },
      state.caller!,
    );
    okVersioned(ctx, present.point(point));
  });

  router.delete('/points/:point_id', can('project:write'), async (ctx) => {
    const state = ctx.state as GatewayState;
    const b = validate(z.object({ version: versionField }), state.body ?? {}, 'body');
    const point = await clients.projects.deletePoint({ id: ctx.params.point_id!, ...expectedVersion(ctx, b.version) }, state.caller!);
    ok(ctx, { ...present.point(point), deleted: true });
  });
}
