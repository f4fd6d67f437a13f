import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { z } from 'zod';
import { DomainError } from '@mp/errors';
import { route } from '../api/route-spec.js';
import { ok } from '../envelope.js';
import type { Readiness } from '../readiness.js';

const healthAnswer = z.object({ status: z.literal('ok') });
const readyAnswer = z.object({ status: z.literal('ready'), services: z.record(z.string(), z.string()) });

/**
 * The public, unauthenticated routes below /v3: the OpenAPI document and the health probes.
 * `openApiJson` gives the document as JSON text (built once from the application's route table).
 */
export function referenceRoutes(router: Router, deps: { readiness: Readiness; openApiJson: () => string }): void {
  route(
    router,
    {
      method: 'get',
      path: '/openapi.json',
      summary: 'This OpenAPI 3.1 document, generated from the route table; no credentials needed.',
      tag: 'Reference',
      auth: 'none',
      rateLimit: 'none',
      response: z.record(z.string(), z.unknown()),
      answer: 'bare',
    },
    (ctx) => {
      ctx.set('Cache-Control', 'public, max-age=300');
      ctx.type = 'application/json';
      ctx.body = deps.openApiJson();
    },
  );
  route(
    router,
    { method: 'get', path: '/healthz', summary: 'Liveness: the gateway answers.', tag: 'Reference', auth: 'none', rateLimit: 'none', response: healthAnswer },
    healthz,
  );
  route(
    router,
    {
      method: 'get',
      path: '/readyz',
      summary: 'Readiness: every service the gateway calls is serving (503002 names those that are not).',
      tag: 'Reference',
      auth: 'none',
      rateLimit: 'none',
      response: readyAnswer,
    },
    readyz(deps.readiness),
  );
}

export const healthz: Middleware = (ctx) => ok(ctx, { status: 'ok' });

export const readyz =
  (readiness: Readiness): Middleware =>
  async (ctx) => {
    const r = await readiness.check();
    if (!r.ready)
      throw new DomainError('503002', {
        detail: `Not ready: ${Object.entries(r.services)
          .filter(([, s]) => s !== 'SERVING')
          .map(([n]) => n)
          .join(', ')} unavailable.`,
      });
    ok(ctx, { status: 'ready', services: r.services });
  };
