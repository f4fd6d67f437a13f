import { z } from 'zod';
import type { projects } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import * as api from '../api/resources.js';
import { route, type GatewayRouter } from '../api/route-spec.js';
import { idText, text } from '../bounds.js';
import type { ServiceClients } from '../clients.js';
import { ok } from '../envelope.js';
import { validate } from '../validate.js';

/** Base64 of the largest plan the projects service keeps (3 MiB), and no more: it fits the 5 MB body limit. */
const MAX_IMAGE_BASE64 = Math.ceil((3 * 1024 * 1024) / 3) * 4;
const MAX_POSITIONS = 2000;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

const planBody = z.object({
  image: text(MAX_IMAGE_BASE64).meta({ description: 'The drawing, a PNG or JPEG base64-encoded (at most 3 MiB decoded, 6000 × 6000 pixels).' }),
});
const fraction = z.number().meta({ description: 'A fraction of the drawing, 0 … 1.' });
const positionsBody = z.object({
  positions: z
    .array(
      z.object({
        point_id: idText(),
        x: fraction.meta({ description: 'From the left edge of the drawing, a fraction of its width (0 … 1).' }),
        y: fraction.meta({ description: 'From the top edge of the drawing, a fraction of its height (0 … 1).' }),
      }),
    )
    .max(MAX_POSITIONS),
});

const present = (p: projects.SitePlan, image: boolean) => ({
  project_id: p.projectId,
  content_type: p.contentType,
  size_bytes: p.size,
  sha256: p.sha256,
  width: p.width,
  height: p.height,
  ...(image ? { image: Buffer.from(p.image).toString('base64') } : {}),
  positions: p.positions.map((x) => ({ point_id: x.pointId, x: x.x, y: x.y })),
  updated_by: p.updatedBy || null,
  updated_at: p.updatedAt,
});

/**
 * A project's site plan (ADR 0121): a drawing of the site (PNG or JPEG) the points are placed on
 * by hand, for sites whose points have no coordinates or whose engineers read a drawing better
 * than a grid. Members read it (project:read); owners and editors change it (project:write). The
 * image travels base64 in JSON like the tenant's logo (ADR 0108): one body reader, its limits.
 */
export function sitePlanRoutes(router: GatewayRouter, clients: ServiceClients): void {
  route(
    router,
    {
      method: 'put',
      path: '/projects/:project_id/site-plan',
      summary: "Upload or replace the project's site plan (a drawing the points are placed on); the placements are kept.",
      tag: 'Projects',
      auth: 'api_key_or_bearer',
      permission: 'project:write',
      rateLimit: 'tenant',
      body: planBody,
      response: api.sitePlanSummary,
      errors: ['404001', '422101', '422103'],
    },
    async (ctx) => {
      const state = ctx.state;
      const b = validate(planBody, state.body ?? {}, 'body');
      const compact = b.image.replace(/\s/g, '');
      if (!BASE64.test(compact) || compact.length % 4 !== 0) {
        throw new DomainError('422103', {
          field: 'image',
          detail: 'image is not base64.',
          suggestion: 'Send the file base64-encoded, e.g. `base64 -w0 plan.png`.',
        });
      }
      const plan = await clients.projects.putSitePlan({ projectId: ctx.params.project_id!, image: Buffer.from(compact, 'base64') }, state.caller!);
      ok(ctx, present(plan, false));
    },
  );

  route(
    router,
    {
      method: 'get',
      path: '/projects/:project_id/site-plan',
      summary: "The project's site plan: the drawing (base64), its type, size and dimensions, and where each point is placed on it.",
      tag: 'Projects',
      auth: 'api_key_or_bearer',
      permission: 'project:read',
      rateLimit: 'tenant',
      response: api.sitePlan,
      errors: ['404001', '404040'],
    },
    async (ctx) => {
      ok(ctx, present(await clients.projects.getSitePlan({ projectId: ctx.params.project_id!, withImage: true }, ctx.state.caller!), true));
    },
  );

  route(
    router,
    {
      method: 'put',
      path: '/projects/:project_id/site-plan/positions',
      summary: 'Place points on the site plan: replaces every placement (a point left out is taken off the plan).',
      tag: 'Projects',
      auth: 'api_key_or_bearer',
      permission: 'project:write',
      rateLimit: 'tenant',
      body: positionsBody,
      response: api.sitePlanSummary,
      errors: ['400004', '404001', '404040', '422104', '422105', '422204'],
    },
    async (ctx) => {
      const state = ctx.state;
      const b = validate(positionsBody, state.body ?? {}, 'body');
      const plan = await clients.projects.placeOnSitePlan(
        { projectId: ctx.params.project_id!, positions: b.positions.map((p) => ({ pointId: p.point_id, x: p.x, y: p.y })) },
        state.caller!,
      );
      ok(ctx, present(plan, false));
    },
  );

  route(
    router,
    {
      method: 'delete',
      path: '/projects/:project_id/site-plan',
      summary: 'Remove the site plan and its placements; the console places the points by their coordinates again.',
      tag: 'Projects',
      auth: 'api_key_or_bearer',
      permission: 'project:write',
      rateLimit: 'tenant',
      response: api.deleted(api.sitePlanSummary),
      errors: ['404001', '404040'],
    },
    async (ctx) => {
      ok(ctx, {
        ...present(await clients.projects.deleteSitePlan({ projectId: ctx.params.project_id!, withImage: false }, ctx.state.caller!), false),
        deleted: true,
      });
    },
  );
}
