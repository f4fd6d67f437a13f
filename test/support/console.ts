import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import type { TestPlatform } from './platform.js';

/** The console's address on the live (or sandbox) port of a test platform. */
export const consoleUrl = (t: TestPlatform, sandbox = false) => (sandbox ? t.sandboxBase : t.base).replace(/\/v3$/, '/console/');

/** Opens the console and signs in through its form as the platform's administrator: the console opens on its overview. */
export async function signIn(page: Page, t: TestPlatform, opts: { sandbox?: boolean } = {}): Promise<void> {
  await page.goto(consoleUrl(t, opts.sandbox));
  await page.getByLabel('Username').fill(t.admin.username);
  await page.getByLabel('Password').fill(t.admin.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
}

/** Goes to a page of the console by its navigation link and waits for its title. */
export async function openPage(page: Page, link: string, title = link): Promise<void> {
  await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: link }).click();
  await page.getByRole('heading', { level: 1, name: title }).waitFor();
}

/**
 * Saves a screenshot of the page for docs/console/ when MP_CONSOLE_SCREENSHOTS names a folder
 * (`MP_CONSOLE_SCREENSHOTS=docs/console npm run test:only -- test/browser/console`); a normal run
 * writes nothing.
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  const dir = process.env.MP_CONSOLE_SCREENSHOTS;
  if (!dir) return;
  mkdirSync(resolve(dir), { recursive: true });
  await page.screenshot({ path: join(resolve(dir), `${name}.png`), fullPage: true });
}

/** A laptop screen. */
export const LAPTOP = { width: 1366, height: 768 };
