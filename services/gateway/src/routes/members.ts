import { z } from 'zod';
import { MEMBER_ROLES, type identity } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import { isId } from '@mp/kit';
import type { ServiceClients } from '../clients.js';
import { ok } from '../envelope.js';
import { presentProjects as present } from '../presenters-projects.js';
import { enumText, idText, MAX_LENGTH, text } from '../bounds.js';
import { listData, pageOf, pageQuery, validate } from '../validate.js';
import { defined } from './versioning.js';
import * as api from '../api/resources.js';
import { route, type GatewayRouter } from '../api/route-spec.js';

const listQuery = pageQuery.extend({ role: enumText(MEMBER_ROLES).optional() });
const addBody = z.object({ user_id: idText(), role: enumText(MEMBER_ROLES), name: text(MAX_LENGTH.name).optional(), phone: text(MAX_LENGTH.phone).optional() });

/**
 * Project members (project:read / project:write; adding and removing also needs the owner role or a
 * tenant-wide caller). POST adds a user or changes a member's role and display data; the user must
 * exist in the caller's tenant (404007), and a new member added without a `name` shows the user's
 * profile name (an existing member keeps its name).
 */
export function memberRoutes(router: GatewayRouter, clients: ServiceClients): void {
  route(
    router,
    {
      method: 'get',
      path: '/projects/:project_id/members',
      summary: "List a project's members.",
      tag: 'Members',
      auth: 'api_key_or_bearer',
      permission: 'project:read',
      rateLimit: 'tenant',
      query: listQuery,
      response: api.listOf(api.member),
    },
    async (ctx) => {
      const state = ctx.state;
      const q = validate(listQuery, ctx.query, 'query');
      const list = await clients.projects.listMembers({ projectId: ctx.params.project_id!, page: pageOf(q), ...defined({ role: q.role }) }, state.caller!);
      ok(ctx, listData(list.items, present.member, list.page));
    },
  );

  route(
    router,
    {
      method: 'post',
      path: '/projects/:project_id/members',
      summary: "Add a user to a project, or change a member's role and display data.",
      tag: 'Members',
      auth: 'api_key_or_bearer',
      permission: 'project:write',
      rateLimit: 'tenant',
      body: addBody,
      response: api.member,
      errors: ['404007', '422301'],
      idempotent: true,
    },
    async (ctx) => {
      const state = ctx.state;
      const b = validate(addBody, state.body ?? {}, 'body');
      const projectId = ctx.params.project_id!;
      // A malformed id is left to the projects service, which answers it with 400004.
      const profile = isId('user', b.user_id) ? await tenantUser(clients, projectId, b.user_id, state.caller!) : undefined;
      const member = await clients.projects.addMember(
        { projectId, userId: b.user_id, role: b.role, ...defined({ name: b.name, phone: b.phone, defaultName: profile?.name || undefined }) },
        state.caller!,
      );
      ok(ctx, present.member(member));
    },
  );

  route(
    router,
    {
      method: 'delete',
      path: '/projects/:project_id/members/:user_id',
      summary: 'Remove a member from a project.',
      tag: 'Members',
      auth: 'api_key_or_bearer',
      permission: 'project:write',
      rateLimit: 'tenant',
      response: api.deleted(api.member),
      errors: ['422301'],
    },
    async (ctx) => {
      const state = ctx.state;
      const member = await clients.projects.removeMember({ projectId: ctx.params.project_id!, userId: ctx.params.user_id! }, state.caller!);
      ok(ctx, { ...present.member(member), deleted: true });
    },
  );
}

/**
 * The user being added, asked of identity with the caller's own context. GetUserProfiles answers
 * only existing users of the caller's tenant and needs an authenticated caller but no permission,
 * so project:write suffices; an unknown id and another tenant's user are both absent: 404007.
 */
async function tenantUser(clients: ServiceClients, projectId: string, userId: string, caller: CallerContext): Promise<identity.UserProfile> {
  const [profile] = (await clients.identity.getUserProfiles({ ids: [userId] }, caller)).items;
  if (profile) return profile;
  // ADR 0007 reports the project before anything in it: an unknown or foreign project, or a caller
  // who is not a member, is refused as such (404001, 403003, 403001) rather than with 404007.
  await clients.projects.getProject({ id: projectId }, caller);
  throw new DomainError('404007', {
    field: 'user_id',
    detail: `User ${userId} does not exist in your tenant; only existing users can become project members.`,
    suggestion: 'List users with GET /v3/users and use an id from that list, or create the user with POST /v3/users.',
  });
}
