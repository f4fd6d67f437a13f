import { z } from 'zod';
import type { ServiceClients } from '../clients.js';
import { pointsWithState } from '../alarm-state.js';
import { ok } from '../envelope.js';
import { presentProjects as present } from '../presenters-projects.js';
import { SENSOR_TYPES } from '@mp/contracts';
import { enumText, idText, MAX_LENGTH, text } from '../bounds.js';
import { alarmRulesBody, toAlarmRules } from '../point-alarm-rules.js';
import { listData, pageOf, pageQuery, validate } from '../validate.js';
import { defined, expectedVersion, nulls, okVersioned, queryBoolean, versionBody, versionField } from './versioning.js';
import * as api from '../api/resources.js';
import { route, type GatewayRouter } from '../api/route-spec.js';

const coordinates = z.object({ x: z.number(), y: z.number(), z: z.number() });

const createBody = z.object({
  number: text(MAX_LENGTH.number),
  name: text(MAX_LENGTH.name),
  sensor_type: enumText(SENSOR_TYPES),
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
  sensor_type: enumText(SENSOR_TYPES).optional(),
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
  sensor_type: enumText(SENSOR_TYPES).optional(),
  active: queryBoolean,
  device_id: idText().optional(),
  q: text(MAX_LENGTH.search).optional(),
});

/** Monitoring points (project:read / project:write): coordinates in metres, thresholds in millimetres. */
export function pointRoutes(router: GatewayRouter, clients: ServiceClients): void {
  route(
    router,
    {
      method: 'post',
      path: '/projects/:project_id/points',
      summary: 'Create a monitoring point (coordinates in m, thresholds in mm).',
      tag: 'Points',
      auth: 'api_key_or_bearer',
      permission: 'project:write',
      rateLimit: 'tenant',
      body: createBody,
      response: api.point,
      errors: ['404008', '409002', '422104', '422105', '422201', '422204', '422301'],
      idempotent: true,
    },
    async (ctx) => {
      const state = ctx.state;
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
    },
  );

  route(
    router,
    {
      method: 'get',
      path: '/projects/:project_id/points',
      summary: "List a project's monitoring points, each with its state now (status, last_measured_at, stale).",
      tag: 'Points',
      auth: 'api_key_or_bearer',
      permission: 'project:read',
      rateLimit: 'tenant',
      query: listQuery,
      response: api.listOf(api.pointWithState),
    },
    async (ctx) => {
      const state = ctx.state;
      const q = validate(listQuery, ctx.query, 'query');
      const projectId = ctx.params.project_id!;
      const list = await clients.projects.listPoints(
        { projectId, page: pageOf(q), ...defined({ sensorType: q.sensor_type, active: q.active, deviceId: q.device_id, q: q.q }) },
        state.caller!,
      );
      ok(
        ctx,
        listData(await pointsWithState(clients, state.caller!, projectId, list.items), (p) => p, list.page),
      );
    },
  );

  route(
    router,
    {
      method: 'get',
      path: '/points/:point_id',
      summary: 'One monitoring point (ETag: its version).',
      tag: 'Points',
      auth: 'api_key_or_bearer',
      permission: 'project:read',
      rateLimit: 'tenant',
      response: api.point,
    },
    async (ctx) => {
      const state = ctx.state;
      okVersioned(ctx, present.point(await clients.projects.getPoint({ id: ctx.params.point_id! }, state.caller!)));
    },
  );

  route(
    router,
    {
      method: 'patch',
      path: '/points/:point_id',
      summary: 'Change a monitoring point (null clears an optional field).',
      tag: 'Points',
      auth: 'api_key_or_bearer',
      permission: 'project:write',
      rateLimit: 'tenant',
      body: patchBody,
      response: api.point,
      errors: ['404008', '409002', '409004', '422104', '422105', '422201', '422204', '422301'],
    },
    async (ctx) => {
      const state = ctx.state;
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
    },
  );

  route(
    router,
    {
      method: 'delete',
      path: '/points/:point_id',
      summary: 'Delete a monitoring point.',
      tag: 'Points',
      auth: 'api_key_or_bearer',
      permission: 'project:write',
      rateLimit: 'tenant',
      body: versionBody,
      response: api.deleted(api.point),
      errors: ['409004', '422301'],
    },
    async (ctx) => {
      const state = ctx.state;
      const b = validate(versionBody, state.body ?? {}, 'body');
      const point = await clients.projects.deletePoint({ id: ctx.params.point_id!, ...expectedVersion(ctx, b.version) }, state.caller!);
      ok(ctx, { ...present.point(point), deleted: true });
    },
  );
}
