import Router from '@koa/router';
import type { Middleware } from 'koa';
import { z } from 'zod';
import type { ServiceClients } from '../clients.js';
import { ok } from '../envelope.js';
import { presentProjects as present } from '../presenters-projects.js';
import type { GatewayState } from '../state.js';
import { listData, pageOf, pageQuery, validate } from '../validate.js';
import { defined } from './versioning.js';

const addBody = z.object({ user_id: z.string(), role: z.string(), name: z.string().optional(), phone: z.string().optional() });

/**
 * Project members (project:read / project:write; adding and removing also needs the owner role or a
 * tenant-wide caller). POST adds a user or changes a member's role and display data.
 */
export function memberRoutes(router: Router, clients: ServiceClients, can: (p: string) => Middleware): void {
  router.get('/projects/:project_id/members', can('project:read'), async (ctx) => {
    const state = ctx.state as GatewayState;
    const q = validate(pageQuery.extend({ role: z.string().optional() }), ctx.query, 'query');
    const list = await clients.projects.listMembers({ projectId: ctx.params.project_id!, page: pageOf(q), ...defined({ role: q.role }) }, state.caller!);
    ok(ctx, listData(list.items, present.member, list.page));
  });

  router.post('/projects/:project_id/members', can('project:write'), async (ctx) => {
    const state = ctx.state as GatewayState;
    const b = validate(addBody, state.body ?? {}, 'body');
    const member = await clients.projects.addMember(
      { projectId: ctx.params.project_id!, userId: b.user_id, role: b.role, ...defined({ name: b.name, phone: b.phone }) },
      state.caller!,
    );
    ok(ctx, present.member(member));
  });

  router.delete('/projects/:project_id/members/:user_id', can('project:write'), async (ctx) => {
    const state = ctx.state as GatewayState;
    const member = await clients.projects.removeMember({ projectId: ctx.params.project_id!, userId: ctx.params.user_id! }, state.caller!);
    ok(ctx, { ...present.member(member), deleted: true });
  });
}
