import { z } from 'zod';
import type { ServiceClients } from '../clients.js';
import { pointsWithState } from '../alarm-state.js';
import { ok } from '../envelope.js';
import { presentProjects as present } from '../presenters-projects.js';
import { CALIBRATION_METHODS, isGeodetic, SENSOR_TYPES, TRIGGER_LEVELS, type projects } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import { enumText, idText, instantText, MAX_LENGTH, text } from '../bounds.js';
import { alarmRulesBody, toAlarmRules } from '../point-alarm-rules.js';
import { listData, pageOf, pageQuery, validate } from '../validate.js';
import { defined, expectedVersion, nulls, okVersioned, queryBoolean, versionBody, versionField } from './versioning.js';
import * as api from '../api/resources.js';
import { route, type GatewayRouter } from '../api/route-spec.js';

const coordinates = z.object({ x: z.number(), y: z.number(), z: z.number() });

/** Limits on a channel of the point's type (docs/instruments.md); at most 30. */
const triggerLevels = z
  .array(
    z.object({
      level: z.enum(TRIGGER_LEVELS),
      channel: text(MAX_LENGTH.name),
      above: z.number().optional(),
      below: z.number().optional(),
    }),
  )
  .max(30);

const toTriggerLevels = (levels: z.infer<typeof triggerLevels>) =>
  levels.map((l) => ({ level: l.level, channel: l.channel, ...defined({ above: l.above, below: l.below }) }));

/** A calibration's body (docs/instruments.md#calibrations): the method and its coefficients; the service checks which belong. */
const calibrationBody = z.object({
  method: enumText(CALIBRATION_METHODS),
  factor: z.number().optional(),
  offset: z.number().optional(),
  a: z.number().optional(),
  b: z.number().optional(),
  c: z.number().optional(),
  gauge_factor: z.number().optional().meta({ description: 'vibrating_wire: G, measured unit per digit (R = f²/1000).' }),
  zero_reading: z.number().optional().meta({ description: 'vibrating_wire: R₀, digits.' }),
  temperature_factor: z.number().optional().meta({ description: 'vibrating_wire: K, measured unit per °C.' }),
  zero_temperature: z.number().optional().meta({ description: 'vibrating_wire: T₀, °C.' }),
  valid_from: instantText()
    .optional()
    .meta({ description: 'ISO 8601 with an offset; required on POST /points/{id}/calibrations, from the beginning when absent at creation.' }),
});

const toCalibrationInput = (b: z.infer<typeof calibrationBody>): projects.CalibrationInput => ({
  method: b.method,
  ...defined({
    factor: b.factor,
    offset: b.offset,
    a: b.a,
    b: b.b,
    c: b.c,
    gaugeFactor: b.gauge_factor,
    zeroReading: b.zero_reading,
    temperatureFactor: b.temperature_factor,
    zeroTemperature: b.zero_temperature,
    validFrom: b.valid_from,
  }),
});

/** Channels computed from the others (docs/instruments.md#derived-channels); at most 16. */
const derivedChannels = z.array(z.object({ name: text(MAX_LENGTH.identifier), unit: text(MAX_LENGTH.unit), expression: text(MAX_LENGTH.expression) })).max(16);

const calibrationsQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).optional(),
  cursor: idText().optional(),
});

/** The geodetic types need reference coordinates and displacement thresholds, as docs/rules.md#points has them. */
function requireGeodeticFields(sensorType: string, b: { reference?: unknown; thresholds?: unknown }): void {
  if (!isGeodetic(sensorType)) return;
  for (const field of ['reference', 'thresholds'] as const) {
    if (b[field] === undefined) throw new DomainError('422101', { field, detail: `${field} is required for a ${sensorType} point.` });
  }
}

