import Router from '@koa/router';
import type { Middleware } from 'koa';
import { z } from 'zod';
import type { ServiceClients } from '../clients.js';
import { ok } from '../envelope.js';
import { presentProjects as present } from '../presenters-projects.js';
import type { GatewayState } from '../state.js';
import { listData, pageOf, pageQuery, validate } from '../validate.js';
import { defined, expectedVersion, nulls, okVersioned, versionField } from './versioning.js';

const createBody = z.object({
  serial_number: z.string(),
  model: z.string(),
  type: z.string(),
  name: z.string().optional(),
  manufacturer: z.string().optional(),
  status: z.string().optional(),
  calibrated_at: z.string().optional(),
  calibration_due_at: z.string().optional(),
  description: z.string().optional(),
});

const CLEARABLE = ['name', 'manufacturer', 'calibrated_at', 'calibration_due_at', 'description'] as const;

const patchBody = z.object({
  serial_number: z.string().optional(),
  model: z.string().optional(),
  type: z.string().optional(),
  name: z.string().nullable().optional(),
  manufacturer: z.string().nullable().optional(),
  status: z.string().optional(),
  calibrated_at: z.string().nullable().optional(),
  calibration_due_at: z.string().nullable().optional(),
  description: z.string().nullable().optional(),
  version: versionField,
});

const listQuery = pageQuery.extend({ status: z.string().optional(), type: z.string().optional(), q: z.string().max(100).optional() });

/** Devices of the tenant environment (project:read / project:write); not tied to one project. */
export function deviceRoutes(router: Router, clients: ServiceClients, can: (p: string) => Middleware): void {
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

  router.post('/devices', can('project:write'), async (ctx) => {
    const state = ctx.state as GatewayState;
    const b = validate(createBody, state.body ?? {}, 'body');
    const device = await clients.projects.createDevice({ ...fields(b), serialNumber: b.serial_number, model: b.model, type: b.type }, state.caller!);
    okVersioned(ctx, present.device(device));
  });

  router.get('/devices', can('project:read'), async (ctx) => {
    const state = ctx.state as GatewayState;
    const q = validate(listQuery, ctx.query, 'query');
    const list = await clients.projects.listDevices({ page: pageOf(q), ...defined({ status: q.status, type: q.type, q: q.q }) }, state.caller!);
    ok(ctx, listData(list.items, present.device, list.page));
  });

  router.get('/devices/:device_id', can('project:read'), async (ctx) => {
    const state = ctx.state as GatewayState;
    okVersioned(ctx, present.device(await clients.projects.getDevice({ id: ctx.params.device_id! }, state.caller!)));
  });

  router.patch('/devices/:device_id', can('project:write'), async (ctx) => {
    const state = ctx.state as GatewayState;
    const raw = (state.body ?? {}) as Record<string, unknown>;
    const b = validate(patchBody, raw, 'body');
    const device = await clients.projects.updateDevice(
      { id: ctx.params.device_id!, ...expectedVersion(ctx, b.version), ...fields(b), clear: nulls(raw, CLEARABLE) },
      state.caller!,
    );
    okVersioned(ctx, present.device(device));
  });

  router.delete('/devices/:device_id', can('project:write'), async (ctx) => {
    const state = ctx.state as GatewayState;
    const b = validate(z.object({ version: versionField }), state.body ?? {}, 'body');
    const device = await clients.projects.deleteDevice({ id: ctx.params.device_id!, ...expectedVersion(ctx, b.version) }, state.caller!);
    ok(ctx, { ...present.device(device), deleted: true });
  });
}
