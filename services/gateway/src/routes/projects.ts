import Router from '@koa/router';
import type { Middleware } from 'koa';
import { z } from 'zod';
import type { ServiceClients } from '../clients.js';
import { ok } from '../envelope.js';
import { present } from '../presenters.js';
import type { GatewayState } from '../state.js';
import { listData, pageOf, pageQuery, validate } from '../validate.js';

const createBody = z.object({
  name: z.string(),
  number: z.string(),
  description: z.string().optional(),
  start_date: z.string().optional(),
  end_date: z.string().optional(),
});

const listQuery = pageQuery.extend({ status: z.string().optional(), q: z.string().max(100).optional() });

export function projectRoutes(router: Router, clients: ServiceClients, can: (p: string) => Middleware): void {
  router.post('/projects', can('project:write'), async (ctx) => {
    const state = ctx.state as GatewayState;
    const b = validate(createBody, state.body ?? {}, 'body');
    const project = await clients.projects.createProject(
      {
        name: b.name,
        number: b.number,
        ...(b.description !== undefined ? { description: b.description } : {}),
        ...(b.start_date !== undefined ? { startDate: b.start_date } : {}),
        ...(b.end_date !== undefined ? { endDate: b.end_date } : {}),
      },
      state.caller!,
    );
    ok(ctx, present.project(project));
  });

  router.get('/projects', can('project:read'), async (ctx) => {
    const state = ctx.state as GatewayState;
    const q = validate(listQuery, ctx.query, 'query');
    const list = await clients.projects.listProjects(
      { page: pageOf(q), ...(q.status !== undefined ? { status: q.status } : {}), ...(q.q !== undefined ? { q: q.q } : {}) },
      state.caller!,
    );
    ok(ctx, listData(list.items, present.project, list.page));
  });

  router.get('/projects/:project_id', can('project:read'), async (ctx) => {
    const state = ctx.state as GatewayState;
    ok(ctx, present.project(await clients.projects.getProject({ id: ctx.params.project_id! }, state.caller!)));
  });
}
