import { createHmac } from 'node:crypto';
import type { Page } from 'playwright-core';
import { startHttpsReceiver, type HttpsReceiver } from '@mp/testing';
import { launchChromium } from '../support/browser.js';
import { LAPTOP, openPage, screenshot, signIn } from '../support/console.js';
import { startTestPlatform, type TestPlatform } from '../support/platform.js';

// Proof of the console (ADR 0056): someone who has never seen the API, from the console alone, creates a key, a
// webhook, a project with a point, sees the data a logger sends with that key arrive on the chart,
// and receives the signed webhook. The only thing outside the console is the logger itself.
describe('console walkthrough: from a key to data on the chart and a webhook received', () => {
  let t: TestPlatform;
  let receiver: HttpsReceiver;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;

  beforeAll(async () => {
    t = await startTestPlatform();
    receiver = await startHttpsReceiver({ fallback: { status: 204 } });
    browser = await launchChromium({ viewport: LAPTOP });
    page = await browser.context.newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await receiver?.close();
    await t?.stop();
  });

  it('walks through it', async () => {
    await signIn(page, t);

    // 1. A key for the site's data logger, its value copied from the page. (Signing in lands on
    // the overview; keys have a page of their own.)
    await openPage(page, 'API keys');
    await page.getByLabel('Key name').fill('Data logger');
    await page.getByRole('group', { name: 'Permissions' }).getByLabel('data:write').check();
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.getByLabel('New key “Data logger”:').textContent())!;
    expect(key).toMatch(/^mp_live_/);

    // 2. A webhook for new data, its secret copied from the page.
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByLabel('Webhook name').fill('Control room');
    await page.getByLabel('Receiving URL (HTTPS)').fill(`${receiver.url}/data`);
    await page.getByRole('group', { name: 'Events' }).getByLabel('data.created').check();
    await page.getByRole('button', { name: 'Create webhook' }).click();
    const secret = (await page.getByLabel('Signing secret of the new webhook:').textContent())!;

    // 3. A project, started, with one point.
    await page.getByRole('link', { name: 'Projects' }).click();
    await page.getByLabel('Project name').fill('Harbour wall');
    await page.getByLabel('Project number').fill('HW-1');
    await page.getByLabel('Start date (optional)').fill('2026-01-01');
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.getByRole('link', { name: 'Harbour wall' }).click();
    await page.getByRole('button', { name: 'Move to in progress' }).click();
    await page.getByRole('button', { name: 'Move to paused' }).waitFor();
    await page.getByLabel('Point number').fill('HW-P1');
    await page.getByLabel('Point name').fill('Wall top');
    await page.getByLabel('Warning threshold (mm)').fill('5');
    await page.getByLabel('Alarm threshold (mm)').fill('10');
    await page.getByRole('button', { name: 'Add point' }).click();
    // (exact: the site plan beside the list links the point too, as "HW-P1 Wall top: no data")
    await page.getByRole('link', { name: 'Wall top', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Point HW-P1 · Wall top' }).waitFor();
    await page.getByText('No readings yet.').waitFor();
    const pointId = new URL(page.url()).hash.split('/').pop()!;
    const projectHref = (await page.getByRole('link', { name: 'Project', exact: true }).getAttribute('href'))!;
    const projectId = projectHref.split('/').pop()!;

    // 4. The logger sends a reading with the key; the open page shows it without a reload.
    const measuredAt = new Date(Date.now() - 60_000).toISOString();
    const write = await t.api('POST', `/projects/${projectId}/data`, {
      headers: { 'x-api-key': key },
      body: { records: [{ point_id: pointId, measured_at: measuredAt, values: { dx: 1.2, dy: -0.4, dz: 2.1 } }] },
    });
    expect(write.status).toBe(200);
    await page
      .locator('#series-summary')
      .getByText(/^1 reading from /)
      .waitFor();
    const latest = page.getByRole('table', { name: 'The newest readings of this point' });
    expect(await latest.getByRole('row').nth(1).getByRole('cell').allTextContents()).toEqual(['1.2', '-0.4', '2.1', 'normal']);
    await screenshot(page, '09-walkthrough-data-on-the-chart');

    // 5. The control room received data.created, signed with the secret the console showed.
    const [delivery] = await receiver.waitFor(1);
    expect(delivery!.json).toMatchObject({ event_type: 'data.created', data: { project_id: projectId, project_name: 'Harbour wall', total_count: 1 } });
    expect(delivery!.json.data.records[0]).toMatchObject({ point_id: pointId, values: { dx: 1.2, dy: -0.4, dz: 2.1 } });
    const expected = createHmac('sha256', secret).update(`${delivery!.headers['x-service-timestamp']}.${delivery!.rawBody}`).digest('hex');
    expect(delivery!.headers['x-service-signature']).toBe(`sha256=${expected}`);
  });
});
