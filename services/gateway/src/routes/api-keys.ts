import Router from '@koa/router';
import { z } from 'zod';
import type { ServiceClients } from '../clients.js';
import { ok } from '../envelope.js';
import { present } from '../presenters.js';
import type { GatewayState } from '../state.js';
import { listData, pageOf, pageQuery, validate } from '../validate.js';
import type { Middleware } from 'koa';

const createBody = z.object({
  name: z.string(),
  permissions: z.array(z.string()),
  expires_at: z.iso.datetime({ offset: true }).optional(),
});

/** API keys (system:admin): value shown once on creation, only a hash stored. */
export function apiKeyRoutes(router: Router, clients: ServiceClients, guard: Middleware): void {
  router.post('/api-keys', guard, async (ctx) => {
    const state = ctx.state as GatewayState;
    const body = validate(createBody, state.body ?? {}, 'body');
    const created = await clients.identity.createApiKey({ name: body.name, permissions: body.permissions, ...(body.expires_at ? { expiresAt: body.expires_at } : {}) }, state.caller!);
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
}
