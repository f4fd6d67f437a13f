import type { BrowserContext } from 'playwright-core';
import { launchChromium } from '../support/browser.js';
import { startTestPlatform, type TestPlatform } from '../support/platform.js';

// The OAuth login and consent page driven once in a real browser: Debian's chromium
// (scripts/ensure-infra.sh installs it) through playwright-core. The application's callback is
// answered by the browser's request interception, so no server stands behind it.
const REDIRECT = 'https://partner.example.com/oauth/callback';

describe('OAuth consent page in headless Chromium', () => {
  let t: TestPlatform;
  let context: BrowserContext | undefined;
  let browser: Awaited<ReturnType<typeof launchChromium>> | undefined;

  beforeAll(async () => {
    t = await startTestPlatform();
    browser = await launchChromium();
    context = browser.context;
  });
  afterAll(async () => {
    await browser?.close();
    await t?.stop();
  });

  it('signs in (after a wrong password), lists the permissions, allows, and lands on the callback with code and state', async () => {
    const admin = { authorization: `Bearer ${await t.login()}` };
    const client = (await t.api('POST', '/oauth/clients', { headers: admin, body: { name: 'Partner dashboard', redirect_uris: [REDIRECT] } })).body.data;
    const page = await context!.newPage();
    const callbacks: string[] = [];
    await page.route(`${REDIRECT}**`, async (route) => {
      callbacks.push(route.request().url());
      await route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>Partner</title><p>Signed in.</p>' });
    });

    const authorize = `${t.base}/oauth/authorize?${new URLSearchParams({ client_id: client.client_id, redirect_uri: REDIRECT, response_type: 'code', scope: 'project:read data:read', state: 'browser-state' })}`;
    await page.goto(authorize);
    expect(await page.getAttribute('html', 'lang')).toBe('en');
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Allow Partner dashboard to use your account?');
    const permissions = page.getByRole('group', { name: 'Partner dashboard will be able to' }).getByRole('listitem');
    expect(await permissions.allTextContents()).toEqual(['project:read — read project information', 'data:read — read monitoring data']);

    // Accessible names: the fields are found by their labels, the buttons by their text.
    await page.getByLabel('Username').fill(t.admin.username);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Allow' }).click();
    const alert = page.getByRole('alert');
    expect(await alert.textContent()).toContain('The username or password is incorrect.');
    expect(await page.getByLabel('Username').getAttribute('aria-describedby')).toBe('signin-error');
    expect(await page.getByLabel('Username').inputValue()).toBe(t.admin.username);

    await page.getByLabel('Password').fill(t.admin.password);
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL(`${REDIRECT}**`);
    expect(callbacks).toHaveLength(1);
    const callback = new URL(callbacks[0]!);
    expect(callback.searchParams.get('state')).toBe('browser-state');
    const code = callback.searchParams.get('code');
    expect(code).toMatch(/^[0-9a-z]{43}$/);

    // The browser kept the CSRF cookie to itself: it was sent only to the gateway.
    const cookies = await context!.cookies(t.base);
    expect(cookies.every((c) => c.httpOnly && c.secure && c.sameSite === 'Strict')).toBe(true);

    // The application exchanges the code (JSON form) and gets the token object.
    const token = await t.api('POST', '/oauth/token', {
      body: { grant_type: 'authorization_code', client_id: client.client_id, client_secret: client.client_secret, code, redirect_uri: REDIRECT },
    });
    expect(token.status).toBe(200);
    expect(token.body).toMatchObject({ token_type: 'Bearer', expires_in: 7200, scope: 'project:read data:read' });
  });
});
