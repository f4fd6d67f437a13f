import type { Page } from 'playwright-core';
import { launchChromium } from '../support/browser.js';
import { consoleUrl, LAPTOP, openPage, signIn } from '../support/console.js';
import { startTestPlatform, type TestPlatform } from '../support/platform.js';

// The console on the sandbox port manages the sandbox; and it can be used with the keyboard alone.
describe('console: sandbox and keyboard', () => {
  let t: TestPlatform;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;

  beforeAll(async () => {
    t = await startTestPlatform();
    browser = await launchChromium({ viewport: LAPTOP });
    page = await browser.context.newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.stop();
  });

  it('signs in and creates a key with the keyboard alone, and the skip link moves focus to the content', async () => {
    await page.goto(consoleUrl(t));
    await page.getByRole('heading', { level: 1, name: 'Sign in to the console' }).waitFor();
    await page.keyboard.press('Tab');
    await page.keyboard.type(t.admin.username);
    await page.keyboard.press('Tab');
    await page.keyboard.type(t.admin.password);
    await page.keyboard.press('Enter');
    // The console opens on what needs attention; the new page's title has the focus, so a screen
    // reader announces it.
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Overview');
    await openPage(page, 'API keys');

    // From the top of the page, the first Tab reaches the skip link.
    await page.evaluate(() => {
      document.body.tabIndex = -1;
      document.body.focus();
    });
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('main');

    // Tab order runs through the key form: name, expiry (its day, month and year parts), the
    // permissions, the button. Tab until each is reached (a bounded number of presses).
    const tabTo = async (test: () => boolean) => {
      for (let i = 0; i < 20 && !(await page.evaluate(test)); i++) await page.keyboard.press('Tab');
      expect(await page.evaluate(test)).toBe(true);
    };
    await page.getByLabel('Key name').focus();
    await page.keyboard.type('Keyboard key');
    await tabTo(() => document.activeElement?.id === 'key-perm-project:read');
    await page.keyboard.press('Space');
    await tabTo(() => document.activeElement?.textContent === 'Create key');
    await page.keyboard.press('Enter');
    await page.getByLabel('New key “Keyboard key”:').waitFor();
    const [key] = (await t.api('GET', '/api-keys', { headers: { authorization: `Bearer ${await t.login()}` } })).body.data.items;
    expect(key).toMatchObject({ name: 'Keyboard key', permissions: ['project:read'], environment: 'live' });
  });

  it('on the sandbox port manages the sandbox: its badge, its keys, its own session', async () => {
    const sandbox = await browser.context.newPage();
    await signIn(sandbox, t, { sandbox: true });
    await openPage(sandbox, 'API keys');
    expect(await sandbox.locator('header .env').textContent()).toBe('Sandbox');
    // The live key is not in the sandbox.
    expect(await sandbox.getByRole('row', { name: /Keyboard key/ }).count()).toBe(0);
    await sandbox.getByLabel('Key name').fill('Sandbox key');
    await sandbox.getByRole('group', { name: 'Permissions' }).getByLabel('project:read').check();
    await sandbox.getByRole('button', { name: 'Create key' }).click();
    const value = (await sandbox.getByLabel('New key “Sandbox key”:').textContent())!;
    expect(value).toMatch(/^mp_test_/);
    expect((await t.api('GET', '/projects', { headers: { 'x-api-key': value }, sandbox: true })).status).toBe(200);
    // Two cookies, one per environment; signing out of the sandbox leaves the live session alone.
    const origin = (u: string) => new URL(u).origin;
    expect((await browser.context.cookies()).map((c) => c.name).sort()).toEqual(['__Secure-mp_console_refresh_live', '__Secure-mp_console_refresh_sandbox']);
    await sandbox.getByRole('button', { name: 'Sign out' }).click();
    await sandbox.getByRole('heading', { level: 1, name: 'Sign in to the console' }).waitFor();
    expect((await browser.context.cookies(`${origin(t.base)}/console/session`)).map((c) => c.name)).toEqual(['__Secure-mp_console_refresh_live']);
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
  });
});
