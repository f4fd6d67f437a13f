import type { Middleware } from 'koa';
import { z } from 'zod';
import { DomainError } from '@mp/errors';
import type { Route } from '../api/route-spec.js';
import { ok } from '../envelope.js';

const healthAnswer = z.object({ status: z.literal('ok') });
const readyAnswer = z.object({ status: z.literal('ready') });

/**
 * The public, unauthenticated routes below /v3: the OpenAPI document and the health probes.
 * `openApiJson` gives the document as JSON text (built once from the application's route table).
 */
export const referenceRoutes = (deps: { ready: () => boolean; openApiJson: () => string }): Route[] => [
  {
    spec: {
      method: 'get',
      path: '/openapi.json',
      summary: 'This OpenAPI 3.1 document, generated from the route table; no credentials needed.',
      tag: 'Reference',
      auth: 'none',
      rateLimit: 'none',
      response: z.record(z.string(), z.unknown()),
      answer: 'bare',
    },
    handler: (ctx) => {
      ctx.set('Cache-Control', 'public, max-age=300');
      ctx.type = 'application/json';
      ctx.body = deps.openApiJson();
    },
  },
  {
    spec: {
      method: 'get',
      path: '/healthz',
      summary: 'Liveness: the gateway answers.',
      tag: 'Reference',
      auth: 'none',
      rateLimit: 'none',
      response: healthAnswer,
    },
    handler: healthz,
  },
  {
    spec: {
      method: 'get',
      path: '/readyz',
      summary: "Readiness of this gateway process itself (503002 while it drains); backends' health is a metric of the ops port, never named here (ADR 0045).",
      tag: 'Reference',
      auth: 'none',
      rateLimit: 'none',
      response: readyAnswer,
    },
    handler: readyz(deps.ready),
  },
];

export const healthz: Middleware = (ctx) => ok(ctx, { status: 'ok' });

/** This process's own ability to serve, and nothing about what lies behind it (ADR 0045). */
export const readyz =
  (ready: () => boolean): Middleware =>
  (ctx) => {
    if (!ready()) throw new DomainError('503002', { detail: 'This gateway is shutting down.', suggestion: 'Retry the request; another gateway answers it.' });
    ok(ctx, { status: 'ready' });
  };
