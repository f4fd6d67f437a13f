import type { Page } from 'playwright-core';
import { launchChromium } from '../support/browser.js';
import { LAPTOP, screenshot, signIn } from '../support/console.js';
import { expectError, startTestPlatform, type TestPlatform } from '../support/platform.js';

// The users page (administrators) in headless Chromium: create a user with permissions, change
// them, disable (sign-in refused with 401006) and enable again.
describe('console: users', () => {
  let t: TestPlatform;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  let admin: Record<string, string>;
  const login = (password = 'a long passphrase') => t.api('POST', '/auth/login', { body: { username: 'engineer', password, grant_type: 'password' } });

  beforeAll(async () => {
    t = await startTestPlatform();
    admin = { authorization: `Bearer ${await t.login()}` };
    browser = await launchChromium({ viewport: LAPTOP });
    page = await browser.context.newPage();
    await signIn(page, t);
    await page.getByRole('link', { name: 'Users' }).click();
    await page.getByRole('heading', { level: 1, name: 'Users' }).waitFor();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.stop();
  });

  it('creates a user with permissions who can then sign in', async () => {
    await page.getByLabel('Username').fill('engineer');
    await page.getByLabel('Full name').fill('Project Engineer');
    await page.getByLabel('Initial password').fill('a long passphrase');
    const perms = page.getByRole('group', { name: 'Permissions', exact: true });
    await perms.getByLabel('project:read').check();
    await perms.getByLabel('data:read').check();
    await page.getByRole('button', { name: 'Create user' }).click();
    const row = page.getByRole('row', { name: /engineer/ });
    await row.waitFor();
    expect(await row.getByRole('cell').allTextContents()).toEqual(['Project Engineer', 'project:read data:read', 'enabled', '—', 'PermissionsDisable']);
    const res = await login();
    expect(res.status).toBe(200);
    expect(res.body.data.scope).toBe('project:read data:read');
  });

  it('changes the permissions', async () => {
    await page.getByRole('button', { name: 'Edit permissions of engineer' }).click();
    const perms = page.getByRole('group', { name: 'Permissions of engineer' });
    await perms.getByLabel('data:read').uncheck();
    await perms.getByLabel('task:write').check();
    await page.getByRole('button', { name: 'Save permissions' }).click();
    const row = page.getByRole('row', { name: /engineer/ });
    await row.getByRole('cell', { name: 'project:read task:write' }).waitFor();
    const [user] = (await t.api('GET', '/users?q=engineer', { headers: admin })).body.data.items;
    expect(user.permissions).toEqual(['project:read', 'task:write']);
  });

  it('disables the user (sign-in refused with 401006) and enables them again', async () => {
    await page.getByRole('button', { name: 'Disable engineer' }).click();
    const row = page.getByRole('row', { name: /engineer/ });
    await row.getByText('disabled', { exact: true }).waitFor();
    expectError(await login(), 401006);
    await screenshot(page, '08-users');

    await page.getByRole('button', { name: 'Enable engineer' }).click();
    await row.getByText('enabled', { exact: true }).waitFor();
    expect((await login()).status).toBe(200);
  });

  it('sends a user whose account was disabled meanwhile back to the sign-in page', async () => {
    // A second tab shares the browser's session cookie (signed in as the administrator): sign out
    // there, then in as the engineer.
    const other = await browser.context.newPage();
    await other.goto(page.url().replace(/#.*$/, ''));
    await other.getByRole('button', { name: 'Sign out' }).click();
    await other.getByLabel('Username').fill('engineer');
    await other.getByLabel('Password').fill('a long passphrase');
    await other.getByRole('button', { name: 'Sign in' }).click();
    await other.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();

    const [user] = (await t.api('GET', '/users?q=engineer', { headers: admin })).body.data.items;
    expect((await t.api('PATCH', `/users/${user.id}`, { headers: admin, body: { disabled: true, version: user.version } })).status).toBe(200);
    await other.getByRole('link', { name: 'Projects' }).click();
    await other.getByRole('heading', { level: 1, name: 'Sign in to the console' }).waitFor();
    await other.close();
  });
});