const createBody = z.object({
  number: text(MAX_LENGTH.number),
  name: text(MAX_LENGTH.name),
  sensor_type: enumText(SENSOR_TYPES),
  reference: coordinates.optional().meta({ description: 'Metres; required for the geodetic types (total_station, gnss, level).' }),
  thresholds: z
    .object({ warning: z.number(), alarm: z.number() })
    .optional()
    .meta({ description: 'Displacement thresholds, mm; required for the geodetic types, which alone take them.' }),
  trigger_levels: triggerLevels.optional(),
  calibration: calibrationBody.optional().meta({ description: 'The first calibration, for types with a raw channel (docs/instruments.md#calibrations).' }),
  derived_channels: derivedChannels.optional(),
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
  trigger_levels: triggerLevels.optional().meta({ description: 'Replaces the trigger levels as a whole ([] removes them).' }),
  derived_channels: derivedChannels.optional().meta({ description: 'Replaces the derived channels as a whole ([] removes them).' }),
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
      errors: ['404008', '409002', '422101', '422103', '422104', '422105', '422201', '422204', '422301'],
      idempotent: true,
    },
    async (ctx) => {
      const state = ctx.state;
      const b = validate(createBody, state.body ?? {}, 'body');
      requireGeodeticFields(b.sensor_type, b);
      const point = await clients.projects.createPoint(
        {
          projectId: ctx.params.project_id!,
          number: b.number,
          name: b.name,
          sensorType: b.sensor_type,
          ...(b.reference ? { reference: b.reference } : {}),
          warningThreshold: b.thresholds?.warning ?? 0,
          alarmThreshold: b.thresholds?.alarm ?? 0,
          ...(b.trigger_levels ? { triggerLevels: { items: toTriggerLevels(b.trigger_levels) } } : {}),
          ...(b.calibration ? { calibration: toCalibrationInput(b.calibration) } : {}),
          ...(b.derived_channels ? { derivedChannels: { items: b.derived_channels } } : {}),
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
          ...(b.trigger_levels ? { triggerLevels: { items: toTriggerLevels(b.trigger_levels) } } : {}),
          ...(b.derived_channels ? { derivedChannels: { items: b.derived_channels } } : {}),
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

  route(
    router,
    {
      method: 'post',
      path: '/points/:point_id/calibrations',
      summary: 'Add a dated calibration to a point; its stored readings from valid_from on are recomputed in the background.',
      tag: 'Points',
      auth: 'api_key_or_bearer',
      permission: 'project:write',
      rateLimit: 'tenant',
      body: calibrationBody,
      response: api.calibration,
      errors: ['404003', '422101', '422103', '422105', '422204', '422301'],
      idempotent: true,
    },
    async (ctx) => {
      const state = ctx.state;
      const b = validate(calibrationBody, state.body ?? {}, 'body');
      const pointId = ctx.params.point_id!;
      const calibration = await clients.projects.addCalibration({ pointId, calibration: toCalibrationInput(b) }, state.caller!);
      const states = await clients.monitoringData.getRecomputeStates({ pointId, calibrationIds: [calibration.id] }, state.caller!);
      const pending = { calibrationId: calibration.id, id: calibration.id, cause: 'calibration', status: 'pending', records: 0, changed: 0 };
      ok(
        ctx,
        present.calibration(
          calibration,
          states.items[0] ?? { ...pending, requestedBy: calibration.createdBy, from: calibration.validFrom, requestedAt: calibration.createdAt },
        ),
      );
    },
  );

  route(
    router,
    {
      method: 'get',
      path: '/points/:point_id/calibrations',
      summary: "A point's calibrations, newest valid_from first, each with its recomputation's progress.",
      tag: 'Points',
      auth: 'api_key_or_bearer',
      permission: 'project:read',
      rateLimit: 'tenant',
      query: calibrationsQuery,
      response: api.listOf(api.calibration),
    },
    async (ctx) => {
      const state = ctx.state;
      const q = validate(calibrationsQuery, ctx.query, 'query');
      const pointId = ctx.params.point_id!;
      const all = (await clients.projects.listCalibrations({ id: pointId }, state.caller!)).items;
      // A point holds at most 100 calibrations: a page is a slice after the cursor's calibration.
      let start = 0;
      if (q.cursor !== undefined) {
        const at = all.findIndex((c) => c.id === q.cursor);
        if (at < 0)
          throw new DomainError('400004', {
            field: 'cursor',
            detail: 'The cursor names no calibration of this point.',
            suggestion: 'Pass back the next_cursor of the previous page.',
          });
        start = at + 1;
      }
      const limit = q.limit ?? 20;
      const page = all.slice(start, start + limit);
      const hasMore = start + limit < all.length;
      const states = page.length
        ? (await clients.monitoringData.getRecomputeStates({ pointId, calibrationIds: page.map((c) => c.id) }, state.caller!)).items
        : [];
      const byId = new Map(states.map((s) => [s.calibrationId, s]));
      ok(
        ctx,
        listData(page, (c) => present.calibration(c, byId.get(c.id)), { hasMore, ...(hasMore ? { nextCursor: page[page.length - 1]!.id } : {}) }),
      );
    },
  );

  route(
    router,
    {
      method: 'get',
      path: '/points/:point_id/recomputations',
      summary:
        "Recomputations of a point's stored readings (after a calibration, or a change of its derived channels), newest first, at most 100: who caused them and their progress.",
      tag: 'Points',
      auth: 'api_key_or_bearer',
      permission: 'project:read',
      rateLimit: 'tenant',
      response: api.listOf(api.recomputation),
    },
    async (ctx) => {
      const state = ctx.state;
      const pointId = ctx.params.point_id!;
      const { items } = await clients.monitoringData.listRecomputations({ pointId }, state.caller!);
      ok(
        ctx,
        listData(items, (r) => present.recomputation(pointId, r)),
      );
    },
  );
}
