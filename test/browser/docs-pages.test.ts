import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { httpsRequest } from '@mp/testing';
import { expectError, startTestPlatform, type TestPlatform } from '../support/platform.js';

// The public reference (/docs, rendered by Swagger UI from /v3/openapi.json, every file served by
// the gateway itself) and the error pages that meta.documentation_url names, in headless Chromium.
const SCREENSHOTS = process.env.MP_SCREENSHOT_DIR ?? tmpdir();

describe('API reference and error pages', () => {
  let t: TestPlatform;
  let context: BrowserContext | undefined;
  let origin: string;
  const profile = mkdtempSync(join(tmpdir(), 'mp-chromium-'));

  beforeAll(async () => {
    t = await startTestPlatform();
    origin = t.base.replace(/\/v3$/, '');
    context = await chromium.launchPersistentContext(profile, {
      ignoreHTTPSErrors: true,
      executablePath: process.env.MP_CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  });
  afterAll(async () => {
    await context?.close();
    await t?.stop();
    rmSync(profile, { recursive: true, force: true });
  });

  it('serves the OpenAPI document without credentials, equal to the committed docs/openapi.json', async () => {
    const res = await httpsRequest(`${t.base}/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body.openapi).toBe('3.1.0');
    const committed = JSON.parse(readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8'));
    expect(res.body).toEqual(committed);
  });

  it('renders the reference from the document with nothing fetched from another origin', async () => {
    const page = await context!.newPage();
    const elsewhere: string[] = [];
    const failed: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith(origin) && !r.url().startsWith('data:')) elsewhere.push(r.url());
    });
    page.on('requestfailed', (r) => failed.push(r.url()));
    page.on('response', (r) => {
      if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`);
    });
    const consoleErrors: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text());
    });
    const res = await page.goto(`${origin}/docs`);
    expect(res!.status()).toBe(200);
    // Swagger UI draws one block per operation, grouped by tag.
    await page.locator('.opblock').first().waitFor({ timeout: 30_000 });
    const document = (await httpsRequest(`${t.base}/openapi.json`)).body as { paths: Record<string, object>; webhooks: Record<string, object> };
    // every operation of the API and every webhook event the platform sends
    const operations = [...Object.values(document.paths), ...Object.values(document.webhooks)].reduce((n, ops) => n + Object.keys(ops).length, 0);
    expect(Object.keys(document.webhooks).length).toBeGreaterThanOrEqual(17);
    expect(await page.locator('.opblock').count()).toBe(operations);
    expect(await page.locator('.opblock-tag').allTextContents()).toEqual(
      expect.arrayContaining([expect.stringContaining('Projects'), expect.stringContaining('Webhooks')]),
    );
    // Open one operation: its body schema and its error codes show.
    await page.locator('#operations-Projects-postProjects').locator('.opblock-summary').click();
    await page.locator('#operations-Projects-postProjects .responses-table').first().waitFor();
    expect(await page.locator('#operations-Projects-postProjects').textContent()).toContain('409001 duplicate project number');
    await page.screenshot({ path: join(SCREENSHOTS, 'mp-docs-reference.png'), fullPage: false });
    // The reference once opened with a red block about jsonSchemaDialect (Swagger UI flags
    // any dialect but OpenAPI 3.1's own); now the dialect is stated, and nothing is flagged.
    expect(await page.locator('.info__jsonschemadialect').textContent()).toBe('JSON Schema dialect: https://spec.openapis.org/oas/3.1/dialect/base');
    expect(await page.locator('.error-wrapper').count()).toBe(0);
    expect(elsewhere).toEqual([]);
    expect(failed).toEqual([]);
    expect(consoleErrors).toEqual([]);
    await page.close();
  });

  it('links every error to a public HTML page of its code', async () => {
    const key = await t.apiKey(['project:read']);
    const refused = await t.api('GET', '/projects/prj_00000000000000000000', { headers: { 'x-api-key': key } });
    expectError(refused, 404001, 'project_id');
    const url = refused.body.meta.documentation_url as string;
    expect(url).toBe(`https://localhost:${t.platform.gateway.port}/docs/errors/404001`);
    const page = await context!.newPage();
    // The same page on the address the test reaches (the URL names localhost, the test uses 127.0.0.1).
    const res = await page.goto(`${origin}${new URL(url).pathname}`);
    expect(res!.status()).toBe(200);
    expect(res!.headers()['content-type']).toMatch(/^text\/html/);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('404001 project does not exist');
    expect(await page.getByRole('heading', { level: 2 }).allTextContents()).toEqual(['Common causes', 'Solutions', 'Example', "The answer's shape"]);
    await page.screenshot({ path: join(SCREENSHOTS, 'mp-docs-error-404001.png'), fullPage: true });
    await page.goto(`${origin}/docs/errors`);
    expect(await page.locator('tbody tr').count()).toBeGreaterThan(60);
    await page.close();
  });

  it('answers an unknown error code and an unknown path with the 404 envelope naming them', async () => {
    expectError(await httpsRequest(`${origin}/docs/errors/999999`), 404015, 'code');
    const unknown = await httpsRequest(`${origin}/docs/nothing-here`);
    expectError(unknown, 404015, 'path');
    expect(unknown.body.data.detail).toContain('/docs/nothing-here');
    // Only the reference's own files are served; a name of an object's prototype is no file.
    for (const name of ['valueOf', '__proto__', 'constructor', 'package.json', '..%2Fpackage.json']) {
      expectError(await httpsRequest(`${origin}/docs/assets/${name}`), 404015, 'path');
    }
  });
});
