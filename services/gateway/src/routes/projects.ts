import { z } from 'zod';
import { PROJECT_STATUSES, PROJECT_TRANSITIONS } from '@mp/contracts';
import type { ServiceClients } from '../clients.js';
import { projectsWithAlarms } from '../alarm-state.js';
import { ok } from '../envelope.js';
import { presentProjects as present } from '../presenters-projects.js';
import { entityNameText, enumText, instantText, MAX_LENGTH, text, timeZoneText } from '../bounds.js';
import { listData, pageOf, pageQuery, validate } from '../validate.js';
import { deviceRoutes } from './devices.js';
import { memberRoutes } from './members.js';
import { pointRoutes } from './points.js';
import { sitePlanRoutes } from './site-plan.js';
import { taskRoutes } from './tasks.js';
import { defined, expectedVersion, nulls, okVersioned, versionBody, versionField } from './versioning.js';
import * as api from '../api/resources.js';
import { route, type GatewayRouter } from '../api/route-spec.js';

const bounds = z.object({ min_x: z.number(), max_x: z.number(), min_y: z.number(), max_y: z.number(), min_z: z.number(), max_z: z.number() });
const toBounds = (b: z.infer<typeof bounds>) => ({ minX: b.min_x, maxX: b.max_x, minY: b.min_y, maxY: b.max_y, minZ: b.min_z, maxZ: b.max_z });

const createBody = z.object({
  name: entityNameText(),
  number: text(MAX_LENGTH.number),
  description: text(MAX_LENGTH.description).optional(),
  start_date: instantText().optional(),
  end_date: instantText().optional(),
  bounds: bounds.optional(),
  time_zone: timeZoneText().optional(),
});

const CLEARABLE = ['description', 'start_date', 'end_date', 'bounds'] as const;

const patchBody = z.object({
  name: entityNameText().optional(),
  number: text(MAX_LENGTH.number).optional(),
  description: text(MAX_LENGTH.description).nullable().optional(),
  start_date: instantText().nullable().optional(),
  end_date: instantText().nullable().optional(),
  bounds: bounds.nullable().optional(),
  time_zone: timeZoneText().optional(),
  version: versionField,
});

const statusBody = z.object({ status: enumText(PROJECT_STATUSES), remark: text(MAX_LENGTH.remark).optional(), version: versionField });

const listQuery = pageQuery.extend({ status: enumText(PROJECT_STATUSES).optional(), q: text(MAX_LENGTH.search).optional() });

/**
 * Projects (project:read / project:write), and — registered from here so that app.ts needs no
 * change per resource — the rest of the projects domain: members, tasks, points and devices.
 */
