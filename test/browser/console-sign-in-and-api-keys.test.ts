import type { BrowserContext, Page } from 'playwright-core';
import { httpsRequest } from '@mp/testing';
import { launchChromium } from '../support/browser.js';
import { consoleUrl, LAPTOP, openPage, screenshot } from '../support/console.js';
import { expectError, startTestPlatform, type TestPlatform } from '../support/platform.js';

// The console's sign-in (docs/rules.md#console-session: access token in memory, refresh token in an HttpOnly
// cookie) and its API management page, in headless Chromium against the real platform.
describe('console: sign-in and API keys', () => {
  let t: TestPlatform;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let context: BrowserContext;
  let page: Page;
  let origin: string;

  beforeAll(async () => {
    t = await startTestPlatform();
    browser = await launchChromium({ viewport: LAPTOP });
    context = browser.context;
    page = await context.newPage();
    origin = new URL(t.base).origin;
  });
  afterAll(async () => {
    await browser?.close();
    await t?.stop();
  });

  it('serves the console with a strict CSP and no framing, from the gateway alone', async () => {
    const requested: string[] = [];
    page.on('request', (r) => requested.push(r.url()));
    const res = await page.goto(consoleUrl(t));
    expect(res!.status()).toBe(200);
    const h = res!.headers();
    expect(h['content-security-policy']).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'",
    );
    expect(h['x-frame-options']).toBe('DENY');
    expect(h['cache-control']).toBe('no-store');
    expect(h['referrer-policy']).toBe('no-referrer');
    await page.getByRole('heading', { level: 1, name: 'Sign in to the console' }).waitFor();
    // Everything the page loaded came from the gateway itself (works offline).
    expect(requested.length).toBeGreaterThan(1);
    expect(requested.every((u) => u.startsWith(`${origin}/console`))).toBe(true);
    await screenshot(page, '01-sign-in');

    // A hashed asset may be cached for good; an unknown file is refused.
    const js = requested.find((u) => u.endsWith('.js'))!;
    const asset = await httpsRequest(js);
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(asset.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expectError(await httpsRequest(`${origin}/console/assets/..%2f..%2fpackage.json`), 400001, 'path');
  });

  it('refuses a wrong password with the API error, then signs in keeping the refresh token out of reach of scripts', async () => {
    await page.goto(consoleUrl(t));
    await page.getByLabel('Username').fill(t.admin.username);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('401008');
    expect(await context.cookies(origin)).toEqual([]);

    await page.getByLabel('Password').fill(t.admin.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    const cookies = await context.cookies(`${origin}/console/session`);
    expect(cookies.map((c) => ({ name: c.name, path: c.path, httpOnly: c.httpOnly, secure: c.secure, sameSite: c.sameSite, expires: c.expires }))).toEqual([
      { name: '__Secure-mp_console_refresh_live', path: '/console/session', httpOnly: true, secure: true, sameSite: 'Strict', expires: -1 },
    ]);
    // Nothing of the session is in web storage or visible to document.cookie.
    expect(await page.evaluate(() => [localStorage.length, sessionStorage.length, document.cookie])).toEqual([0, 0, '']);
    expect(await page.getByText('Live', { exact: true }).count()).toBe(1);
  });

  it('keeps the session across a reload through the cookie alone', async () => {
    await openPage(page, 'API keys');
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
  });

  it('creates a key with permissions and expiry, shows its value once, rolls it with a grace period and revokes it', async () => {
    await page.getByLabel('Key name').fill('Site logger');
    await page.getByLabel('Expires on (optional)').fill('2099-12-31');
    await page.getByRole('group', { name: 'Permissions' }).getByLabel('project:read').check();
    await page.getByRole('group', { name: 'Permissions' }).getByLabel('data:write').check();
    const sent = page.waitForRequest((r) => r.method() === 'POST' && r.url() === `${origin}/v3/api-keys`);
    await page.getByRole('button', { name: 'Create key' }).click();
    // The call goes through the SDK's browser entry: a creating write carries an Idempotency-Key,
    // the in-memory access token is the bearer, and no cookie travels to the API.
    const headers = await (await sent).allHeaders();
    expect(headers['idempotency-key']).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(headers['authorization']).toMatch(/^Bearer ey/);
    expect(headers['cookie']).toBeUndefined();
    const shown = page.getByLabel('New key “Site logger”:');
    await shown.waitFor();
    const key = (await shown.textContent())!;
    expect(key).toMatch(/^mp_live_[0-9A-Za-z]{32}$/);
    await page.getByRole('button', { name: 'Copy' }).waitFor();

    const row = page.getByRole('row', { name: /Site logger/ });
    await row.waitFor();
    const stored = (await t.api('GET', '/api-keys', { headers: { authorization: `Bearer ${await t.login()}` } })).body.data.items;
    expect(stored).toEqual([
      expect.objectContaining({ name: 'Site logger', permissions: ['project:read', 'data:write'], expires_at: '2099-12-31T23:59:59.000Z' }),
    ]);
    expect(key.startsWith(stored[0].prefix)).toBe(true);
    expect(await row.getByRole('cell').allTextContents()).toEqual([
      `${stored[0].prefix}…`,
      'project:read data:write',
      'active',
      expect.stringMatching(/ UTC$/),
      '2099-12-31 23:59:59 UTC',
      'never',
      'RollRevoke',
    ]);

    // The key works; after a reload the page shows when it was last used.
    expect((await t.api('GET', '/projects', { headers: { 'x-api-key': key } })).status).toBe(200);
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
    expect(await page.getByLabel('New key “Site logger”:').count()).toBe(0);
    expect(await row.getByRole('cell').nth(5).textContent()).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);

    // Roll with one hour of grace: both values work for now.
    await page.getByLabel('Grace period when rolling').selectOption('3600');
    await page.getByRole('button', { name: 'Roll Site logger' }).click();
    const rolled = page.getByLabel('New value of “Site logger”:');
    await rolled.waitFor();
    const newKey = (await rolled.textContent())!;
    expect(newKey).toMatch(/^mp_live_[0-9A-Za-z]{32}$/);
    expect(newKey).not.toBe(key);
    await row.getByText(/previous value until/).waitFor();
    expect((await t.api('GET', '/projects', { headers: { 'x-api-key': key } })).status).toBe(200);
    expect((await t.api('GET', '/projects', { headers: { 'x-api-key': newKey } })).status).toBe(200);
    await screenshot(page, '02-api-keys');

    page.once('dialog', (d) => d.accept());
    await page.getByRole('button', { name: 'Revoke Site logger' }).click();
    await row.getByText('revoked', { exact: true }).waitFor();
    expect(await page.getByRole('button', { name: 'Revoke Site logger' }).count()).toBe(0);
    expectError(await t.api('GET', '/projects', { headers: { 'x-api-key': newKey } }), 401001);
    expectError(await t.api('GET', '/projects', { headers: { 'x-api-key': key } }), 401001);
  });

  it('shows the API refusal of an expiry in the past next to the form, and creates nothing', async () => {
    await page.getByLabel('Key name').fill('Old key');
    await page.getByRole('group', { name: 'Permissions' }).getByLabel('system:admin').check();
    await page.getByLabel('Expires on (optional)').fill('2001-01-01');
    await page.getByRole('button', { name: 'Create key' }).click();
    const alert = page.getByRole('form', { name: 'Create a key' }).getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('(422103)');
    expect(await alert.textContent()).toContain('expires_at must be in the future.');
    const stored = (await t.api('GET', '/api-keys', { headers: { authorization: `Bearer ${await t.login()}` } })).body.data.items;
    expect(stored.map((k: { name: string }) => k.name)).toEqual(['Site logger']);
  });

  it('signs out: the cookie is dropped and its session ends', async () => {
    const [cookie] = await context.cookies(`${origin}/console/session`);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { level: 1, name: 'Sign in to the console' }).waitFor();
    expect(await context.cookies(`${origin}/console/session`)).toEqual([]);
    // The old refresh token is refused even when replayed by hand.
    const replay = await httpsRequest(`${origin}/console/session/refresh`, {
      method: 'POST',
      headers: { 'x-mp-console': '1', origin, cookie: `${cookie!.name}=${cookie!.value}` },
    });
    expect(replay.status).toBe(401);
    expect(String(replay.headers['set-cookie'])).toContain('Max-Age=0');
  });
});

