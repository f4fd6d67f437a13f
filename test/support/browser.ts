import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

/**
 * Debian's chromium (scripts/ensure-infra.sh installs it; MP_CHROMIUM_PATH overrides) driven by
 * playwright-core, headless, with a new empty profile of its own: nothing is downloaded and no
 * state survives between test files. The gateway serves the test's self-signed certificate.
 */
export async function launchChromium(
  opts: { viewport?: { width: number; height: number } } = {},
): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  const profile = mkdtempSync(join(tmpdir(), 'mp-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    ignoreHTTPSErrors: true,
    executablePath: process.env.MP_CHROMIUM_PATH ?? '/usr/bin/chromium',
    ...(opts.viewport ? { viewport: opts.viewport } : {}),
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
