import { z } from 'zod';
import type { ServiceClients } from '../clients.js';
import { ok } from '../envelope.js';
import { presentIdentity as present } from '../presenters-identity.js';
import { MAX_ITEMS, MAX_LENGTH, permissionText, text } from '../bounds.js';
import { listData, pageOf, pageQuery, validate } from '../validate.js';
import { defined, expectedVersion, nulls, okVersioned, queryBoolean, versionBody, versionField } from './versioning.js';
import * as api from '../api/resources.js';
import { route, type GatewayRouter } from '../api/route-spec.js';

const createBody = z.object({
  username: text(MAX_LENGTH.username),
  password: text(MAX_LENGTH.password),
  name: text(MAX_LENGTH.name),
  phone: text(MAX_LENGTH.phone).optional(),
  permissions: z.array(permissionText()).max(MAX_ITEMS.permissions).optional(),
  disabled: z.boolean().optional(),
});

const patchBody = z.object({
  name: text(MAX_LENGTH.name).optional(),
  phone: text(MAX_LENGTH.phone).nullable().optional(),
  permissions: z.array(permissionText()).max(MAX_ITEMS.permissions).optional(),
  disabled: z.boolean().optional(),
  password: text(MAX_LENGTH.password).optional(),
  /** true clears a login lock (401007) before it runs out */
  unlock: z.literal(true).optional(),
  version: versionField,
});

const listQuery = pageQuery.extend({ q: text(MAX_LENGTH.search).optional(), disabled: queryBoolean });

/** Users of the caller's tenant (system:admin). Users sign in at the live and the sandbox base URL alike. */
export function userRoutes(router: GatewayRouter, clients: ServiceClients): void {
  route(
    router,
    {
      method: 'post',
      path: '/users',
      summary: "Create a user of the caller's tenant.",
      tag: 'Users',
      auth: 'api_key_or_bearer',
      permission: 'system:admin',
      rateLimit: 'tenant',
      body: createBody,
      response: api.user,
      errors: ['409009', '422204'],
      idempotent: true,
    },
    async (ctx) => {
      const state = ctx.state;
      const b = validate(createBody, state.body ?? {}, 'body');
      const user = await clients.identity.createUser(
        {
          username: b.username,
          password: b.password,
          name: b.name,
          permissions: b.permissions ?? [],
          disabled: b.disabled ?? false,
          ...defined({ phone: b.phone }),
        },
        state.caller!,
      );
      okVersioned(ctx, present.user(user));
    },
  );

  route(
    router,
    {
      method: 'get',
      path: '/users',
      summary: "List the users of the caller's tenant.",
      tag: 'Users',
      auth: 'api_key_or_bearer',
      permission: 'system:admin',
      rateLimit: 'tenant',
      query: listQuery,
      response: api.listOf(api.user),
    },
    async (ctx) => {
      const state = ctx.state;
      const q = validate(listQuery, ctx.query, 'query');
      const list = await clients.identity.listUsers({ page: pageOf(q), ...defined({ q: q.q, disabled: q.disabled }) }, state.caller!);
      ok(ctx, listData(list.items, present.user, list.page));
    },
  );

  route(
    router,
    {
      method: 'get',
      path: '/users/:user_id',
      summary: 'One user.',
      tag: 'Users',
      auth: 'api_key_or_bearer',
      permission: 'system:admin',
      rateLimit: 'tenant',
      response: api.user,
    },
    async (ctx) => {
      const state = ctx.state;
      okVersioned(ctx, present.user(await clients.identity.getUser({ id: ctx.params.user_id! }, state.caller!)));
    },
  );

  route(
    router,
    {
      method: 'patch',
      path: '/users/:user_id',
      summary: 'Change a user: name, phone, permissions, disabled, password, or clear a sign-in lock.',
      tag: 'Users',
      auth: 'api_key_or_bearer',
      permission: 'system:admin',
      rateLimit: 'tenant',
      body: patchBody,
      response: api.user,
      errors: ['409004', '409009', '422204'],
    },
    async (ctx) => {
      const state = ctx.state;
      const raw = (state.body ?? {}) as Record<string, unknown>;
      const b = validate(patchBody, raw, 'body');
      const user = await clients.identity.updateUser(
        {
          id: ctx.params.user_id!,
          ...expectedVersion(ctx, b.version),
          ...defined({ name: b.name, phone: b.phone, disabled: b.disabled, password: b.password }),
          ...(b.permissions ? { permissions: { values: b.permissions } } : {}),
          clear: nulls(raw, ['phone']),
          unlock: b.unlock ?? false,
        },
        state.caller!,
      );
      okVersioned(ctx, present.user(user));
    },
  );

  route(
    router,
    {
      method: 'delete',
      path: '/users/:user_id',
      summary: 'Delete a user.',
      tag: 'Users',
      auth: 'api_key_or_bearer',
      permission: 'system:admin',
      rateLimit: 'tenant',
      body: versionBody,
      response: api.deleted(api.user),
      errors: ['409004', '422204'],
    },
    async (ctx) => {
      const state = ctx.state;
      const b = validate(versionBody, state.body ?? {}, 'body');
      const user = await clients.identity.deleteUser({ id: ctx.params.user_id!, ...expectedVersion(ctx, b.version) }, state.caller!);
      ok(ctx, { ...present.user(user), deleted: true });
    },
  );
}
