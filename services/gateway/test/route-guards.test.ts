import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import Koa, { type Middleware } from 'koa';
import { routeGuards, type RouteGuardDeps } from '../src/api/route-guards.js';
import { aroundGuards, gatewayRouter, route, type RouteSpec } from '../src/api/route-spec.js';
import { routesOf } from '../src/api/routes-of.js';
import { gatewayRoutes } from '../src/route-table.js';

const spec: RouteSpec = {
  method: 'post',
  path: '/things',
  summary: 'Make a thing.',
  tag: 'Things',
  auth: 'api_key_or_bearer',
  permission: 'project:write',
  rateLimit: 'tenant',
};

// route() puts a route's middleware in one order whatever the route file passes: what wraps the
// guards, the spec's checks, the route's own checks, the body reader, the handler. Each step
// here only records that it ran, so the order is what the test observes over real HTTP.
describe('route(): the guards come from the spec', () => {
  it('runs the around middleware, the spec checks, the route’s own checks, the body reader and the handler, in that order', async () => {
    const ran: string[] = [];
    const step =
      (name: string): Middleware =>
      async (_ctx, next) => {
        ran.push(name);
        await next();
      };
    const seen: RouteSpec[] = [];
    const router = gatewayRouter((s) => {
      seen.push(s);
      return { checks: [step('authenticate'), step('permission')], body: [step('body')] };
    });
    route(router, spec, aroundGuards(step('around')), step('own check'), (ctx) => {
      ran.push('handler');
      ctx.body = { ok: true };
    });
    expect(seen).toEqual([spec]);

    const app = new Koa();
    app.use(router.routes());
    const server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/things`, { method: 'POST' });
      expect(res.status).toBe(200);
      expect(ran).toEqual(['around', 'authenticate', 'permission', 'own check', 'body', 'handler']);
    } finally {
      server.close();
    }
    expect(routesOf(app)).toEqual([{ method: 'POST', path: '/things', spec }]);
  });

  it('derives the checks from the spec: none for a public document, credentials, limit, permission and feature in turn, one shared check per kind', () => {
    // Building the chains only captures the dependencies; no request is served here.
    const guards = routeGuards({} as RouteGuardDeps);
    expect(guards({ ...spec, auth: 'none', rateLimit: 'none', permission: undefined })).toEqual({ checks: [], body: [] });
    const anonymous = guards({ ...spec, auth: 'none', rateLimit: 'authentication', permission: undefined });
    expect([anonymous.checks.length, anonymous.body.length]).toEqual([1, 1]);
    const plain = guards(spec);
    expect([plain.checks.length, plain.body.length]).toEqual([3, 1]);
    const featured = guards({ ...spec, feature: 'reports' });
    expect(featured.checks.length).toBe(4);
    expect(featured.checks.slice(0, 3)).toEqual(plain.checks);
    const otherPermission = guards({ ...spec, permission: 'data:write' });
    expect(otherPermission.checks[2]).not.toBe(plain.checks[2]);
    expect(guards({ ...spec, auth: 'api_key_or_user_bearer' }).checks[0]).not.toBe(plain.checks[0]);
  });

  it('gives every route that needs credentials a spec naming them, and every feature route a permission too', () => {
    const routes = gatewayRoutes().filter((r) => r.path.startsWith('/v3/'));
    expect(routes.length).toBeGreaterThan(80);
    for (const r of routes) {
      expect(r.spec).toBeDefined();
      if (r.spec!.feature) expect(r.spec!.permission).toBeDefined();
      if (r.spec!.permission) expect(r.spec!.auth).not.toBe('none');
    }
  });
});