describe('console session endpoints refuse cross-site requests', () => {
  let t: TestPlatform;
  let origin: string;
  const signInBody = () => ({ username: t.admin.username, password: t.admin.password });

  beforeAll(async () => {
    t = await startTestPlatform();
    origin = new URL(t.base).origin;
  });
  afterAll(async () => t?.stop());

  it('needs the console header (a cross-site form cannot send one) and sets no cookie without it', async () => {
    const res = await httpsRequest(`${origin}/console/session`, { method: 'POST', headers: { origin }, body: signInBody() });
    expectError(res, 400001, 'X-MP-Console');
    expect(res.headers['set-cookie']).toBeUndefined();
  });

  it('needs the Origin of the console itself', async () => {
    for (const headers of [
      { 'x-mp-console': '1' } as Record<string, string>,
      { 'x-mp-console': '1', origin: 'https://attacker.example' },
      { 'x-mp-console': '1', origin: origin.replace('https', 'http') },
    ]) {
      const res = await httpsRequest(`${origin}/console/session`, { method: 'POST', headers, body: signInBody() });
      expectError(res, 400001, 'Origin');
      expect(res.headers['set-cookie']).toBeUndefined();
    }
  });

  it('signs in: the refresh token only in the cookie, the refresh rotates it, and the sandbox keeps a cookie of its own', async () => {
    const res = await httpsRequest(`${origin}/console/session`, { method: 'POST', headers: { 'x-mp-console': '1', origin }, body: signInBody() });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data).sort()).toEqual(['access_token', 'expires_in', 'scope', 'token_type']);
    const [setCookie] = res.headers['set-cookie'] as string[];
    expect(setCookie).toMatch(/^__Secure-mp_console_refresh_live=[^;]+; Path=\/console\/session; HttpOnly; Secure; SameSite=Strict$/);
    const cookie = setCookie!.split(';')[0]!;
    // The access token is a user session: /me answers with it.
    expect((await t.api('GET', '/me', { headers: { authorization: `Bearer ${res.body.data.access_token}` } })).body.data.principal_type).toBe('user');

    const renewed = await httpsRequest(`${origin}/console/session/refresh`, { method: 'POST', headers: { 'x-mp-console': '1', origin, cookie } });
    expect(renewed.status).toBe(200);
    const rotated = (renewed.headers['set-cookie'] as string[])[0]!.split(';')[0]!;
    expect(rotated).not.toBe(cookie);

    // The live cookie means nothing to the sandbox (another environment, another cookie name).
    const sandboxOrigin = new URL(t.sandboxBase).origin;
    const other = await httpsRequest(`${sandboxOrigin}/console/session/refresh`, {
      method: 'POST',
      headers: { 'x-mp-console': '1', origin: sandboxOrigin, cookie: rotated },
    });
    expectError(other, 401003, 'refresh_token');
  });
});
