import type { Page, Request } from 'playwright-core';
import { launchChromium } from '../support/browser.js';
import { consoleUrl, LAPTOP, screenshot, signIn } from '../support/console.js';
import { startTestPlatform, type TestPlatform } from '../support/platform.js';

// The point page in headless Chromium: the uPlot time history from the series endpoint, the
// range choices and drag-to-zoom (each a new series request), the latest values, new data
// appearing without a reload, and open alarms acknowledged and cleared.
describe('console: point detail', () => {
  let t: TestPlatform;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  let admin: Record<string, string>;
  let projectId: string;
  let pointId: string;
  const now = Date.now();
  const hoursAgo = (h: number) => new Date(now - h * 3_600_000).toISOString();
  const write = async (measuredAt: string, dz: number) => {
    const res = await t.api('POST', `/projects/${projectId}/data`, {
      headers: admin,
      body: { records: [{ point_id: pointId, measured_at: measuredAt, values: { dx: 0.5, dy: -0.5, dz } }] },
    });
    expect(res.status).toBe(200);
  };
  const seriesSpan = (r: Request) => {
    const q = new URL(r.url()).searchParams;
    return (Date.parse(q.get('to')!) - Date.parse(q.get('from')!)) / 1000;
  };

  beforeAll(async () => {
    t = await startTestPlatform();
    admin = { authorization: `Bearer ${await t.login()}` };
    projectId = (await t.api('POST', '/projects', { headers: admin, body: { name: 'Dam crest', number: 'DAM-1', start_date: '2026-01-01' } })).body.data.id;
    expect((await t.api('PUT', `/projects/${projectId}/status`, { headers: admin, body: { status: 'in_progress' } })).status).toBe(200);
    pointId = (
      await t.api('POST', `/projects/${projectId}/points`, {
        headers: admin,
        body: {
          number: 'CR-01',
          name: 'Crest 1',
          sensor_type: 'total_station',
          reference: { x: 3512345.1, y: 512345.6, z: 45.3 },
          thresholds: { warning: 5, alarm: 10 },
        },
      })
    ).body.data.id;
    for (const [h, dz] of [
      [30, 1],
      [20, 2.5],
      [10, 4],
      [5, 12],
    ] as const)
      await write(hoursAgo(h), dz);
    browser = await launchChromium({ viewport: LAPTOP });
    page = await browser.context.newPage();
    await signIn(page, t);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.stop();
  });

  it('draws the time history of the last 30 days with the readings, latest values and the open alarm', async () => {
    const series = page.waitForRequest((r) => r.url().includes(`/v3/points/${pointId}/series`));
    await page.goto(`${consoleUrl(t)}#/points/${pointId}`);
    await page.getByRole('heading', { level: 1, name: 'Point CR-01 · Crest 1' }).waitFor();
    expect(seriesSpan(await series)).toBe(30 * 86400);
    await page
      .getByRole('img', { name: /Chart of dx, dy and dz .* warning band at ±5 mm, alarm beyond ±10 mm/ })
      .locator('canvas')
      .waitFor();
    expect(await page.locator('#series-summary').textContent()).toMatch(/^4 readings from /);
    // uPlot's legend names the three series.
    expect(await page.locator('.u-legend .u-label').allTextContents()).toEqual(['Time (UTC)', 'dx', 'dy', 'dz']);

    const latest = page.getByRole('table', { name: 'The newest readings of this point' });
    expect(await latest.getByRole('row').nth(1).getByRole('cell').allTextContents()).toEqual(['0.5', '-0.5', '12', 'alarm']);
    const alarms = page.getByRole('table', { name: 'Alarms of this point not yet cleared' });
    await alarms.getByRole('row').nth(1).waitFor();
    expect(await alarms.getByRole('row').nth(1).getByRole('cell').allTextContents()).toEqual([
      'alarm',
      expect.stringContaining('dz'),
      'open',
      'AcknowledgeClear',
    ]);
    await screenshot(page, '05-point-detail');
  });

  it('shows a new reading without a reload while the range ends now', async () => {
    await write(hoursAgo(0.5), 3);
    const latest = page.getByRole('table', { name: 'The newest readings of this point' });
    await latest.getByRole('row').nth(1).getByRole('cell').nth(2).getByText('3', { exact: true }).waitFor();
    await page
      .locator('#series-summary')
      .getByText(/^5 readings from /)
      .waitFor();
  });

  it('asks the series endpoint again for a chosen range and for a range dragged on the chart', async () => {
    const day = page.waitForRequest((r) => r.url().includes('/series?'));
    await page.getByRole('group', { name: 'Time range' }).getByRole('button', { name: '1 day' }).click();
    expect(seriesSpan(await day)).toBe(86400);
    expect(await page.getByRole('button', { name: '1 day' }).getAttribute('aria-pressed')).toBe('true');

    const box = (await page.locator('.chart .u-over').boundingBox())!;
    const zoomed = page.waitForRequest((r) => r.url().includes('/series?') && seriesSpan(r) < 86400 / 2);
    await page.mouse.move(box.x + box.width * 0.5, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.8, box.y + box.height / 2, { steps: 5 });
    await page.mouse.up();
    const span = seriesSpan(await zoomed);
    expect(span).toBeGreaterThan(86400 * 0.2);
    expect(span).toBeLessThan(86400 * 0.4);
    await page.getByRole('button', { name: 'Back to live' }).waitFor();
  });

  it('acknowledges and clears the open alarm with a comment', async () => {
    const alarms = page.getByRole('table', { name: 'Alarms of this point not yet cleared' });
    const row = alarms.getByRole('row').nth(1);
    await page.getByLabel('Comment for acknowledge or clear (optional)').fill('Crew on site');
    await row.getByRole('button', { name: /^Acknowledge alarm/ }).click();
    await row.getByRole('cell').getByText('acknowledged', { exact: true }).waitFor();
    const [alarm] = (await t.api('GET', `/projects/${projectId}/alarms`, { headers: admin })).body.data.items;
    expect(alarm).toMatchObject({ point_id: pointId, status: 'acknowledged', acknowledged: { comment: 'Crew on site' } });

    await row.getByRole('button', { name: /^Clear alarm/ }).click();
    await page.getByText('No open alarms.').waitFor();
    expect((await t.api('GET', `/alarms/${alarm.alarm_id}`, { headers: admin })).body.data.status).toBe('cleared');
  });

  it("keeps a single spike visible: the envelope of the buckets' lowest and highest readings, and the furthest reading named", async () => {
    const spiky = (
      await t.api('POST', `/projects/${projectId}/points`, {
        headers: admin,
        body: {
          number: 'CR-02',
          name: 'Crest 2',
          sensor_type: 'total_station',
          reference: { x: 3512345.1, y: 512345.6, z: 45.3 },
          thresholds: { warning: 50, alarm: 100 },
        },
      })
    ).body.data.id;
    // ten readings a minute apart, 1 mm but one of 40 mm: one bucket of the 30-day chart holds them
    const start = now - 2 * 3_600_000;
    const records = Array.from({ length: 10 }, (_, i) => ({
      point_id: spiky,
      measured_at: new Date(start + i * 60_000).toISOString(),
      values: { dx: 0.5, dy: -0.5, dz: i === 5 ? 40 : 1 },
    }));
    const written = await t.api('POST', `/projects/${projectId}/data`, { headers: admin, body: { records } });
    expect(written.status).toBe(200);
    // opened fresh (the range chosen on the other point's page above stays while the page lives)
    await page.goto(`${consoleUrl(t)}#/points/${spiky}`);
    const seriesAnswer = page.waitForResponse((r) => r.url().includes(`/v3/points/${spiky}/series`));
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Point CR-02 · Crest 2' }).waitFor();
    // what the chart was given: the spike's bucket averages it away, its maximum keeps it
    const buckets = ((await (await seriesAnswer).json()).data.buckets as { count: number; dz?: { avg: number; max: number } }[]).filter(
      (b) => b.dz?.max === 40,
    );
    expect(buckets).toHaveLength(1);
    expect(buckets[0]!.dz!.avg).toBeLessThan(40);
    await page
      .getByRole('img', { name: /the reading furthest from zero is dz 40 mm/ })
      .locator('canvas')
      .waitFor();
    await screenshot(page, 'point-envelope');
    expect(await page.locator('#series-extreme').textContent()).toMatch(/^Furthest from zero in this range: dz 40 mm, in the bucket from /);
  });

  it("shows several points of the project on one chart, each point's series asked for the same range", async () => {
    await page.goto(`${consoleUrl(t)}#/projects/${projectId}`);
    await page.getByRole('heading', { level: 2, name: 'Compare points' }).waitFor();
    const points = page.getByRole('group', { name: 'Points to compare' });
    const asked: Request[] = [];
    page.on('request', (r) => r.url().includes('/series?') && asked.push(r));
    await points.getByLabel('CR-01 Crest 1').check();
    await points.getByLabel('CR-02 Crest 2').check();
    const chart = page.getByRole('img', { name: 'Chart of dz of CR-01 Crest 1, CR-02 Crest 2: bucket averages, one line each' });
    await chart.locator('canvas').waitFor();
    expect(await chart.locator('.u-legend .u-label').allTextContents()).toEqual(['Time (UTC)', 'CR-01 Crest 1', 'CR-02 Crest 2']);
    // the last round of requests: both points, one range
    const last = asked.slice(-2);
    const paths = last.map((r) => new URL(r.url()).pathname);
    expect(new Set(paths).size).toBe(2);
    expect(paths).toContain(`/v3/points/${pointId}/series`);
    expect(new Set(last.map((r) => new URL(r.url()).searchParams.get('from'))).size).toBe(1);
    await page.getByLabel('Component').selectOption('dx');
    await page
      .getByRole('img', { name: /^Chart of dx of CR-01 Crest 1, CR-02 Crest 2/ })
      .locator('canvas')
      .waitFor();
  });
});
