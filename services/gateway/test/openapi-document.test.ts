import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gatewayRoutes } from '@mp/gateway';
import { currentOpenApiText } from '@mp/gateway/openapi';

// One source of truth: the document is generated from the route table, and the committed copy
// (docs/openapi.json) is what integrators and the SDK read. Regenerate it with
// `npm run build -w @mp/gateway && npm run openapi -w @mp/gateway`.
const committedPath = fileURLToPath(new URL('../../../docs/openapi.json', import.meta.url));

describe('OpenAPI document', () => {
  const routes = gatewayRoutes().filter((r) => r.path.startsWith('/v3/'));
  const document = JSON.parse(currentOpenApiText()) as { paths: Record<string, Record<string, { 'x-error-codes': number[] }>> };

  it('documents every route the gateway answers below /v3', () => {
    const undocumented = routes.filter((r) => !r.spec).map((r) => `${r.method} ${r.path}`);
    expect(undocumented).toEqual([]);
    const missing = routes
      .map((r) => ({ method: r.method.toLowerCase(), path: r.path.slice('/v3'.length).replace(/:([a-z_]+)/g, '{$1}') }))
      .filter((r) => !document.paths[r.path]?.[r.method])
      .map((r) => `${r.method} ${r.path}`);
    expect(missing).toEqual([]);
    const operations = Object.values(document.paths).reduce((n, ops) => n + Object.keys(ops).length, 0);
    expect(operations).toBe(routes.length);
  });

  it('declares for each route the path its handler is mounted at', () => {
    for (const r of routes) expect(`/v3${r.spec!.path}`).toBe(r.path);
    for (const r of routes) expect(r.spec!.method.toUpperCase()).toBe(r.method);
  });

  it('matches the committed docs/openapi.json byte for byte', () => {
    // On a difference: rebuild the gateway and run `npm run openapi -w @mp/gateway`, then commit.
    expect(currentOpenApiText() === readFileSync(committedPath, 'utf8')).toBe(true);
  });

  it('lists the codes every route can answer, with the transition tables where a status changes', () => {
    expect(document.paths['/webhooks/{webhook_id}/deliveries']!.get!['x-error-codes']).toEqual(expect.arrayContaining([404009, 401001, 429001, 429004]));
    expect(document.paths['/projects/{project_id}/data']!.post!['x-error-codes']).toEqual(expect.arrayContaining([429002, 422303, 404001, 403001]));
    const status = document.paths['/tasks/{task_id}/status']!.put! as unknown as { 'x-status-transitions': { table: Record<string, string[]> } };
    expect(status['x-status-transitions'].table.pending).toEqual(['in_progress', 'cancelled']);
    expect(document.paths['/openapi.json']!.get!).toMatchObject({ security: [] });
  });
});
