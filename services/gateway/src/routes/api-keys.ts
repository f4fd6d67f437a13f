import Router from '@koa/router';
import { z } from 'zod';
import type { ServiceClients } from '../clients.js';
import { ok } from '../envelope.js';
import { presentIdentity as present } from '../presenters-identity.js';
import { MAX_ITEMS, MAX_LENGTH, text } from '../bounds.js';
import type { GatewayState } from '../state.js';
import { listData, pageOf, pageQuery, validate } from '../validate.js';
import type { Middleware } from 'koa';

const createBody = z.object({
  name: text(MAX_LENGTH.name),
  permissions: z.array(text(MAX_LENGTH.identifier)).max(MAX_ITEMS.permissions),
  expires_at: z.iso.datetime({ offset: true }).optional(),
});

const rollBody = z.object({
  /** How long the previous value keeps working: 0 to 604800 s, default 86400 (24 h). */
  grace_period_seconds: z.number().int().min(0).max(604_800).optional(),
});

/**
 * API keys (system:admin): the value is shown once — on creation and on a roll — and only its
 * hash stored. A key belongs to the environment it was created in (mp_live_… / mp_test_…).
 */
export function apiKeyRoutes(router: Router, clients: ServiceClients, guard: Middleware): void {
  router.post('/api-keys', guard, async (ctx) => {
    const state = ctx.state as GatewayState;
    const body = validate(createBody, state.body ?? {}, 'body');
    const created = await clients.identity.createApiKey(
      { name: body.name, permissions: body.permissions, ...(body.expires_at ? { expiresAt: body.expires_at } : {}) },
      state.caller!,
    );
    ok(ctx, { ...present.apiKey(created.apiKey!), key: created.key });
  });

  router.get('/api-keys', guard, async (ctx) => {
    const state = ctx.state as GatewayState;
    const q = validate(pageQuery, ctx.query, 'query');
    const list = await clients.identity.listApiKeys({ page: pageOf(q) }, state.caller!);
    ok(ctx, listData(list.items, present.apiKey, list.page));
  });

  router.get('/api-keys/:key_id', guard, async (ctx) => {
    const state = ctx.state as GatewayState;
    ok(ctx, present.apiKey(await clients.identity.getApiKey({ id: ctx.params.key_id! }, state.caller!)));
  });

  router.delete('/api-keys/:key_id', guard, async (ctx) => {
    const state = ctx.state as GatewayState;
    ok(ctx, present.apiKey(await clients.identity.revokeApiKey({ id: ctx.params.key_id! }, state.caller!)));
  });

  router.post('/api-keys/:key_id/roll', guard, async (ctx) => {
    const state = ctx.state as GatewayState;
    const body = validate(rollBody, state.body ?? {}, 'body');
    const rolled = await clients.identity.rollApiKey(
      { id: ctx.params.key_id!, ...(body.grace_period_seconds !== undefined ? { gracePeriodSeconds: body.grace_period_seconds } : {}) },
      state.caller!,
    );
    ok(ctx, { ...present.apiKey(rolled.apiKey!), key: rolled.key });
  });
}
