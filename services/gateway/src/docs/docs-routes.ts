import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import Router from '@koa/router';
import type { Context } from 'koa';
import { catalogue, DomainError } from '@mp/errors';
import { DOCS_STYLE, errorIndexPage, errorPage, REFERENCE_SCRIPT, referencePage } from './pages.js';

/** The files of swagger-ui-dist the reference page loads; nothing else of the package is served. */
// A Map, not an object: a name such as `valueOf` or `__proto__` must not find anything.
const PACKAGE_ASSETS = new Map<string, string>([
  ['swagger-ui.css', 'text/css; charset=utf-8'],
  ['swagger-ui-bundle.js', 'text/javascript; charset=utf-8'],
  ['favicon-32x32.png', 'image/png'],
]);

/** Read once, on first use: the bundle is about 1.5 MB and the same for every request. */
function assetLoader(): (name: string) => Buffer {
  const dir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const cache = new Map<string, Buffer>();
  return (name) => {
    let bytes = cache.get(name);
    if (!bytes) cache.set(name, (bytes = readFileSync(join(dir, name))));
    return bytes;
  };
}

/**
 * Scripts only from this origin (no inline script, nothing fetched from elsewhere); Swagger UI
 * sets inline styles and draws icons as data: images. No framing.
 */
function pageHeaders(ctx: Context, cacheable: boolean): void {
  ctx.set({
    'Content-Security-Policy':
      "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; font-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': cacheable ? 'public, max-age=3600' : 'no-store',
  });
}

/**
 * GET /docs (the reference), /docs/errors and /docs/errors/{code}: public pages, no credentials,
 * not rate limited by tenant (there is none). An unknown code is the 404 envelope like any
 * unknown path.
 */
export function docsRoutes(): ReturnType<Router['routes']> {
  const router = new Router({ prefix: '/docs' });
  const asset = assetLoader();
  const html = (ctx: Context, body: string) => {
    pageHeaders(ctx, true);
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = body;
  };
  router.get('/', (ctx) => html(ctx, referencePage()));
  router.get('/errors', (ctx) => html(ctx, errorIndexPage()));
  router.get('/errors/:code', (ctx) => {
    const entry = /^\d{6}$/.test(ctx.params.code!) ? catalogue[ctx.params.code!] : undefined;
    if (!entry) {
      throw new DomainError('404015', {
        field: 'code',
        detail: `There is no error code ${ctx.params.code!.slice(0, 20)} in this API.`,
        suggestion: 'See every code at /docs/errors.',
      });
    }
    html(ctx, errorPage(entry));
  });
  router.get('/assets/:file', (ctx) => {
    const file = ctx.params.file!;
    pageHeaders(ctx, true);
    if (file === 'reference.js') {
      ctx.type = 'text/javascript; charset=utf-8';
      ctx.body = REFERENCE_SCRIPT;
    } else if (file === 'docs.css') {
      ctx.type = 'text/css; charset=utf-8';
      ctx.body = DOCS_STYLE;
    } else if (PACKAGE_ASSETS.has(file)) {
      ctx.type = PACKAGE_ASSETS.get(file)!;
      ctx.body = asset(file);
    } else {
      throw new DomainError('404015', { field: 'path', detail: `No file ${ctx.path.slice(0, 200)}.`, suggestion: 'Open the reference at /docs.' });
    }
  });
  return router.routes();
}
