import { z } from 'zod';
import type { ServiceClients } from '../clients.js';
import { ok } from '../envelope.js';
import { presentProjects as present } from '../presenters-projects.js';
import { DEVICE_STATUSES, DEVICE_TYPES } from '@mp/contracts';
import { enumText, instantText, MAX_LENGTH, text } from '../bounds.js';
import { listData, pageOf, pageQuery, validate } from '../validate.js';
import { defined, expectedVersion, nulls, okVersioned, versionBody, versionField } from './versioning.js';
import * as api from '../api/resources.js';
import { route, type GatewayRouter } from '../api/route-spec.js';

const createBody = z.object({
  serial_number: text(MAX_LENGTH.number),
  model: text(MAX_LENGTH.model),
  type: enumText(DEVICE_TYPES),
  name: text(MAX_LENGTH.name).optional(),
  manufacturer: text(MAX_LENGTH.name).optional(),
  status: enumText(DEVICE_STATUSES).optional(),
  calibrated_at: instantText().optional(),
  calibration_due_at: instantText().optional(),
  description: text(MAX_LENGTH.description).optional(),
});

const CLEARABLE = ['name', 'manufacturer', 'calibrated_at', 'calibration_due_at', 'description'] as const;

const patchBody = z.object({
  serial_number: text(MAX_LENGTH.number).optional(),
  model: text(MAX_LENGTH.model).optional(),
  type: enumText(DEVICE_TYPES).optional(),
  name: text(MAX_LENGTH.name).nullable().optional(),
  manufacturer: text(MAX_LENGTH.name).nullable().optional(),
  status: enumText(DEVICE_STATUSES).optional(),
  calibrated_at: instantText().nullable().optional(),
  calibration_due_at: instantText().nullable().optional(),
  description: text(MAX_LENGTH.description).nullable().optional(),
  version: versionField,
});

const listQuery = pageQuery.extend({
  status: enumText(DEVICE_STATUSES).optional(),
  type: enumText(DEVICE_TYPES).optional(),
  q: text(MAX_LENGTH.search).optional(),
});

/** Devices of the tenant environment (project:read / project:write); not tied to one project. */
export function deviceRoutes(router: GatewayRouter, clients: ServiceClients): void {
  const fields = (b: z.infer<typeof patchBody> | z.infer<typeof createBody>) =>
    defined({
      serialNumber: b.serial_number,
      model: b.model,
      type: b.type,
      name: b.name,
      manufacturer: b.manufacturer,
      status: b.status,
      calibratedAt: b.calibrated_at,
      calibrationDueAt: b.calibration_due_at,
      description: b.description,
    });

  route(
    router,
    {
      method: 'post',
      path: '/devices',
      summary: 'Register a device.',
      tag: 'Devices',
      auth: 'api_key_or_bearer',
      permission: 'project:write',
      rateLimit: 'tenant',
      body: createBody,
      response: api.device,
      errors: ['409007', '422204'],
      idempotent: true,
    },
    async (ctx) => {
      const state = ctx.state;
      const b = validate(createBody, state.body ?? {}, 'body');
      const device = await clients.projects.createDevice({ ...fields(b), serialNumber: b.serial_number, model: b.model, type: b.type }, state.caller!);
      okVersioned(ctx, present.device(device));
    },
  );

  route(
    router,
    {
      method: 'get',
      path: '/devices',
      summary: 'List the devices of this environment.',
      tag: 'Devices',
      auth: 'api_key_or_bearer',
      permission: 'project:read',
      rateLimit: 'tenant',
      query: listQuery,
      response: api.listOf(api.device),
    },
    async (ctx) => {
      const state = ctx.state;
      const q = validate(listQuery, ctx.query, 'query');
      const list = await clients.projects.listDevices({ page: pageOf(q), ...defined({ status: q.status, type: q.type, q: q.q }) }, state.caller!);
      ok(ctx, listData(list.items, present.device, list.page));
    },
  );

  route(
    router,
    {
      method: 'get',
      path: '/devices/:device_id',
      summary: 'One device (ETag: its version).',
      tag: 'Devices',
      auth: 'api_key_or_bearer',
      permission: 'project:read',
      rateLimit: 'tenant',
      response: api.device,
    },
    async (ctx) => {
      const state = ctx.state;
      okVersioned(ctx, present.device(await clients.projects.getDevice({ id: ctx.params.device_id! }, state.caller!)));
    },
  );

  route(
    router,
    {
      method: 'patch',
      path: '/devices/:device_id',
      summary: 'Change a device (null clears an optional field).',
      tag: 'Devices',
      auth: 'api_key_or_bearer',
      permission: 'project:write',
      rateLimit: 'tenant',
      body: patchBody,
      response: api.device,
      errors: ['409004', '409007', '422204'],
    },
    async (ctx) => {
      const state = ctx.state;
      const raw = (state.body ?? {}) as Record<string, unknown>;
      const b = validate(patchBody, raw, 'body');
      const device = await clients.projects.updateDevice(
        { id: ctx.params.device_id!, ...expectedVersion(ctx, b.version), ...fields(b), clear: nulls(raw, CLEARABLE) },
        state.caller!,
      );
      okVersioned(ctx, present.device(device));
    },
  );

  route(
    router,
    {
      method: 'delete',
      path: '/devices/:device_id',
      summary: 'Delete a device.',
      tag: 'Devices',
      auth: 'api_key_or_bearer',
      permission: 'project:write',
      rateLimit: 'tenant',
      body: versionBody,
      response: api.deleted(api.device),
      errors: ['409004'],
    },
    async (ctx) => {
      const state = ctx.state;
      const b = validate(versionBody, state.body ?? {}, 'body');
      const device = await clients.projects.deleteDevice({ id: ctx.params.device_id!, ...expectedVersion(ctx, b.version) }, state.caller!);
      ok(ctx, { ...present.device(device), deleted: true });
    },
  );
}
