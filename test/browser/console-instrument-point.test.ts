import type { Page } from 'playwright-core';
import { launchChromium } from '../support/browser.js';
import { consoleUrl, LAPTOP, screenshot, signIn } from '../support/console.js';
import { startTestPlatform, type TestPlatform } from '../support/platform.js';

// The point page of an instrument (docs/instruments.md) in headless Chromium: a piezometer charts
// its primary channel, pore pressure in kPa, with its trigger levels drawn as lines; a channel
// selector asks the series endpoint for another channel (temperature in °C); the latest values
// table has a column per channel with its unit.
describe('console: instrument point', () => {
  let t: TestPlatform;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  let admin: Record<string, string>;
  let pointId: string;
  const now = Date.now();
  const hoursAgo = (h: number) => new Date(now - h * 3_600_000).toISOString();

  beforeAll(async () => {
    t = await startTestPlatform();
    admin = { authorization: `Bearer ${await t.login()}` };
    const projectId = (await t.api('POST', '/projects', { headers: admin, body: { name: 'Dam core', number: 'DAM-P', start_date: '2026-01-01' } })).body.data
      .id;
    expect((await t.api('PUT', `/projects/${projectId}/status`, { headers: admin, body: { status: 'in_progress' } })).status).toBe(200);
    const created = await t.api('POST', `/projects/${projectId}/points`, {
      headers: admin,
      body: {
        number: 'PZ-7',
        name: 'Core piezometer',
        sensor_type: 'piezometer',
        trigger_levels: [
          { level: 'warning', channel: 'pore_pressure', above: 250 },
          { level: 'alarm', channel: 'pore_pressure', above: 300 },
        ],
      },
    });
    expect(created.status).toBe(200);
    pointId = created.body.data.id;
    const records = [30, 20, 10, 5].map((h, i) => ({
      point_id: pointId,
      measured_at: hoursAgo(h),
      values: { pore_pressure: 180 + i * 25, temperature: 9 + i / 2 },
    }));
    expect((await t.api('POST', `/projects/${projectId}/data`, { headers: admin, body: { records } })).status).toBe(200);
    browser = await launchChromium({ viewport: LAPTOP });
    page = await browser.context.newPage();
    await signIn(page, t);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.stop();
  });

  it('charts pore pressure in kPa with its trigger levels, and its latest values per channel with units', async () => {
    const series = page.waitForRequest((r) => r.url().includes(`/v3/points/${pointId}/series`));
    await page.goto(`${consoleUrl(t)}#/points/${pointId}`);
    await page.getByRole('heading', { level: 1, name: 'Point PZ-7 · Core piezometer' }).waitFor();
    expect(new URL((await series).url()).searchParams.get('channel')).toBe('pore_pressure');
    const chart = page.getByRole('img', { name: /^Chart of pore_pressure in kPa .*trigger levels drawn: warning at 250 kPa, alarm at 300 kPa$/ });
    await chart.locator('canvas').waitFor();
    expect(await page.locator('.u-legend .u-label').allTextContents()).toEqual(['Time (UTC)', 'pore_pressure (kPa)']);
    // the unit heads the chart (uPlot draws the axis label, kPa too, on the canvas)
    expect(await page.locator('.u-title').textContent()).toBe('pore_pressure (kPa), bucket averages within their min–max envelope');
    expect(await page.locator('#series-summary').textContent()).toMatch(/^4 readings of pore_pressure \(kPa\) from /);
    expect(await page.getByLabel('Channel').inputValue()).toBe('pore_pressure');

    const latest = page.getByRole('table', { name: 'The newest readings of this point' });
    expect(await latest.getByRole('columnheader').allTextContents()).toEqual([
      'Measured at',
      'pore_pressure (kPa)',
      'frequency (Hz)',
      'temperature (°C)',
      'Status',
    ]);
    await latest.getByRole('row').nth(1).getByRole('cell').first().getByText('255', { exact: true }).waitFor();
    expect(await latest.getByRole('row').nth(1).getByRole('cell').allTextContents()).toEqual(['255', '—', '10.5', 'warning']);
    await screenshot(page, 'point-instrument');
  });

  it('asks for another channel when one is chosen, and charts it in its unit', async () => {
    const asked = page.waitForRequest((r) => r.url().includes('/series?') && new URL(r.url()).searchParams.get('channel') === 'temperature');
    await page.getByLabel('Channel').selectOption('temperature');
    await asked;
    await page
      .getByRole('img', { name: /^Chart of temperature in °C .*; no trigger levels on this channel$/ })
      .locator('canvas')
      .waitFor();
    expect(await page.locator('.u-legend .u-label').allTextContents()).toEqual(['Time (UTC)', 'temperature (°C)']);
    expect(await page.locator('#series-summary').textContent()).toMatch(/^4 readings of temperature \(°C\) from /);
  });
});