export function projectRoutes(router: GatewayRouter, clients: ServiceClients): void {
  route(
    router,
    {
      method: 'post',
      path: '/projects',
      summary: 'Create a project (status not_started).',
      tag: 'Projects',
      auth: 'api_key_or_bearer',
      permission: 'project:write',
      rateLimit: 'tenant',
      body: createBody,
      response: api.project,
      errors: ['409001', '422103', '422204'],
      idempotent: true,
    },
    async (ctx) => {
      const state = ctx.state;
      const b = validate(createBody, state.body ?? {}, 'body');
      const project = await clients.projects.createProject(
        defined({
          name: b.name,
          number: b.number,
          description: b.description,
          startDate: b.start_date,
          endDate: b.end_date,
          bounds: b.bounds ? toBounds(b.bounds) : undefined,
          timeZone: b.time_zone,
        }),
        state.caller!,
      );
      okVersioned(ctx, present.project(project));
    },
  );

  route(
    router,
    {
      method: 'get',
      path: '/projects',
      summary: 'List the projects the caller can see, each with its open alarms.',
      tag: 'Projects',
      auth: 'api_key_or_bearer',
      permission: 'project:read',
      rateLimit: 'tenant',
      query: listQuery,
      response: api.listOf(api.projectWithAlarms),
    },
    async (ctx) => {
      const state = ctx.state;
      const q = validate(listQuery, ctx.query, 'query');
      const list = await clients.projects.listProjects({ page: pageOf(q), ...defined({ status: q.status, q: q.q }) }, state.caller!);
      ok(
        ctx,
        listData(await projectsWithAlarms(clients, state.caller!, list.items), (p) => p, list.page),
      );
    },
  );

  route(
    router,
    {
      method: 'get',
      path: '/projects/:project_id',
      summary: 'One project with its open alarms (ETag: its version).',
      tag: 'Projects',
      auth: 'api_key_or_bearer',
      permission: 'project:read',
      rateLimit: 'tenant',
      response: api.projectWithAlarms,
    },
    async (ctx) => {
      const state = ctx.state;
      const project = await clients.projects.getProject({ id: ctx.params.project_id! }, state.caller!);
      okVersioned(ctx, (await projectsWithAlarms(clients, state.caller!, [project]))[0]!);
    },
  );

  route(
    router,
    {
      method: 'patch',
      path: '/projects/:project_id',
      summary: "Change a project's fields (null clears an optional one).",
      tag: 'Projects',
      auth: 'api_key_or_bearer',
      permission: 'project:write',
      rateLimit: 'tenant',
      body: patchBody,
      response: api.project,
      errors: ['409001', '409004', '422103', '422204', '422301'],
    },
    async (ctx) => {
      const state = ctx.state;
      const raw = (state.body ?? {}) as Record<string, unknown>;
      const b = validate(patchBody, raw, 'body');
      const project = await clients.projects.updateProject(
        {
          id: ctx.params.project_id!,
          ...expectedVersion(ctx, b.version),
          ...defined({
            name: b.name,
            number: b.number,
            description: b.description,
            startDate: b.start_date,
            endDate: b.end_date,
            bounds: b.bounds ? toBounds(b.bounds) : undefined,
            timeZone: b.time_zone,
          }),
          clear: nulls(raw, CLEARABLE),
        },
        state.caller!,
      );
      okVersioned(ctx, present.project(project));
    },
  );

  route(
    router,
    {
      method: 'delete',
      path: '/projects/:project_id',
      summary: 'Delete a project.',
      tag: 'Projects',
      auth: 'api_key_or_bearer',
      permission: 'project:write',
      rateLimit: 'tenant',
      body: versionBody,
      response: api.deleted(api.project),
      errors: ['409004', '422301'],
    },
    async (ctx) => {
      const state = ctx.state;
      const b = validate(versionBody, state.body ?? {}, 'body');
      const project = await clients.projects.deleteProject({ id: ctx.params.project_id!, ...expectedVersion(ctx, b.version) }, state.caller!);
      ok(ctx, { ...present.project(project), deleted: true });
    },
  );

  route(
    router,
    {
      method: 'put',
      path: '/projects/:project_id/status',
      summary: 'Move a project to another status along the transition table.',
      tag: 'Projects',
      auth: 'api_key_or_bearer',
      permission: 'project:write',
      rateLimit: 'tenant',
      body: statusBody,
      response: api.project,
      errors: ['409004', '409008', '422301'],
      transitions: { field: 'status', table: PROJECT_TRANSITIONS },
    },
    async (ctx) => {
      const state = ctx.state;
      const b = validate(statusBody, state.body ?? {}, 'body');
      const project = await clients.projects.changeProjectStatus(
        { id: ctx.params.project_id!, status: b.status, ...defined({ remark: b.remark }), ...expectedVersion(ctx, b.version) },
        state.caller!,
      );
      okVersioned(ctx, present.project(project));
    },
  );

  memberRoutes(router, clients);
  taskRoutes(router, clients);
  pointRoutes(router, clients);
  deviceRoutes(router, clients);
  sitePlanRoutes(router, clients);
}
