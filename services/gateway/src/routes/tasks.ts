import Router from '@koa/router';
import type { Middleware } from 'koa';
import { z } from 'zod';
import type { ServiceClients } from '../clients.js';
import { ok } from '../envelope.js';
import { presentProjects as present } from '../presenters-projects.js';
import { enumText, idText, instantText, MAX_LENGTH, text } from '../bounds.js';
import type { GatewayState } from '../state.js';
import { listData, pageOf, pageQuery, validate } from '../validate.js';
import { defined, expectedVersion, nulls, okVersioned, queryBoolean, versionField } from './versioning.js';

const createBody = z.object({
  name: text(MAX_LENGTH.name),
  description: text(MAX_LENGTH.description).optional(),
  priority: enumText().optional(),
  due_at: instantText().optional(),
  assignee_id: idText().optional(),
});

const CLEARABLE = ['description', 'due_at'] as const;

const patchBody = z.object({
  name: text(MAX_LENGTH.name).optional(),
  description: text(MAX_LENGTH.description).nullable().optional(),
  priority: enumText().optional(),
  due_at: instantText().nullable().optional(),
  version: versionField,
});

const statusBody = z.object({ status: enumText(), remark: text(MAX_LENGTH.remark).optional(), version: versionField });
const assignBody = z.object({ user_id: idText(), version: versionField });

const listQuery = pageQuery.extend({
  status: enumText().optional(),
  assignee_id: idText().optional(),
  priority: enumText().optional(),
  overdue: queryBoolean,
  q: text(MAX_LENGTH.search).optional(),
});

/** Tasks (task:read / task:write) inside a project the caller may read or write. */
export function taskRoutes(router: Router, clients: ServiceClients, can: (p: string) => Middleware): void {
  router.post('/projects/:project_id/tasks', can('task:write'), async (ctx) => {
    const state = ctx.state as GatewayState;
    const b = validate(createBody, state.body ?? {}, 'body');
    const task = await clients.projects.createTask(
      {
        projectId: ctx.params.project_id!,
        name: b.name,
        ...defined({ description: b.description, priority: b.priority, dueAt: b.due_at, assigneeId: b.assignee_id }),
      },
      state.caller!,
    );
    okVersioned(ctx, present.task(task));
  });

  router.get('/projects/:project_id/tasks', can('task:read'), async (ctx) => {
    const state = ctx.state as GatewayState;
    const q = validate(listQuery, ctx.query, 'query');
    const list = await clients.projects.listTasks(
      {
        projectId: ctx.params.project_id!,
        page: pageOf(q),
        ...defined({ status: q.status, assigneeId: q.assignee_id, priority: q.priority, overdue: q.overdue, q: q.q }),
      },
      state.caller!,
    );
    ok(ctx, listData(list.items, present.task, list.page));
  });

  router.get('/tasks/:task_id', can('task:read'), async (ctx) => {
    const state = ctx.state as GatewayState;
    okVersioned(ctx, present.task(await clients.projects.getTask({ id: ctx.params.task_id! }, state.caller!)));
  });

  router.patch('/tasks/:task_id', can('task:write'), async (ctx) => {
    const state = ctx.state as GatewayState;
    const raw = (state.body ?? {}) as Record<string, unknown>;
    const b = validate(patchBody, raw, 'body');
    const task = await clients.projects.updateTask(
      {
        id: ctx.params.task_id!,
        ...expectedVersion(ctx, b.version),
        ...defined({ name: b.name, description: b.description, priority: b.priority, dueAt: b.due_at }),
        clear: nulls(raw, CLEARABLE),
      },
      state.caller!,
    );
    okVersioned(ctx, present.task(task));
  });

  router.delete('/tasks/:task_id', can('task:write'), async (ctx) => {
    const state = ctx.state as GatewayState;
    const b = validate(z.object({ version: versionField }), state.body ?? {}, 'body');
    const task = await clients.projects.deleteTask({ id: ctx.params.task_id!, ...expectedVersion(ctx, b.version) }, state.caller!);
    ok(ctx, { ...present.task(task), deleted: true });
  });

  router.put('/tasks/:task_id/status', can('task:write'), async (ctx) => {
    const state = ctx.state as GatewayState;
    const b = validate(statusBody, state.body ?? {}, 'body');
    const task = await clients.projects.changeTaskStatus(
      { id: ctx.params.task_id!, status: b.status, ...defined({ remark: b.remark }), ...expectedVersion(ctx, b.version) },
      state.caller!,
    );
    okVersioned(ctx, present.task(task));
  });

  router.post('/tasks/:task_id/assign', can('task:write'), async (ctx) => {
    const state = ctx.state as GatewayState;
    const b = validate(assignBody, state.body ?? {}, 'body');
    const task = await clients.projects.assignTask({ id: ctx.params.task_id!, userId: b.user_id, ...expectedVersion(ctx, b.version) }, state.caller!);
    okVersioned(ctx, present.task(task));
  });
}
