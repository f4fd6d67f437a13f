import { z } from 'zod';
import type { ServiceClients } from '../clients.js';
import { ok } from '../envelope.js';
import { presentIdentity as present } from '../presenters-identity.js';
import { integer, MAX_ITEMS, MAX_LENGTH, permissionText, text } from '../bounds.js';
import { listData, pageOf, pageQuery, validate } from '../validate.js';
import * as api from '../api/resources.js';
import { route, type GatewayRouter } from '../api/route-spec.js';

const createBody = z.object({
  name: text(MAX_LENGTH.name),
  permissions: z.array(permissionText()).max(MAX_ITEMS.permissions),
  expires_at: z.iso.datetime({ offset: true }).optional(),
});

const rollBody = z.object({
  /** How long the previous value keeps working: 0 to 604800 s, default 86400 (24 h). */
  grace_period_seconds: integer(0, 604_800).optional(),
});

/**
 * API keys (system:admin): the value is shown once — on creation and on a roll — and only its
 * hash stored. A key belongs to the environment it was created in (mp_live_… / mp_test_…).
 */
export function apiKeyRoutes(router: GatewayRouter, clients: ServiceClients): void {
  route(
    router,
    {
      method: 'post',
      path: '/api-keys',
      summary: 'Create an API key; its value is shown in this answer only.',
      tag: 'API keys',
      auth: 'api_key_or_bearer',
      permission: 'system:admin',
      rateLimit: 'tenant',
      body: createBody,
      response: api.apiKeyWithValue,
      idempotent: true,
    },
    async (ctx) => {
      const state = ctx.state;
      const body = validate(createBody, state.body ?? {}, 'body');
      const created = await clients.identity.createApiKey(
        { name: body.name, permissions: body.permissions, ...(body.expires_at ? { expiresAt: body.expires_at } : {}) },
        state.caller!,
      );
      ok(ctx, { ...present.apiKey(created.apiKey!), key: created.key });
    },
  );

  route(
    router,
    {
      method: 'get',
      path: '/api-keys',
      summary: 'List the API keys of this environment.',
      tag: 'API keys',
      auth: 'api_key_or_bearer',
      permission: 'system:admin',
      rateLimit: 'tenant',
      query: pageQuery,
      response: api.listOf(api.apiKey),
    },
    async (ctx) => {
      const state = ctx.state;
      const q = validate(pageQuery, ctx.query, 'query');
      const list = await clients.identity.listApiKeys({ page: pageOf(q) }, state.caller!);
      ok(ctx, listData(list.items, present.apiKey, list.page));
    },
  );

  route(
    router,
    {
      method: 'get',
      path: '/api-keys/:key_id',
      summary: 'One API key (never its value).',
      tag: 'API keys',
      auth: 'api_key_or_bearer',
      permission: 'system:admin',
      rateLimit: 'tenant',
      response: api.apiKey,
    },
    async (ctx) => {
      const state = ctx.state;
      ok(ctx, present.apiKey(await clients.identity.getApiKey({ id: ctx.params.key_id! }, state.caller!)));
    },
  );

  route(
    router,
    {
      method: 'delete',
      path: '/api-keys/:key_id',
      summary: 'Revoke an API key.',
      tag: 'API keys',
      auth: 'api_key_or_bearer',
      permission: 'system:admin',
      rateLimit: 'tenant',
      response: api.apiKey,
    },
    async (ctx) => {
      const state = ctx.state;
      ok(ctx, present.apiKey(await clients.identity.revokeApiKey({ id: ctx.params.key_id! }, state.caller!)));
    },
  );

  route(
    router,
    {
      method: 'post',
      path: '/api-keys/:key_id/roll',
      summary: 'Roll an API key: a new value, the previous one working for a grace period.',
      tag: 'API keys',
      auth: 'api_key_or_bearer',
      permission: 'system:admin',
      rateLimit: 'tenant',
      body: rollBody,
      response: api.apiKeyWithValue,
    },
    async (ctx) => {
      const state = ctx.state;
      const body = validate(rollBody, state.body ?? {}, 'body');
      const rolled = await clients.identity.rollApiKey(
        { id: ctx.params.key_id!, ...(body.grace_period_seconds !== undefined ? { gracePeriodSeconds: body.grace_period_seconds } : {}) },
        state.caller!,
      );
      ok(ctx, { ...present.apiKey(rolled.apiKey!), key: rolled.key });
    },
  );
}
