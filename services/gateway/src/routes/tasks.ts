import { z } from 'zod';
import { TASK_PRIORITIES, TASK_STATUSES, TASK_TRANSITIONS } from '@mp/contracts';
import type { ServiceClients } from '../clients.js';
import { ok } from '../envelope.js';
import { presentProjects as present } from '../presenters-projects.js';
import { entityNameText, enumText, idText, instantText, MAX_LENGTH, text } from '../bounds.js';
import { listData, pageOf, pageQuery, validate } from '../validate.js';
import { defined, expectedVersion, nulls, okVersioned, queryBoolean, versionBody, versionField } from './versioning.js';
import * as api from '../api/resources.js';
import { route, type GatewayRouter } from '../api/route-spec.js';

const createBody = z.object({
  name: entityNameText(),
  description: text(MAX_LENGTH.description).optional(),
  priority: enumText(TASK_PRIORITIES).optional(),
  due_at: instantText().optional(),
  assignee_id: idText().optional(),
});

const CLEARABLE = ['description', 'due_at'] as const;

const patchBody = z.object({
  name: entityNameText().optional(),
  description: text(MAX_LENGTH.description).nullable().optional(),
  priority: enumText(TASK_PRIORITIES).optional(),
  due_at: instantText().nullable().optional(),
  version: versionField,
});

const statusBody = z.object({ status: enumText(TASK_STATUSES), remark: text(MAX_LENGTH.remark).optional(), version: versionField });
const assignBody = z.object({ user_id: idText(), version: versionField });

const listQuery = pageQuery.extend({
  status: enumText(TASK_STATUSES).optional(),
  assignee_id: idText().optional(),
  priority: enumText(TASK_PRIORITIES).optional(),
  overdue: queryBoolean,
  q: text(MAX_LENGTH.search).optional(),
});

/** Tasks (task:read / task:write) inside a project the caller may read or write. */
export function taskRoutes(router: GatewayRouter, clients: ServiceClients): void {
  route(
    router,
    {
      method: 'post',
      path: '/projects/:project_id/tasks',
      summary: 'Create a task in a project.',
      tag: 'Tasks',
      auth: 'api_key_or_bearer',
      permission: 'task:write',
      rateLimit: 'tenant',
      body: createBody,
      response: api.task,
      // an assignee who is not a member (422104) or only a viewer (422204)
      errors: ['404007', '422104', '422204', '422301', '422302'],
      idempotent: true,
    },
    async (ctx) => {
      const state = ctx.state;
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
    },
  );

  route(
    router,
    {
      method: 'get',
      path: '/projects/:project_id/tasks',
      summary: "List a project's tasks.",
      tag: 'Tasks',
      auth: 'api_key_or_bearer',
      permission: 'task:read',
      rateLimit: 'tenant',
      query: listQuery,
      response: api.listOf(api.task),
    },
    async (ctx) => {
      const state = ctx.state;
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
    },
  );

  route(
    router,
    {
      method: 'get',
      path: '/tasks/:task_id',
      summary: 'One task (ETag: its version).',
      tag: 'Tasks',
      auth: 'api_key_or_bearer',
      permission: 'task:read',
      rateLimit: 'tenant',
      response: api.task,
    },
    async (ctx) => {
      const state = ctx.state;
      okVersioned(ctx, present.task(await clients.projects.getTask({ id: ctx.params.task_id! }, state.caller!)));
    },
  );

  route(
    router,
    {
      method: 'patch',
      path: '/tasks/:task_id',
      summary: "Change a task's fields (null clears an optional one).",
      tag: 'Tasks',
      auth: 'api_key_or_bearer',
      permission: 'task:write',
      rateLimit: 'tenant',
      body: patchBody,
      response: api.task,
      errors: ['409004', '409005', '422301'],
    },
    async (ctx) => {
      const state = ctx.state;
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
    },
  );

  route(
    router,
    {
      method: 'delete',
      path: '/tasks/:task_id',
      summary: 'Delete a task.',
      tag: 'Tasks',
      auth: 'api_key_or_bearer',
      permission: 'task:write',
      rateLimit: 'tenant',
      body: versionBody,
      response: api.deleted(api.task),
      errors: ['409004', '422301'],
    },
    async (ctx) => {
      const state = ctx.state;
      const b = validate(versionBody, state.body ?? {}, 'body');
      const task = await clients.projects.deleteTask({ id: ctx.params.task_id!, ...expectedVersion(ctx, b.version) }, state.caller!);
      ok(ctx, { ...present.task(task), deleted: true });
    },
  );

  route(
    router,
    {
      method: 'put',
      path: '/tasks/:task_id/status',
      summary: 'Move a task to another status along the transition table.',
      tag: 'Tasks',
      auth: 'api_key_or_bearer',
      permission: 'task:write',
      rateLimit: 'tenant',
      body: statusBody,
      response: api.task,
      errors: ['409004', '409005', '422301', '422304'],
      transitions: { field: 'status', table: TASK_TRANSITIONS },
    },
    async (ctx) => {
      const state = ctx.state;
      const b = validate(statusBody, state.body ?? {}, 'body');
      const task = await clients.projects.changeTaskStatus(
        { id: ctx.params.task_id!, status: b.status, ...defined({ remark: b.remark }), ...expectedVersion(ctx, b.version) },
        state.caller!,
      );
      okVersioned(ctx, present.task(task));
    },
  );

  route(
    router,
    {
      method: 'post',
      path: '/tasks/:task_id/assign',
      summary: 'Assign a task to a user (pending becomes assigned).',
      tag: 'Tasks',
      auth: 'api_key_or_bearer',
      permission: 'task:write',
      rateLimit: 'tenant',
      body: assignBody,
      response: api.task,
      errors: ['404007', '409004', '409005', '422104', '422204', '422301'],
    },
    async (ctx) => {
      const state = ctx.state;
      const b = validate(assignBody, state.body ?? {}, 'body');
      const task = await clients.projects.assignTask({ id: ctx.params.task_id!, userId: b.user_id, ...expectedVersion(ctx, b.version) }, state.caller!);
      okVersioned(ctx, present.task(task));
    },
  );
}
